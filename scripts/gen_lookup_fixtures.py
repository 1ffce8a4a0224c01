#!/usr/bin/env python3
"""Generate ``testdata/lookup/``: a log dir for ``kseg lookup``, and its record listing.

Batches are encoded by kafka-python's own builders, and this script plays the
broker with the machinery of ``scripts/gen_example_datadir.py`` (imported from
it, not copied): broker-owned fields only (base offset, partition leader epoch,
the LogAppendTime bit and time, control bit; CRCs recomputed), segments with
``.index`` / ``.timeindex`` written by ``LogSegment.append``'s rules
(``index.interval.bytes = 300`` so that small segments get entries), roll and
close entries in the time index, ``leader-epoch-checkpoint``, producer
snapshots, and the log-dir checkpoint files.  Segments roll by size
(``segment.bytes``), like a broker does.

Partitions (all times from T0 = 1720000000000 = 2024-07-03T09:46:40Z):

* ``events-0``: 7 segments; five producers (none, gzip, snappy, lz4, zstd), one
  with a clock 90 s behind (batches older than the segment's max timestamp),
  batches whose records are out of order inside the batch, a committed
  transaction whose COMMIT marker carries the largest timestamp of its
  region, leader epochs 0, 2 and 3; then the topic is switched to
  ``message.timestamp.type=LogAppendTime`` while a producer's clock is an hour
  behind: those batches carry the broker's append time.
* ``events-1``: a producer with a clock 10 hours ahead writes the first
  batches; a DeleteRecords then moves the log start offset past them
  (``log-start-offset-checkpoint``), so the first segment's largest
  timestamp is 10 hours ahead while its records from the log start on are
  not: for targets in between the broker answers "none" although a later
  segment holds later records.
* ``events-2``: batches whose record offsets have gaps (compacted batches keep
  their first and last offset), then a roll that leaves an empty active
  segment.
* ``legacy-0``: a segment of magic-0 messages (no timestamps: the broker uses
  the ``.log`` file's mtime), a segment of magic-1 messages (plain, gzip
  wrappers, and a LogAppendTime wrapper and message), then magic-2 batches
  after the upgrade (leader epoch 4).

``testdata/lookup.expected.json`` lists, per partition, every segment (base
offset, the mtime the broker left, batches with position, offsets, max
timestamp, magic, leader epoch, and every record's offset and timestamp as a
reader reports it), the log start and end offsets and the leader-epoch
checkpoint.  ``tests/cli/lookup.rs`` applies the broker's rules to this listing
(after setting the ``.log`` mtimes, which git does not keep) and compares.

Deterministic.  Usage: python3 scripts/gen_lookup_fixtures.py
"""

import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True     # no scripts/__pycache__ from importing the sibling script

import gen_example_datadir as gx  # noqa: E402  (reproducible gzip, builders, Segment rules)
import kafka  # noqa: E402
from kafka.record.legacy_records import LegacyRecordBatchBuilder  # noqa: E402
from kafka.record.util import calc_crc32, calc_crc32c  # noqa: E402

T0 = 1720000000000
SEC = 1000
MIN = 60 * SEC
HOUR = 60 * MIN
INTERVAL = 300               # index.interval.bytes
SEGMENT_BYTES = 3200         # segment.bytes
SHUTDOWN = T0 + 30 * HOUR

gx.TOPIC_IDS["events"] = gx.kafka_uuid("6a7b8c9d-0e1f-4a2b-8c3d-4e5f60718293")
gx.TOPIC_IDS["legacy"] = gx.kafka_uuid("7b8c9d0e-1f2a-4b3c-9d4e-5f6071829304")


