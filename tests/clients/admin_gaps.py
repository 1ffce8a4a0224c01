"""The admin calls client test fixtures and cleanup scripts make, against kseg mini-broker:
topic configs on CreateTopics (honoured or refused with INVALID_CONFIG), retention by time and
size, DeleteRecords, CreatePartitions, DescribeConfigs, DeleteGroups, DeleteTopics,
DescribeCluster and authorized operations, and static membership fencing.

  admin_gaps.py kafka-python --bootstrap HOST:PORT --prefix P
  admin_gaps.py confluent --bootstrap HOST:PORT --prefix P

Prints one JSON object; "ok": true when every check passed (a failed check raises)."""

import argparse
import json
import sys
import time

from polling import check, wait_for

TOPIC_OPS = {"READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"}
GROUP_OPS = {"READ", "DESCRIBE", "DELETE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"}
CLUSTER_OPS = {"CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "ALTER", "DESCRIBE"}
HOUR_MS = 3_600_000


def kafka_python(a):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewPartitions, NewTopic
    from kafka.errors import InvalidConfigurationError

    p = a.prefix
    out = {}
    admin = KafkaAdminClient(bootstrap_servers=a.bootstrap, client_id="kp-admin")
    # Topic configs the mini-broker implements are honoured...
    admin.create_topics([
        NewTopic(f"{p}-time", 1, 1, topic_configs={"retention.ms": "60000"}),
        NewTopic(f"{p}-size", 1, 1, topic_configs={"retention.bytes": "3000", "cleanup.policy": "delete"}),
        NewTopic(f"{p}-recs", 2, 1, topic_configs={"message.timestamp.type": "LogAppendTime"}),
        NewTopic(f"{p}-compact", 1, 1, topic_configs={"cleanup.policy": "compact"}),
    ])
    # ... the others are refused with Kafka's error code and a message naming the config.
    refused = {}
    for cfg in [{"compression.type": "zstd"}, {"foo.bar": "1"}, {"segment.bytes": "16384"}, {"retention.ms": "-2"}]:
        try:
            admin.create_topics([NewTopic(f"{p}-bad", 1, 1, topic_configs=cfg)])
            raise AssertionError(f"{cfg} was accepted")
        except InvalidConfigurationError as e:
            refused[next(iter(cfg))] = str(e)
    check("not implemented by kseg mini-broker" in refused["compression.type"], refused)
    check("Unknown topic config name: foo.bar" in refused["foo.bar"], refused)
    check("Value must be at least 1048576" in refused["segment.bytes"], refused)
    check("Value must be at least -1" in refused["retention.ms"], refused)
    check(f"{p}-bad" not in admin.list_topics(), "a refused topic is not created")
    out["refused"] = sorted(refused)

    # Authorized operations, asked for: what Kafka answers without an authorizer.
    topics = admin.describe_topics([f"{p}-recs"])
    check(set(topics[0]["authorized_operations"]) == TOPIC_OPS, topics)
    cluster = admin.describe_cluster()
    check(set(cluster["authorized_operations"]) == CLUSTER_OPS, cluster)
    check(cluster["controller_id"] == cluster["brokers"][0]["broker_id"], cluster)

    prod = KafkaProducer(bootstrap_servers=a.bootstrap, linger_ms=0, batch_size=200)
    old = int(time.time() * 1000) - HOUR_MS
    # Old records in rolling 1 KiB segments: retention.ms=60000 expires every segment, so Kafka
    # rolls the active one first and deletes them all (the log keeps an empty segment at 40).
    for i in range(40):
        prod.send(f"{p}-time", key=b"k%d" % i, value=b"x" * 100, timestamp_ms=old + i)
        prod.flush()
    for i in range(60):
        prod.send(f"{p}-size", key=b"k%d" % i, value=b"y" * 100)
        prod.flush()
    for i in range(10):
        prod.send(f"{p}-recs", key=b"r%d" % i, value=b"v", partition=i % 2)
    prod.flush()
    # cleanup.policy=compact: a record without a key is refused, as Kafka's LogValidator does.
    try:
        prod.send(f"{p}-compact", value=b"no key").get(timeout=30)
        raise AssertionError("a keyless record was accepted by a compacted topic")
    except Exception as e:
        out["compact_keyless"] = type(e).__name__
    prod.close()

    cons = KafkaConsumer(bootstrap_servers=a.bootstrap)
    time_tp, size_tp = TopicPartition(f"{p}-time", 0), TopicPartition(f"{p}-size", 0)
    out["time_start"] = wait_for("retention.ms", lambda: cons.beginning_offsets([time_tp])[time_tp])
    end = cons.end_offsets([time_tp])[time_tp]
    check(end == 40 and out["time_start"] == 40, (out["time_start"], end))
    out["size_start"] = wait_for("retention.bytes", lambda: cons.beginning_offsets([size_tp])[size_tp])

    # DeleteRecords moves the log start offset (the low watermark).
    tp0 = TopicPartition(f"{p}-recs", 0)
    res = admin.delete_records({tp0: 3})
    out["delete_records"] = str(res)
    check(cons.beginning_offsets([tp0])[tp0] == 3, cons.beginning_offsets([tp0]))
    cons.close()

    # CreatePartitions.
    admin.create_partitions({f"{p}-recs": NewPartitions(total_count=4)})
    check(len(admin.describe_topics([f"{p}-recs"])[0]["partitions"]) == 4, "4 partitions")

    # DescribeConfigs: the override and its source.
    cfg = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, f"{p}-time")])
    out["describe_configs"] = str(cfg)[:200]
    check("retention.ms" in str(cfg) and "60000" in str(cfg), cfg)

    # A group: consume, commit, leave; describe with authorized operations; delete it.
    g = f"{p}-group"
    c = KafkaConsumer(f"{p}-recs", bootstrap_servers=a.bootstrap, group_id=g,
                      auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=3000)
    n = sum(1 for _ in c)
    c.commit()
    c.close()
    check(n == 7, f"7 records after DeleteRecords, not {n}")
    desc = admin.describe_groups([g], include_authorized_operations=True)
    check(desc[g]["group_state"] == "Empty", desc)
    check(set(desc[g]["authorized_operations"]) == GROUP_OPS, desc)
    deleted = admin.delete_groups([g, f"{p}-nosuch"])
    out["delete_groups"] = deleted
    check(deleted == {g: "OK", f"{p}-nosuch": "GroupIdNotFoundError"}, deleted)
    check(all(x["group_id"] != g for x in admin.list_groups()), "the group is gone")

    # DeleteTopics.
    admin.delete_topics([f"{p}-compact"])
    check(f"{p}-compact" not in admin.list_topics(), "the topic is gone")
    admin.close()
    out["ok"] = True
    return out


