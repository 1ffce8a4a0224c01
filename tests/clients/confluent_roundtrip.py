#!/usr/bin/env python3
"""Round trip through `kseg mini-broker` with confluent-kafka (librdkafka).

Produces COUNT keyed records with headers (some null values, some binary values) in the given
codec, consumes them back in a consumer group, compares them byte for byte, commits, then
produces MORE records and checks that a new consumer of the same group resumes from the
committed offsets (it sees exactly the new records). Prints one JSON line; exit 1 on mismatch.
"""
import argparse
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer


def record(i):
    key = f"key-{i}".encode()
    value = None if i % 17 == 5 else bytes((i * 7 + j) % 256 for j in range(i % 300))
    headers = [("h-index", str(i).encode()), ("h-bin", bytes([i % 256, 0, 255]))]
    return key, value, headers


def produce(bootstrap, topic, codec, first, count, extra):
    conf = {"bootstrap.servers": bootstrap, "compression.type": codec, "linger.ms": 5}
    conf.update(extra)
    p = Producer(conf)
    errors = []

    def done(err, msg):
        if err is not None:
            errors.append(str(err))

    for i in range(first, first + count):
        k, v, h = record(i)
        p.produce(topic, key=k, value=v, headers=h, on_delivery=done)
        p.poll(0)
    left = p.flush(30)
    if left or errors:
        raise SystemExit(f"produce failed: {left} undelivered, errors {errors[:3]}")


def consume(bootstrap, topic, group, expected, timeout, isolation="read_committed"):
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": isolation,
            "session.timeout.ms": 10000,
        }
    )
    c.subscribe([topic])
    got = {}
    deadline = time.time() + timeout
    while len(got) < expected and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                continue
            raise SystemExit(f"consume error: {m.error()}")
        got[m.key()] = (m.value(), [(k, v) for k, v in (m.headers() or [])])
    # Linger a little: nothing beyond what was expected may arrive.
    end = time.time() + 1.0
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got[m.key()] = (m.value(), [(k, v) for k, v in (m.headers() or [])])
    if got:
        c.commit(asynchronous=False)
    c.close()
    return got


def check(got, first, count):
    want = {}
    for i in range(first, first + count):
        k, v, h = record(i)
        want[k] = (v, h)
    if got != want:
        missing = [k for k in want if k not in got][:5]
        extra = [k for k in got if k not in want][:5]
        wrong = [k for k in want if k in got and got[k] != want[k]][:5]
        raise SystemExit(
            f"mismatch: {len(got)} records, want {len(want)}; missing {missing}, "
            f"unexpected {extra}, different {wrong}"
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--codec", default="none")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--more", type=int, default=50)
    ap.add_argument("--idempotent", action="store_true")
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()
    extra = {"enable.idempotence": True, "acks": "all"} if a.idempotent else {}
    produce(a.bootstrap, a.topic, a.codec, 0, a.count, extra)
    got = consume(a.bootstrap, a.topic, a.group, a.count, a.timeout)
    check(got, 0, a.count)
    produce(a.bootstrap, a.topic, a.codec, a.count, a.more, extra)
    resumed = consume(a.bootstrap, a.topic, a.group, a.more, a.timeout)
    check(resumed, a.count, a.more)
    print(json.dumps({"ok": True, "produced": a.count + a.more, "resumed": len(resumed)}))


if __name__ == "__main__":
    sys.exit(main())