class Part(gx.PartitionLog):
    """A partition rolled by size, with a broker wall clock for append times and mtimes."""

    def __init__(self, topic, partition, segment_bytes=SEGMENT_BYTES):
        super().__init__(topic, partition)
        self.segments = [gx.Segment(0, INTERVAL)]
        self.segment_bytes = segment_bytes
        self.clock = T0
        self._incoming = 0

    def tick(self, ms):
        self.clock += ms

    def _append(self, batches):
        self._incoming = sum(len(b.data) for b in batches)
        super()._append(batches)
        self.segments[-1].mtime = self.clock

    def _maybe_roll(self, max_ts, now):
        seg = self.segments[-1]
        if seg.log and len(seg.log) + self._incoming > self.segment_bytes:
            self.roll()
            return True
        return False

    def roll(self):
        seg = self.segments[-1]
        seg.close()
        if seg.mtime is None:
            seg.mtime = self.clock
        self.segments.append(gx.Segment(self.next_offset, INTERVAL))
        self.segments[-1].mtime = self.clock
        self.take_snapshot(self.next_offset)

    def append_batch(self, batch):
        assert batch.base_offset == self.next_offset
        self._append([batch])
        return batch

    def v2(self, records, **kw):
        return self.append_batch(gx.build_v2(self.next_offset, self.leader_epoch, records, **kw))

    def v2_log_append(self, records, **kw):
        """A batch on a LogAppendTime topic: the broker sets the timestamp-type bit and
        maxTimestamp = its clock (records keep their deltas; readers report the batch time)."""
        b = gx.build_v2(self.next_offset, self.leader_epoch, records, **kw)
        buf = bytearray(b.data)
        (attrs,) = struct.unpack_from(">h", buf, 21)
        struct.pack_into(">h", buf, 21, attrs | 0x08)
        struct.pack_into(">q", buf, 35, self.clock)
        struct.pack_into(">I", buf, 17, calc_crc32c(memoryview(buf)[21:]))
        b.data = bytes(buf)
        b.max_ts = self.clock
        b.records = [(o, self.clock, k, v, h) for (o, _ts, k, v, h) in b.records]
        return self.append_batch(b)

    def v2_compacted(self, records_with_deltas, **kw):
        """A batch as the log cleaner leaves it: first and last offset kept, records between
        removed (record offset deltas with gaps)."""
        from kafka.record.default_records import DefaultRecordBatchBuilder
        b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False,
                                      producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                      batch_size=gx.BATCH_SIZE)
        for delta, ts, key, value in records_with_deltas:
            assert b.append(delta, timestamp=ts, key=key, value=value, headers=[]) is not None
        buf = bytearray(b.build())
        base = self.next_offset
        struct.pack_into(">q", buf, 0, base)
        struct.pack_into(">i", buf, 12, self.leader_epoch)
        recs = [(base + d, ts, k, v, []) for d, ts, k, v in records_with_deltas]
        batch = gx.Batch(buf, base, base + records_with_deltas[-1][0],
                         max(r[1] for r in records_with_deltas), 2, count=len(recs),
                         records=recs)
        return self.append_batch(batch)

    def marker(self, pid, epoch, commit, coordinator_epoch, ts):
        return self.append_batch(gx.build_marker(self.next_offset, self.leader_epoch, pid, epoch,
                                                 commit, coordinator_epoch, ts))

    def legacy(self, batches):
        self.append_legacy(batches)

    def finish(self):
        """Clean shutdown: final time-index entry and snapshot, active segment's mtime."""
        self.close()
        if self.segments[-1].mtime is None or not self.segments[-1].log:
            self.segments[-1].mtime = self.clock


# ------------------------------------------------------------------ content
Rng = gx.Rng


def value(rng, n):
    return (b'{"event":%d,"kind":"%s","payload":"%s"}'
            % (n, [b"click", b"view", b"order", b"refund"][rng.below(4)],
               b"x" * (20 + rng.below(40))))


