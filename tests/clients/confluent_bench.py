#!/usr/bin/env python3
"""Produce throughput against `kseg mini-broker` with confluent-kafka (librdkafka).

Sends COUNT records of SIZE bytes (no key) to one topic with acks=1 and waits until every
delivery is acknowledged. Prints one JSON line with messages/s and MB/s (1 MB = 10^6 bytes),
measured from the first produce() to the end of flush().
"""
import argparse
import json
import time

from confluent_kafka import Producer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", default="bench")
    ap.add_argument("--count", type=int, default=2_000_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--acks", default="1")
    ap.add_argument("--compression", default="none")
    ap.add_argument("--linger-ms", default="5")
    a = ap.parse_args()
    p = Producer(
        {
            "bootstrap.servers": a.bootstrap,
            "acks": a.acks,
            "compression.type": a.compression,
            "linger.ms": a.linger_ms,
            "queue.buffering.max.messages": 1_000_000,
            "queue.buffering.max.kbytes": 1_048_576,
        }
    )
    # Warm up: topic creation and metadata.
    p.produce(a.topic, b"x" * a.size)
    p.flush(30)
    payload = b"x" * a.size
    errors = 0

    def done(err, _msg):
        nonlocal errors
        if err is not None:
            errors += 1

    produce = p.produce
    start = time.perf_counter()
    for _ in range(a.count):
        try:
            produce(a.topic, payload, on_delivery=done)
        except BufferError:
            p.poll(0.001)
            produce(a.topic, payload, on_delivery=done)
    p.flush(120)
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "messages": a.count,
                "size": a.size,
                "acks": a.acks,
                "seconds": round(elapsed, 3),
                "messages_per_s": round(a.count / elapsed),
                "mb_per_s": round(a.count * a.size / elapsed / 1e6, 1),
                "errors": errors,
            }
        )
    )


if __name__ == "__main__":
    main()
