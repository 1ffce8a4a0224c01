"""Spark reads a `kseg export` records table: its schema, for the columns of Spark's Kafka
source, equals that source's schema as Spark's own connector defines it
(`KafkaRecordToRowConverter.kafkaSchema(includeHeaders = true)`, from the spark-sql-kafka jar
given), and a query written for the Kafka source runs on it unchanged.

    python3 export_spark.py EXPORT_DIR SPARK_SQL_KAFKA_JAR

Prints one JSON object; exits 1 naming the difference.
"""

import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType


def main():
    root, jar = sys.argv[1:3]
    spark = (SparkSession.builder.master("local[1]").appName("kseg-export")
             .config("spark.driver.extraClassPath", jar)
             .config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    jvm = spark.sparkContext._jvm
    converter = jvm.org.apache.spark.sql.kafka010.KafkaRecordToRowConverter
    kafka = StructType.fromJson(json.loads(converter.kafkaSchema(True).json()))
    df = spark.read.parquet(root + "/records")
    ours = StructType([df.schema[f.name] for f in kafka.fields])
    if ours != kafka:
        print(f"schema differs:\n  Spark's Kafka source: {kafka.simpleString()}\n"
              f"  the export:           {ours.simpleString()}", file=sys.stderr)
        sys.exit(1)
    # The usual first lines of a Kafka-source job, unchanged.
    rows = (df.selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic",
                          "partition", "offset", "timestamp", "timestampType", "headers")
            .where("timestamp >= TIMESTAMP '1970-01-01 00:00:00'")
            .groupBy("topic").count().collect())
    manifest = json.load(open(root + "/_kseg_export.json"))
    print(json.dumps({
        "columns": [f.name for f in kafka.fields],
        "rows": sum(r["count"] for r in rows),
        "manifestRows": manifest["tables"]["records"]["rows"],
        "extra": [f.name for f in df.schema.fields if f.name not in kafka.fieldNames()],
    }))
    spark.stop()


if __name__ == "__main__":
    main()
