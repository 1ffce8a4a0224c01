#!/usr/bin/env python3
"""Transactions through `kseg mini-broker` with confluent-kafka (librdkafka).

A transactional producer commits one transaction (which also commits offsets of a consumer
group with send_offsets_to_transaction), aborts a second one and commits a third. A
read_committed consumer must see exactly the committed records, a read_uncommitted one every
record, and the group's committed offsets must be the ones sent in the transaction. Prints one
JSON line; exit 1 on mismatch.
"""
import argparse
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition


def read_all(bootstrap, topic, isolation, expected, timeout):
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{isolation}-{time.time()}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": isolation,
        }
    )
    c.subscribe([topic])
    got = []
    deadline = time.time() + timeout
    while len(got) < expected and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                continue
            raise SystemExit(f"consume error: {m.error()}")
        got.append(m.value())
    end = time.time() + 1.5
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    return sorted(got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--transactional-id", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--codec", default="none")
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()

    p = Producer(
        {
            "bootstrap.servers": a.bootstrap,
            "transactional.id": a.transactional_id,
            "compression.type": a.codec,
            "linger.ms": 5,
        }
    )
    p.init_transactions(a.timeout)
    committed, aborted = [], []

    p.begin_transaction()
    for i in range(40):
        v = f"committed-1-{i}".encode()
        p.produce(a.topic, key=f"k{i}".encode(), value=v)
        committed.append(v)
    group_meta = Consumer({"bootstrap.servers": a.bootstrap, "group.id": a.group}).consumer_group_metadata()
    offsets = [TopicPartition(a.topic, 0, 7)]
    p.send_offsets_to_transaction(offsets, group_meta, a.timeout)
    p.commit_transaction(a.timeout)

    p.begin_transaction()
    for i in range(25):
        v = f"aborted-{i}".encode()
        p.produce(a.topic, key=f"k{i}".encode(), value=v)
        aborted.append(v)
    p.flush(a.timeout)
    p.abort_transaction(a.timeout)

    p.begin_transaction()
    for i in range(15):
        v = f"committed-2-{i}".encode()
        p.produce(a.topic, key=f"k{i}".encode(), value=v)
        committed.append(v)
    p.commit_transaction(a.timeout)

    rc = read_all(a.bootstrap, a.topic, "read_committed", len(committed), a.timeout)
    if rc != sorted(committed):
        leaked = [v for v in rc if v in aborted][:3]
        raise SystemExit(
            f"read_committed saw {len(rc)} records, want {len(committed)}; aborted ones seen: {leaked}"
        )
    ru = read_all(a.bootstrap, a.topic, "read_uncommitted", len(committed) + len(aborted), a.timeout)
    if ru != sorted(committed + aborted):
        raise SystemExit(f"read_uncommitted saw {len(ru)} records, want {len(committed) + len(aborted)}")

    c = Consumer({"bootstrap.servers": a.bootstrap, "group.id": a.group})
    got = c.committed([TopicPartition(a.topic, 0)], timeout=a.timeout)
    c.close()
    if got[0].offset != 7:
        raise SystemExit(f"group {a.group} committed offset {got[0].offset}, want 7")
    print(
        json.dumps(
            {"ok": True, "committed": len(committed), "aborted": len(aborted), "group_offset": 7}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