def build_events_0():
    p = Part("events", 0)
    rng = Rng(5)
    p.become_leader(0)
    codecs = ["none", "gzip", "snappy", "lz4", "zstd"]
    n = 0
    for i in range(60):
        if i == 22:
            p.become_leader(2)
        if i == 41:
            p.become_leader(3)
        p.tick(700 + rng.below(900))
        count = 1 + rng.below(4)
        base_ts = p.clock - rng.below(50)
        if i % 7 == 3:
            base_ts -= 90 * SEC                      # a producer with a skewed clock
        ts = [base_ts + 150 * k + rng.below(100) for k in range(count)]
        if i % 9 == 5 and count >= 3:
            ts[0], ts[-1] = ts[-1], ts[0]            # out of order inside one batch
        recs = []
        for t in ts:
            n += 1
            recs.append((t, b"user-%d" % rng.below(30), value(rng, n),
                         [("trace", b"%08x" % rng.next())]))
        codec = codecs[i % 5]
        if codec != "none":
            # compressible enough that kafka-python keeps the codec
            recs = [(t, k, v * 6, h) for t, k, v, h in recs]
        if i == 30:
            # a transaction (transactional producer 7000), then its COMMIT marker: the
            # coordinator's clock is 5 s ahead, so the marker has the region's max timestamp
            p.v2(recs, pid=7000, epoch=0, seq=0, txn=True)
            p.tick(200)
            recs2 = [(p.clock - 20, b"user-tx", value(rng, n + 1), [])]
            n += 1
            p.v2(recs2, pid=7000, epoch=0, seq=len(recs), txn=True)
            p.tick(300)
            p.marker(7000, 0, True, 3, p.clock + 5 * SEC)
            continue
        p.v2(recs, codec=codec)
    # message.timestamp.type=LogAppendTime from now on; this producer's clock is 1 h behind
    for i in range(14):
        p.tick(1100 + rng.below(700))
        count = 1 + rng.below(3)
        recs = []
        for k in range(count):
            n += 1
            recs.append((p.clock - HOUR + 100 * k, b"user-%d" % rng.below(30), value(rng, n), []))
        if i % 3 == 1:
            recs = [(t, k, v * 6, h) for t, k, v, h in recs]
            p.v2_log_append(recs, codec="lz4")
        else:
            p.v2_log_append(recs)
    p.tick(5 * SEC)
    p.finish()
    return p


def build_events_1():
    p = Part("events", 1)
    rng = Rng(11)
    p.become_leader(0)
    n = 0
    # A producer whose clock is 10 hours ahead writes first.
    for i in range(6):
        p.tick(500)
        n += 1
        p.v2([(p.clock + 10 * HOUR + 10 * i, b"ahead-%d" % i, value(rng, n), [])])
    # Then normal producers; time passes quickly (two minutes per batch).
    for i in range(70):
        p.tick(2 * MIN + rng.below(1000))
        count = 1 + rng.below(3)
        recs = []
        for k in range(count):
            n += 1
            recs.append((p.clock + 40 * k - rng.below(30), b"user-%d" % rng.below(9),
                         value(rng, n), []))
        p.v2(recs, codec=["none", "zstd"][i % 2])
    p.tick(SEC)
    p.finish()
    # DeleteRecords past the skewed batches (and a few more): the log start offset moves
    # into the first segment.
    p.delete_records(9)
    return p


def build_events_2():
    p = Part("events", 2)
    rng = Rng(23)
    p.become_leader(1)
    n = 0
    for i in range(24):
        p.tick(1500 + rng.below(500))
        if i % 4 == 2:
            # a compacted batch: offsets 0, 2, 5 of 6 kept
            recs = []
            for d in (0, 2, 5):
                n += 1
                recs.append((d, p.clock + 30 * d, b"key-%d" % rng.below(5), value(rng, n)))
            p.v2_compacted(recs)
            continue
        count = 1 + rng.below(4)
        recs = []
        for k in range(count):
            n += 1
            recs.append((p.clock + 20 * k, b"key-%d" % rng.below(5), value(rng, n), []))
        p.v2(recs, codec=["none", "gzip"][i % 2])
    p.tick(10 * SEC)
    p.roll()                           # an empty active segment
    p.tick(2 * MIN)
    p.finish()
    return p


def build_v0_plain(first_offset, messages):
    b = LegacyRecordBatchBuilder(magic=0, compression_type=0, batch_size=gx.BATCH_SIZE)
    for i, (key, val) in enumerate(messages):
        assert b.append(first_offset + i, timestamp=None, key=key, value=val) is not None
    buf = bytes(b.build())
    out, pos = [], 0
    for i, (key, val) in enumerate(messages):
        (size,) = struct.unpack_from(">i", buf, pos + 8)
        off = first_offset + i
        out.append(gx.Batch(buf[pos:pos + 12 + size], off, off, -1, 0,
                            records=[(off, None, key, val, [])]))
        pos += 12 + size
    return out


