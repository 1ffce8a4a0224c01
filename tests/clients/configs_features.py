"""Config changes and features through the Python clients, which failed on them against kseg
mini-broker before it had IncrementalAlterConfigs / AlterConfigs, finalized features and
UpdateFeatures: a topic's retention.ms and segment.bytes altered (and a bad value refused with
Kafka's message), a dynamic broker config, DescribeConfigs of the topic and the broker,
the finalized features and an UpdateFeatures.

  configs_features.py kafka-python --bootstrap HOST:PORT --prefix P
  configs_features.py confluent --bootstrap HOST:PORT --prefix P [--quick]

Prints one JSON object; "ok": true when every check passed (a failed check raises)."""

import argparse
import json
import sys

from polling import check, wait_for


def kafka_python(a):
    from kafka import KafkaProducer
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic

    p = a.prefix
    out = {}
    admin = KafkaAdminClient(bootstrap_servers=a.bootstrap)

    def known(topic):
        # Kafka answers CreateTopics when its controller has the topic; the broker answering
        # the next request learns it a moment later (UNKNOWN_TOPIC_OR_PARTITION until then).
        # (kafka-python leaves out the configs at their defaults: a topic's answer may be empty.)
        wait_for(f"{topic} known to the broker", lambda: topic in admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic)])["topic"], limit=30)

    topic = f"{p}-cfg"
    admin.create_topics([NewTopic(topic, 1, 1)])
    known(topic)
    # IncrementalAlterConfigs (the client's default when the broker has it).
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                            configs={"retention.ms": "60000", "segment.bytes": "1048576"})])
    check(r == {"topic": {topic: "OK"}}, f"alter: {r}")
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={"retention.ms": "abc"})])
    out["bad_value"] = r["topic"][topic]
    check("Invalid value abc for configuration retention.ms: Not a number of type LONG" in out["bad_value"],
          f"bad value: {r}")
    # The legacy AlterConfigs: the whole set of overrides is replaced.
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={"retention.ms": "120000"})],
                            incremental=False)
    check(r == {"topic": {topic: "OK"}}, f"legacy alter: {r}")
    d = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])["topic"][topic]
    check(d["retention.ms"]["value"] == "120000" and d["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG",
          f"retention.ms: {d['retention.ms']}")
    # (kafka-python sends the other overrides the topic has along, so segment.bytes stays.)
    # A dynamic broker config: cluster-wide retention.bytes for topics without an override.
    r = admin.alter_configs([ConfigResource(ConfigResourceType.BROKER, "1", configs={"log.retention.bytes": "999999"})])
    check(r == {"broker": {"1": "OK"}}, f"broker alter: {r}")
    # (kafka-python leaves out the configs at their defaults. Kafka applies a dynamic broker
    # config when the metadata reaches the broker, a moment after the answer.)
    def broker_value():
        d = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, "1")])["broker"]["1"]
        e = d.get("log.retention.bytes", {})
        return e.get("value") == "999999" and e.get("config_source") == "DYNAMIC_BROKER_CONFIG"
    wait_for("log.retention.bytes=999999 as a dynamic broker config", broker_value, limit=30)
    r = admin.alter_configs([ConfigResource(ConfigResourceType.BROKER, "1", configs={"num.partitions": "3"})],
                            raise_on_unknown=False)
    check("Cannot update these configs dynamically: [num.partitions]" in r["broker"]["1"], f"read-only: {r}")
    f = admin.describe_features()
    out["features"] = {k: v.get("finalized") for k, v in f.items()}
    check(f["metadata.version"]["finalized"] == (33, 33), f"features: {f}")
    check(f["group.version"]["finalized"] == (1, 1), f"features: {f}")
    check(admin.update_features({"group.version": 1}) == {"group.version": "OK"}, "update_features")
    try:
        admin.update_features({"transaction.version": 3})
        raise AssertionError("transaction.version 3 was accepted")
    except Exception as e:
        check("Invalid update version 3 for feature transaction.version. Local controller 1 only supports "
              "versions 0-" in str(e), f"update_features: {e}")
    if a.quick:
        admin.close()
        out["ok"] = True
        return out
    # segment.bytes altered to 1 MiB takes effect: 1.5 MiB of records make two segments.
    admin.create_topics([NewTopic(f"{p}-roll", 1, 1)])
    known(f"{p}-roll")
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, f"{p}-roll",
                                            configs={"segment.bytes": "1048576"})])
    check(r == {"topic": {f"{p}-roll": "OK"}}, f"alter roll: {r}")
    prod = KafkaProducer(bootstrap_servers=a.bootstrap, linger_ms=5)
    for i in range(24):
        prod.send(f"{p}-roll", b"x" * 65536)
    # retention.ms altered after the records are written: the next retention check deletes
    # their segments (the broker rolls small segments and checks often in this test).
    ret = f"{p}-ret"
    admin.create_topics([NewTopic(ret, 1, 1)])
    known(ret)
    prod.flush()
    prod.close()
    # One record per batch: a batch over the broker's 1 KiB segments would be refused.
    prod = KafkaProducer(bootstrap_servers=a.bootstrap, batch_size=400)
    for i in range(20):
        prod.send(ret, b"r" * 300)
    prod.flush()
    prod.close()
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, ret, configs={"retention.ms": "1"})])
    check(r == {"topic": {ret: "OK"}}, f"alter retention: {r}")
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=a.bootstrap)
    tp = TopicPartition(ret, 0)
    out["log_start_after_retention"] = wait_for(
        "retention.ms=1 to delete segments", lambda: consumer.beginning_offsets([tp])[tp])
    consumer.close()
    admin.close()
    out["ok"] = True
    return out


