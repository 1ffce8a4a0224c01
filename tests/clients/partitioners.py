#!/usr/bin/env python3
"""Where librdkafka puts keyed records, for kseg grep's partitioners (tests/oracle/grep_keys.rs).

Creates TOPIC with PARTITIONS partitions (unless it exists), then produces with confluent-kafka
(librdkafka) under three partitioners — its default `consistent_random` (CRC-32),
`murmur2_random` (the Java producer's murmur2) and `fnv1a_random` (sarama's FNV-1a) — one
record per key `<prefix>-<i>` (prefix: rdk, rdk-murmur2, rdk-fnv1a), value `<key>/v`, and
EMPTY records with an empty key under the default partitioner (placed at random). Prints one
JSON object: {"ok": true, "placed": [{"partitioner", "key", "partition"}, ...]}, each partition
as the delivery report gives it (the broker's acknowledgement).
"""
import argparse
import json
import sys
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--keys", type=int, default=24)
    ap.add_argument("--empty", type=int, default=12)
    a = ap.parse_args()

    admin = AdminClient({"bootstrap.servers": a.bootstrap})
    futures = admin.create_topics([NewTopic(a.topic, a.partitions, 1)])
    for f in futures.values():
        try:
            f.result(60)
        except Exception as e:  # an existing topic is fine
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise
    # The producer needs the partition count in its metadata before it places a key.
    deadline = time.time() + 60
    while time.time() < deadline:
        md = admin.list_topics(a.topic, timeout=10).topics.get(a.topic)
        if md is not None and md.error is None and len(md.partitions) == a.partitions:
            break
        time.sleep(0.2)
    else:
        raise SystemExit(f"{a.topic} never had {a.partitions} partitions in the metadata")

    placed = []
    errors = []
    for name, prefix in [
        ("consistent_random", "rdk"),
        ("murmur2_random", "rdk-murmur2"),
        ("fnv1a_random", "rdk-fnv1a"),
    ]:
        p = Producer(
            {
                "bootstrap.servers": a.bootstrap,
                "partitioner": name,
                "acks": "all",
                "linger.ms": 5,
            }
        )

        def done(err, msg, name=name):
            if err is not None:
                errors.append(str(err))
                return
            placed.append(
                {
                    "partitioner": name,
                    "key": msg.key().decode(),
                    "partition": msg.partition(),
                }
            )

        for i in range(a.keys):
            key = f"{prefix}-{i}"
            p.produce(a.topic, key=key.encode(), value=f"{key}/v".encode(), on_delivery=done)
        if name == "consistent_random":
            for i in range(a.empty):
                p.produce(a.topic, key=b"", value=f"empty-{i}".encode(), on_delivery=done)
        if p.flush(60) != 0:
            raise SystemExit(f"{name}: records not delivered in 60 s")
    if errors:
        raise SystemExit(f"delivery failed: {errors[:3]}")
    json.dump({"ok": True, "placed": placed}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