def log_append_v1(batch, append_time):
    """The broker of a LogAppendTime topic on message format v1: attribute bit 3 and the
    wrapper (or message) timestamp set, CRC-32 recomputed; inner messages untouched."""
    buf = bytearray(batch.data)
    buf[17] |= 0x08
    struct.pack_into(">q", buf, 18, append_time)
    struct.pack_into(">I", buf, 12, calc_crc32(memoryview(buf)[16:]))
    batch.data = bytes(buf)
    batch.max_ts = append_time
    batch.records = [(o, append_time, k, v, h) for (o, _t, k, v, h) in batch.records]
    return batch


def build_legacy():
    p = Part("legacy", 0, segment_bytes=1400)
    rng = Rng(3)
    n = 0

    def kv():
        nonlocal n
        n += 1
        return (b"sensor-%d" % rng.below(6), b"reading=%d;seq=%d;site=north" % (rng.below(999), n))

    # Message format 0: no timestamps at all.
    for _ in range(12):
        p.tick(3 * SEC)
        p.legacy(build_v0_plain(p.next_offset, [kv()]))
    p.tick(20 * SEC)
    p.roll()                           # segment.ms: the v0 segment stays as it is
    # Message format 1 (CreateTime), then the topic switched to LogAppendTime.
    for i in range(14):
        p.tick(4 * SEC)
        if i % 3 == 1:
            msgs = [(p.clock - 300 + 40 * k,) + kv() for k in range(3)]
            wrapper = gx.build_v1_wrapper(p.next_offset, msgs)
            if i >= 10:
                log_append_v1(wrapper, p.clock)
            p.legacy([wrapper])
        else:
            msgs = [(p.clock - rng.below(200),) + kv()]
            plain = gx.build_v1_plain(p.next_offset, msgs)
            if i >= 10:
                plain = [log_append_v1(plain[0], p.clock)]
            p.legacy(plain)
    # Upgrade: clean restart on a Kafka 4.x broker, leader epoch 4, message format v2.
    p.restart(new_epoch=4)
    for i in range(10):
        p.tick(5 * SEC)
        recs = [(p.clock + 10 * k,) + kv() + ([],) for k in range(1 + rng.below(3))]
        if i % 2:
            recs = [(t, k, v * 4, h) for t, k, v, h in recs]
        p.v2(recs, codec=["none", "snappy"][i % 2])
    p.tick(SEC)
    p.finish()
    return p


# ------------------------------------------------------------------ listing
def walk(seg):
    """(position, size) of every top-level entry of a segment's bytes."""
    pos, out = 0, []
    while pos < len(seg.log):
        (size,) = struct.unpack_from(">i", seg.log, pos + 8)
        out.append((pos, 12 + size))
        pos += 12 + size
    return out


def listing(p):
    segments = []
    batches = iter(p.batches)
    for s in p.segments:
        entries = []
        for pos, size in walk(s):
            b = next(batches)
            assert bytes(s.log[pos:pos + size]) == b.data
            entries.append({
                "position": pos,
                "size": size,
                "baseOffset": b.base_offset,
                "lastOffset": b.last_offset,
                "maxTimestamp": b.max_ts,
                "magic": b.magic,
                "leaderEpoch": struct.unpack_from(">i", b.data, 12)[0] if b.magic >= 2 else -1,
                "control": b.control is not None,
                "timestampType": timestamp_type(b),
                "records": [[o, -1 if t is None else t] for (o, t, _k, _v, _h) in b.records],
            })
        segments.append({"baseOffset": s.base, "mtime": s.mtime, "batches": entries,
                         "indexEntries": len(s.index), "timeIndexEntries": len(s.tindex)})
    return {
        "logStartOffset": p.log_start,
        "logEndOffset": p.next_offset,
        "leaderEpochs": [list(e) for e in p.epochs],
        "segments": segments,
    }


def timestamp_type(b):
    if b.magic == 0:
        return "NoTimestampType"
    attrs = struct.unpack_from(">h", b.data, 21)[0] if b.magic >= 2 else b.data[17]
    return "LogAppendTime" if attrs & 0x08 else "CreateTime"