def confluent(a):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                       NewTopic, ResourceType)

    p = a.prefix
    out = {}
    admin = AdminClient({"bootstrap.servers": a.bootstrap})

    def result(futures):
        return {k: f.result(timeout=30) for k, f in futures.items()}

    topic = f"{p}-cfg"
    result(admin.create_topics([NewTopic(topic, 1, 1)]))
    # Kafka answers CreateTopics when its controller has the topic; the broker answering the
    # next request learns it a moment later (UNKNOWN_TOPIC_OR_PART until then).
    initial = wait_for(f"{topic} known to the broker", lambda: list(
        result(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)])).values())[0], limit=30)
    res = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
    ])
    result(admin.incremental_alter_configs([res]))
    d = result(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)]))
    entries = list(d.values())[0]
    check(entries["retention.ms"].value == "1000", f"retention.ms: {entries['retention.ms']}")
    check(entries["cleanup.policy"].value == "delete,compact", f"cleanup.policy: {entries['cleanup.policy']}")
    res = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.APPEND)])
    try:
        result(admin.incremental_alter_configs([res]))
        raise AssertionError("APPEND to retention.ms was accepted")
    except KafkaException as e:
        out["append_error"] = str(e)
        check("Can't APPEND to key retention.ms because its type is not LIST." in str(e), str(e))
    res = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE)])
    result(admin.incremental_alter_configs([res]))
    # The legacy AlterConfigs.
    result(admin.alter_configs([ConfigResource(ResourceType.TOPIC, topic, set_config={"retention.bytes": "5000"})]))
    entries = list(result(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)])).values())[0]
    check(entries["retention.bytes"].value == "5000", f"retention.bytes: {entries['retention.bytes']}")
    check(entries["retention.ms"].value == initial["retention.ms"].value, f"retention.ms: {entries['retention.ms']}")
    check(entries["cleanup.policy"].value == "delete", f"cleanup.policy: {entries['cleanup.policy']}")
    # Broker configs as Kafka 4.4 describes them.
    d = list(result(admin.describe_configs([ConfigResource(ResourceType.BROKER, "1")])).values())[0]
    out["broker_configs"] = len(d)
    check(len(d) >= 350, f"{len(d)} broker configs")
    check(d["log.retention.hours"].value == "168", f"{d['log.retention.hours']}")
    res = ConfigResource(ResourceType.BROKER, "1", incremental_configs=[
        ConfigEntry("log.retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
    result(admin.incremental_alter_configs([res]))
    admin_topic = f"{p}-dyn"
    result(admin.create_topics([NewTopic(admin_topic, 1, 1)]))

    def topic_retention():
        e = list(result(admin.describe_configs([ConfigResource(ResourceType.TOPIC, admin_topic)])).values())[0]
        r = e["retention.ms"]
        return r.value == "3600000" and r.source == 2 and r
    # (Kafka applies the dynamic broker config a moment after its answer.)
    wait_for("retention.ms=3600000 from the dynamic broker config (DYNAMIC_BROKER_CONFIG)", topic_retention,
             limit=30)
    out["ok"] = True
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("client", choices=["kafka-python", "confluent"])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--prefix", default="cfg")
    ap.add_argument("--quick", action="store_true",
                    help="skip the effects that need the test's broker settings (small segments, "
                         "frequent retention checks)")
    a = ap.parse_args()
    out = kafka_python(a) if a.client == "kafka-python" else confluent(a)
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
