#!/usr/bin/env python3
"""A KIP-848 consumer group (group.protocol=consumer) through `kseg mini-broker` with
confluent-kafka (librdkafka).

Creates TOPIC (4 partitions), produces 120 records; consumer `a` joins and takes all four
partitions, consumer `b` joins and the assignment splits 2/2 (no overlap), both read and commit
after every message; `b` closes (leaves the group) and `a` takes all four again, 80 more records
are produced and `a` reads them. Every record must be read exactly once across the members; any
error the client reports (an endless retry included) fails. Prints one JSON line; exit 1 on a
mismatch.
"""
import argparse
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

errors = []


def on_error(err):
    errors.append(str(err))


def produce(bootstrap, topic, first, count):
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(first, first + count):
        p.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % 4)
    if p.flush(30):
        raise SystemExit("produce failed")


def consumer(bootstrap, group, name, seen):
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "group.protocol": "consumer",
            "client.id": name,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "error_cb": on_error,
        }
    )
    c.subscribe([args.topic])
    return c


def poll_until(consumers, seen, cond, what, timeout=90):
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise SystemExit(f"not reached in {timeout} s: {what}; errors {errors[:3]}")
        if errors:
            raise SystemExit(f"client error while waiting for {what}: {errors[:3]}")
        for c in consumers:
            m = c.poll(0.1)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise SystemExit(f"consumer error: {m.error()}")
            seen[m.value().decode()] = seen.get(m.value().decode(), 0) + 1
            c.commit(message=m, asynchronous=False)


def parts(c):
    return sorted(tp.partition for tp in c.assignment())


ap = argparse.ArgumentParser()
ap.add_argument("--bootstrap", required=True)
ap.add_argument("--topic", required=True)
ap.add_argument("--group", required=True)
args = ap.parse_args()

admin = AdminClient({"bootstrap.servers": args.bootstrap})
admin.create_topics([NewTopic(args.topic, 4, 1)])[args.topic].result(30)
produce(args.bootstrap, args.topic, 0, 120)
seen = {}
a = consumer(args.bootstrap, args.group, "kip848-a", seen)
poll_until([a], seen, lambda: len(parts(a)) == 4, "a takes all 4 partitions")
b = consumer(args.bootstrap, args.group, "kip848-b", seen)
poll_until([a, b], seen, lambda: len(parts(a)) == 2 and len(parts(b)) == 2, "the split 2/2")
split = {"a": parts(a), "b": parts(b)}
if set(split["a"]) & set(split["b"]):
    raise SystemExit(f"overlapping assignment {split}")
poll_until([a, b], seen, lambda: len(seen) >= 120, "the first 120 records")
b.close()
poll_until([a], seen, lambda: len(parts(a)) == 4, "a takes all 4 again")
produce(args.bootstrap, args.topic, 120, 80)
poll_until([a], seen, lambda: len(seen) >= 200, "all 200 records")
committed = sorted(
    (tp.partition, tp.offset) for tp in a.committed(a.assignment(), timeout=30)
)
a.close()
dupes = sum(1 for n in seen.values() if n > 1)
ok = len(seen) == 200 and dupes == 0 and not errors
print(json.dumps({"ok": ok, "consumed": len(seen), "duplicates": dupes, "split": split,
                  "committed": committed, "errors": errors[:3]}))
sys.exit(0 if ok else 1)