def main():
    out = os.path.normpath(os.path.join(HERE, "..", "testdata", "lookup"))
    expected = os.path.normpath(os.path.join(HERE, "..", "testdata", "lookup.expected.json"))
    readme = os.path.normpath(os.path.join(HERE, "..", "testdata", "README.md"))
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        if not getattr(kafka.codec, "has_" + codec)():
            sys.exit(f"kafka-python has no {codec} codec; "
                     "pip install -r scripts/requirements-fixtures.txt")
    parts = [build_events_0(), build_events_1(), build_events_2(), build_legacy()]
    for pl in parts:
        pl.self_check()
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for pl in parts:
        pl.write(out)
        # write() stamps files without an mtime with the example data dir's shutdown time
        for s in pl.segments:
            path = os.path.join(out, pl.name, gx.seg_name(s.base) + ".log")
            os.utime(path, (s.mtime / 1000.0, s.mtime / 1000.0))
    ends = [f"{pl.topic} {pl.partition} {pl.next_offset}" for pl in parts]
    gx.write_file(os.path.join(out, "meta.properties"), (
        "#\n#%s\ncluster.id=%s\ndirectory.id=%s\nnode.id=%d\nversion=1\n" % (
            gx.java_date(T0), gx.CLUSTER_ID, gx.DIRECTORY_ID, gx.NODE_ID)).encode(), T0)
    gx.write_file(os.path.join(out, ".kafka_cleanshutdown"),
                  json.dumps({"version": 0, "brokerEpoch": 7},
                             separators=(",", ":")).encode(), SHUTDOWN)
    gx.write_file(os.path.join(out, "recovery-point-offset-checkpoint"), gx.checkpoint(ends),
                  SHUTDOWN)
    gx.write_file(os.path.join(out, "replication-offset-checkpoint"), gx.checkpoint(ends),
                  SHUTDOWN)
    gx.write_file(os.path.join(out, "log-start-offset-checkpoint"), gx.checkpoint(
        [f"{pl.topic} {pl.partition} {pl.log_start}" for pl in parts
         if pl.log_start > pl.segments[0].base]), SHUTDOWN)
    gx.write_file(os.path.join(out, "cleaner-offset-checkpoint"), gx.checkpoint([]), SHUTDOWN)

    doc = {"generator": "scripts/gen_lookup_fixtures.py",
           "partitions": {pl.name: listing(pl) for pl in parts}}
    with open(expected, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    for pl in parts:
        print(f"{pl.name}: offsets {pl.log_start}..{pl.next_offset - 1}, {len(pl.batches)} "
              f"batches, {len(pl.segments)} segments ("
              + ", ".join(f"{len(s.log)} B/{len(s.index)}/{len(s.tindex)}" for s in pl.segments)
              + ")")
    update_readme(readme, "/".join(str(len(pl.segments)) for pl in parts[:3]))


def update_readme(path, segment_counts):
    from importlib import metadata
    versions = []
    for dist in ("python-snappy", "cramjam", "lz4", "zstandard"):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    line = ("- `lookup/` and `lookup.expected.json`: `python3 scripts/gen_lookup_fixtures.py` "
            f"(kafka-python {kafka.__version__}; {', '.join(versions)}; reuses the broker "
            "rules of `gen_example_datadir.py`). A log dir for `kseg lookup`: `events-0..2` "
            f"({segment_counts} segments rolled by size, all codecs, out-of-order and skewed "
            "CreateTime, a "
            "COMMIT marker, LogAppendTime batches, leader epochs, a log start offset moved past "
            "a future-clocked region, compacted offset gaps, an empty active segment) and "
            "`legacy-0` (magic 0, 1 with LogAppendTime, then 2); indexes written with "
            f"`index.interval.bytes={INTERVAL}`. The JSON lists every batch and record and the "
            "segment mtimes (git does not keep them; `tests/cli/lookup.rs` sets them). "
            "Deterministic.\n")
    text = open(path).read()
    lines = [l for l in text.splitlines(keepends=True) if not l.startswith("- `lookup/`")]
    text = "".join(lines)
    if not text.endswith("\n"):
        text += "\n"
    with open(path, "w") as f:
        f.write(text + line)


if __name__ == "__main__":
    main()
