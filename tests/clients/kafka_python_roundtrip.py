#!/usr/bin/env python3
"""Round trip through `kseg mini-broker` with kafka-python.

Same scenario as confluent_roundtrip.py: COUNT keyed records with headers in a codec, consumed
back in a group and compared byte for byte, committed, then MORE records that a new consumer of
the same group must see alone (it resumes from the committed offsets). Prints one JSON line;
exit 1 on mismatch, exit 3 when this kafka-python cannot use the codec.
"""
import argparse
import json
import sys
import time

import kafka.codec
from kafka import KafkaConsumer, KafkaProducer

AVAILABLE = {
    "none": lambda: True,
    "gzip": kafka.codec.has_gzip,
    "snappy": kafka.codec.has_snappy,
    "lz4": kafka.codec.has_lz4,
    "zstd": kafka.codec.has_zstd,
}


def record(i):
    key = f"key-{i}".encode()
    value = None if i % 13 == 3 else bytes((i * 11 + j) % 256 for j in range(i % 200))
    headers = [("h-index", str(i).encode()), ("h-bin", bytes([i % 256, 0, 255]))]
    return key, value, headers


def produce(bootstrap, topic, codec, first, count):
    p = KafkaProducer(
        bootstrap_servers=bootstrap,
        compression_type=None if codec == "none" else codec,
        acks=1,
        linger_ms=5,
    )
    futures = []
    for i in range(first, first + count):
        k, v, h = record(i)
        futures.append(p.send(topic, key=k, value=v, headers=h))
    p.flush(30)
    for f in futures:
        f.get(timeout=30)
    p.close(10)


def consume(bootstrap, topic, group, expected, timeout):
    c = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        session_timeout_ms=10000,
        heartbeat_interval_ms=1000,
    )
    got = {}
    deadline = time.time() + timeout
    while len(got) < expected and time.time() < deadline:
        for records in c.poll(timeout_ms=500).values():
            for m in records:
                got[m.key] = (m.value, list(m.headers))
    for records in c.poll(timeout_ms=1000).values():
        for m in records:
            got[m.key] = (m.value, list(m.headers))
    if got:
        c.commit()
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
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()
    if not AVAILABLE[a.codec]():
        print(json.dumps({"ok": False, "skipped": f"kafka-python has no {a.codec} library"}))
        return 3
    produce(a.bootstrap, a.topic, a.codec, 0, a.count)
    got = consume(a.bootstrap, a.topic, a.group, a.count, a.timeout)
    check(got, 0, a.count)
    produce(a.bootstrap, a.topic, a.codec, a.count, a.more)
    resumed = consume(a.bootstrap, a.topic, a.group, a.more, a.timeout)
    check(resumed, a.count, a.more)
    print(json.dumps({"ok": True, "produced": a.count + a.more, "resumed": len(resumed)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