def confluent(a):
    from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicCollection, TopicPartition
    from confluent_kafka.admin import (AdminClient, AclOperation, ConfigResource, NewPartitions,
                                       NewTopic, ResourceType)

    p = a.prefix
    out = {}
    admin = AdminClient({"bootstrap.servers": a.bootstrap})

    def result(futures):
        return {k: f.result(timeout=30) for k, f in futures.items()}

    result(admin.create_topics([NewTopic(f"{p}-t", 2, 1, config={"retention.bytes": "100000"})]))
    try:
        result(admin.create_topics([NewTopic(f"{p}-bad", 1, 1, config={"compression.type": "lz4"})]))
        raise AssertionError("compression.type=lz4 was accepted")
    except KafkaException as e:
        err = e.args[0]
        check(err.code() == KafkaError.INVALID_CONFIG, err)
        out["refused"] = err.str()

    names = lambda ops: {o.name for o in ops or []}
    cl = admin.describe_cluster(include_authorized_operations=True).result(timeout=30)
    check(names(cl.authorized_operations) == CLUSTER_OPS, cl.authorized_operations)
    td = admin.describe_topics(TopicCollection([f"{p}-t"]), include_authorized_operations=True)
    td = {k: f.result(timeout=30) for k, f in td.items()}
    check(names(td[f"{p}-t"].authorized_operations) == TOPIC_OPS, td)

    prod = Producer({"bootstrap.servers": a.bootstrap, "linger.ms": 0})
    for i in range(20):
        prod.produce(f"{p}-t", key=b"k%d" % i, value=b"v%d" % i, partition=0)
    prod.flush(30)

    lw = admin.delete_records([TopicPartition(f"{p}-t", 0, 5)])
    lw = {k: f.result(timeout=30) for k, f in lw.items()}
    out["low_watermark"] = [v.offset if hasattr(v, "offset") else v.low_watermark for v in lw.values()][0]
    check(out["low_watermark"] == 5, lw)

    result(admin.create_partitions([NewPartitions(f"{p}-t", 3)]))
    md = admin.list_topics(f"{p}-t", timeout=30)
    check(len(md.topics[f"{p}-t"].partitions) == 3, md.topics)

    cfg = result(admin.describe_configs([ConfigResource(ResourceType.TOPIC, f"{p}-t")]))
    entries = list(cfg.values())[0]
    check(entries["retention.bytes"].value == "100000", entries["retention.bytes"])
    check(entries["retention.bytes"].source == 1, "DYNAMIC_TOPIC_CONFIG")

    # Static membership: a second consumer with the same group.instance.id fences the first.
    g = f"{p}-static"
    conf = {"bootstrap.servers": a.bootstrap, "group.id": g, "group.instance.id": "inst-1",
            "auto.offset.reset": "earliest", "session.timeout.ms": 60000,
            "heartbeat.interval.ms": 300, "enable.auto.commit": False}
    first = Consumer(conf)
    first.subscribe([f"{p}-t"])
    got = wait_for("the first member's records", lambda: first.poll(0.5))
    check(got.error() is None, got.error())
    second = Consumer(conf)
    second.subscribe([f"{p}-t"])
    fenced = None
    seen = 0
    deadline = time.time() + 60
    while fenced is None and time.time() < deadline:
        m = second.poll(0.1)
        if m is not None and m.error() is None:
            seen += 1
        try:
            m = first.poll(0.2)
        except KafkaException as e:
            m = None
            fenced = e.args[0]
        # librdkafka raises FENCED_INSTANCE_ID as a fatal error (_FATAL) on the next poll.
        if m is not None and m.error() is not None and (
                m.error().fatal() or m.error().code() == KafkaError._FATAL):
            fenced = m.error()
    check(fenced is not None, "the first static member was never fenced")
    out["fenced"] = fenced.str()
    check("Static consumer fenced by other consumer with same group.instance.id" in fenced.str(),
          fenced.str())
    # The second member owns the group now (a Stable group: it takes the first one's
    # assignment without a rebalance): it reads what is left of partition 0 (5..19).
    deadline = time.time() + 60
    while seen < 15 and time.time() < deadline:
        m = second.poll(0.5)
        if m is not None and m.error() is None:
            seen += 1
    check(seen >= 15, f"the new member read {seen} records")
    second.close()
    try:
        first.close()
    except KafkaException:
        pass
    # Static members do not leave on close: the group keeps them until their session (60 s)
    # ends, so Kafka refuses to delete it (NON_EMPTY_GROUP).
    try:
        result(admin.delete_consumer_groups([g]))
        raise AssertionError("a group with a static member was deleted")
    except KafkaException as e:
        check(e.args[0].code() == KafkaError.NON_EMPTY_GROUP, e)

    # A dynamic member leaves on close, and its group can go.
    dyn = Consumer({"bootstrap.servers": a.bootstrap, "group.id": f"{p}-dynamic",
                    "auto.offset.reset": "earliest", "enable.auto.commit": False})
    dyn.subscribe([f"{p}-t"])
    m = wait_for("a record", lambda: dyn.poll(0.5))
    dyn.commit(message=m, asynchronous=False)
    dyn.close()
    result(admin.delete_consumer_groups([f"{p}-dynamic"]))
    groups = admin.list_consumer_groups().result(timeout=30)
    check(all(x.group_id != f"{p}-dynamic" for x in groups.valid), groups.valid)
    result(admin.delete_topics([f"{p}-t"]))
    check(f"{p}-t" not in admin.list_topics(timeout=30).topics, "deleted")
    out["ok"] = True
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("client", choices=["kafka-python", "confluent"])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--prefix", default="gap")
    a = ap.parse_args()
    out = kafka_python(a) if a.client == "kafka-python" else confluent(a)
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
