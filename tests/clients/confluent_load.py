#!/usr/bin/env python3
"""Load and read-back for the kill -9 test, with confluent-kafka.

produce: sends records `v<N>` (acks=all, idempotent) as fast as it can and prints the value of
         every record whose delivery was acknowledged, one per line, flushed, until it is
         killed or the broker goes away (then it exits after message.timeout.ms).
read:    prints every value of every partition of the topic, from the beginning.
"""
import argparse
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition


def produce(a):
    p = Producer(
        {
            "bootstrap.servers": a.bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 2,
            "message.timeout.ms": 5000,
            "reconnect.backoff.max.ms": 500,
        }
    )
    out = sys.stdout
    failed = []

    def done(err, msg):
        if err is None:
            out.write(msg.value().decode() + "\n")
        else:
            failed.append(err)

    i = 0
    deadline = time.time() + a.seconds
    while time.time() < deadline and not failed:
        try:
            p.produce(a.topic, key=str(i % 97).encode(), value=f"v{i}".encode(), on_delivery=done)
            i += 1
        except BufferError:
            p.poll(0.05)
            continue
        if i % 200 == 0:
            p.poll(0)
            out.flush()
    p.flush(6)
    out.flush()


def read(a):
    c = Consumer(
        {
            "bootstrap.servers": a.bootstrap,
            "group.id": "kill9-reader",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    md = c.list_topics(a.topic, timeout=10)
    parts = sorted(md.topics[a.topic].partitions)
    c.assign([TopicPartition(a.topic, p, 0) for p in parts])
    at_end = set()
    deadline = time.time() + a.seconds
    while len(at_end) < len(parts) and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(m.partition())
                continue
            raise SystemExit(f"consume error: {m.error()}")
        sys.stdout.write(m.value().decode() + "\n")
    c.close()
    if len(at_end) < len(parts):
        raise SystemExit("did not reach the end of every partition")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["produce", "read"])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    produce(a) if a.mode == "produce" else read(a)


if __name__ == "__main__":
    main()
