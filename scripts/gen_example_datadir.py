#!/usr/bin/env python3
"""Generate ``testdata/example-datadir/``: a small, realistic Kafka 4.x log dir.

The directory is what one broker (node.id 1, KRaft) leaves behind after a clean
shutdown.  Record batches are encoded by kafka-python's own builders
(``DefaultRecordBatchBuilder`` for magic 2, ``LegacyRecordBatchBuilder`` for
magic 1); this script then plays the broker:

* it fills in only the fields a broker owns (v2: ``baseOffset``,
  ``partitionLeaderEpoch``; control batches: the control attribute bit, CRC-32C
  recomputed; v1 gzip wrappers: wrapper offset and wrapper timestamp, CRC-32
  recomputed), exactly as ``scripts/gen_kafka_python_fixtures.py`` does;
* it appends the batches to segments and writes ``.index`` / ``.timeindex``
  with the rules of ``LogSegment.append`` (see /work/shared/kafka-format.md
  sections 3 and 4), using ``index.interval.bytes = 512`` (the default 4096
  would leave these small segments without a single index entry);
* it keeps producer state like ``ProducerStateManager`` and writes
  ``<offset>.snapshot`` files at segment roll and at shutdown, ``.txnindex``
  entries for aborted transactions, ``leader-epoch-checkpoint``,
  ``partition.metadata`` and the log-dir checkpoint files.

Contents (all timestamps from 1717000000000 = 2024-05-29T16:26:40Z):

* ``orders-0..2``: keyed JSON orders (keys ``customer-N``, partition chosen by
  murmur2 like the Java default partitioner), headers, batches from five
  producers: two idempotent (lz4, zstd), three plain (gzip, snappy, none).
  Topic config ``segment.ms=3600000``: ``orders-0`` starts earlier than the
  other partitions, so it alone rolls (time-based) and has two segments, with a
  producer snapshot at the roll offset.  One plain producer has a skewed clock
  (a batch older than the segment's max timestamp).  A DeleteRecords moved the
  log start offset of ``orders-2`` to 5 (``log-start-offset-checkpoint``; its
  leader-epoch entry is moved to 5 like ``LeaderEpochFileCache.truncateFromStart``).
* ``payments-0``: a transactional producer (transaction version 2, as on a new
  4.x cluster: every EndTxn bumps the producer epoch, so the COMMIT/ABORT
  markers carry epoch+1) with one committed and one aborted transaction, then an
  idempotent producer; ``.txnindex`` holds the aborted transaction.
* ``legacy-0``: a topic from before the upgrade: magic-1 messages (plain and in
  gzip wrappers with relative inner offsets) written by the old broker, whose
  index entries follow the pre-KAFKA-806 per-append rule, then (after the
  upgrade restart, leader epoch 7) magic-2 batches in the same segment.  The
  leader-epoch cache did not exist while the topic was on message format v1,
  so its only entry starts at the first v2 offset.
* ``__consumer_offsets-12`` (partition of group ``my-group``): OffsetCommit
  records (key type 1, value v3) written as plain v2 batches.

Output is deterministic (fixed ids and times, gzip mtime 0, fixed file mtimes).

Usage: python3 scripts/gen_example_datadir.py [--out testdata/example-datadir]
"""

import argparse
import base64
import datetime
import functools
import gzip
import json
import os
import shutil
import struct
import sys
import uuid

import kafka
import kafka.codec
from kafka.partitioner.default import murmur2
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords
from kafka.record.util import calc_crc32, calc_crc32c


# --- reproducible gzip (kafka.codec.gzip_encode uses gzip.GzipFile without mtime)
class _DeterministicGzipModule:
    GzipFile = functools.partial(gzip.GzipFile, mtime=0)


kafka.codec.gzip = _DeterministicGzipModule

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
T0 = 1717000000000
MIN = 60 * 1000
INDEX_INTERVAL_BYTES = 512           # topic config index.interval.bytes (default 4096)
ORDERS_SEGMENT_MS = 3600000          # topic config segment.ms of `orders`
DEFAULT_SEGMENT_MS = 7 * 24 * 3600000
SHUTDOWN_TS = T0 + 120 * MIN         # clean shutdown
NODE_ID = 1
BROKER_EPOCH = 42
BATCH_SIZE = 1 << 20


def kafka_uuid(hex32):
    """Kafka's Uuid string: URL-safe Base64 of the 16 bytes, no padding."""
    s = base64.urlsafe_b64encode(uuid.UUID(hex32).bytes).decode().rstrip("=")
    assert len(s) == 22 and not s.startswith("-")
    return s


CLUSTER_ID = kafka_uuid("5c3f8a1e-7d2b-4e69-9a10-3b7c2d4e5f60")
DIRECTORY_ID = kafka_uuid("9e1d2c3b-4a59-4687-b7a6-c5d4e3f2a1b0")
TOPIC_IDS = {
    "orders": kafka_uuid("1f0e2d3c-4b5a-4697-8877-66554433a2b1"),
    "payments": kafka_uuid("2a3b4c5d-6e7f-4081-92a3-b4c5d6e7f809"),
    "legacy": kafka_uuid("3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b"),
    "__consumer_offsets": kafka_uuid("4d5e6f70-8192-43a4-b5c6-d7e8f90a1b2c"),
}


class Rng:
    """Tiny deterministic PRNG (64-bit LCG), independent of Python's `random`."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return self.s >> 33

    def below(self, n):
        return self.next() % n


def java_string_hash(s):
    h = 0
    for cu in struct.unpack(">%dH" % (len(s.encode("utf-16-be")) // 2), s.encode("utf-16-be")):
        h = (31 * h + cu) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def java_abs(n):
    return 0 if n == -(1 << 31) else abs(n)


def java_hashmap_order(keys):
    """Iteration order of a java.util.HashMap<Long, ...> (capacity 16, < 13 entries)."""
    assert len(keys) <= 12

    def bucket(k):
        h = (k ^ (k >> 32)) & 0xFFFFFFFF          # Long.hashCode
        h ^= h >> 16                              # HashMap.hash spread
        return h & 15
    return sorted(keys, key=lambda k: (bucket(k), keys.index(k)))


def seg_name(offset):
    return "%020d" % offset


# ------------------------------------------------------------------ batches
class Batch:
    def __init__(self, data, base_offset, last_offset, max_ts, magic, pid=-1, epoch=-1,
                 base_seq=-1, count=0, txn=False, control=None, records=None):
        self.data = bytes(data)
        self.base_offset = base_offset
        self.last_offset = last_offset
        self.max_ts = max_ts
        self.magic = magic
        self.pid = pid
        self.epoch = epoch
        self.base_seq = base_seq
        self.count = count
        self.txn = txn
        self.control = control          # None, "COMMIT" or "ABORT"
        self.records = records or []    # (offset, ts, key, value, headers) for the self-check


def build_v2(base_offset, leader_epoch, records, codec="none", pid=-1, epoch=-1, seq=-1,
             txn=False):
    """records: list of (timestamp, key, value, headers)."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=CODECS[codec], is_transactional=txn,
                                  producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                                  batch_size=BATCH_SIZE)
    for delta, (ts, key, value, headers) in enumerate(records):
        assert b.append(delta, timestamp=ts, key=key, value=value, headers=headers) is not None
    buf = bytearray(b.build())
    struct.pack_into(">q", buf, 0, base_offset)     # broker-assigned, outside the CRC
    struct.pack_into(">i", buf, 12, leader_epoch)   # broker-assigned, outside the CRC
    (attrs,) = struct.unpack_from(">h", buf, 21)
    if attrs & 0x07 != CODECS[codec]:
        sys.exit(f"kafka-python fell back from {codec} to codec {attrs & 7} "
                 f"(batch at offset {base_offset}); make the records more compressible")
    max_ts = max(r[0] for r in records)
    assert struct.unpack_from(">q", buf, 35)[0] == max_ts
    recs = [(base_offset + i, r[0], r[1], r[2], list(r[3])) for i, r in enumerate(records)]
    return Batch(buf, base_offset, base_offset + len(records) - 1, max_ts, 2, pid, epoch, seq,
                 len(records), txn, None, recs)


def build_marker(offset, leader_epoch, pid, epoch, commit, coordinator_epoch, ts):
    """COMMIT/ABORT control batch, as the broker writes it on WriteTxnMarkers.

    The record is written by kafka-python's builder (key = int16 version 0 +
    int16 type, value = int16 version 0 + int32 coordinatorEpoch); the broker-only
    control bit (0x20) is set afterwards and the CRC-32C recomputed.
    """
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=True,
                                  producer_id=pid, producer_epoch=epoch, base_sequence=-1,
                                  batch_size=BATCH_SIZE)
    assert b.append(0, timestamp=ts, key=key, value=value, headers=[]) is not None
    buf = bytearray(b.build())
    struct.pack_into(">q", buf, 0, offset)
    struct.pack_into(">i", buf, 12, leader_epoch)
    (attrs,) = struct.unpack_from(">h", buf, 21)
    attrs |= 0x20
    assert attrs == 0x30
    struct.pack_into(">h", buf, 21, attrs)
    struct.pack_into(">I", buf, 17, calc_crc32c(memoryview(buf)[21:]))
    return Batch(buf, offset, offset, ts, 2, pid, epoch, -1, 1, True,
                 "COMMIT" if commit else "ABORT", [(offset, ts, key, value, [])])


def build_v1_plain(first_offset, messages):
    """Uncompressed magic-1 messages: each one is its own top-level log entry."""
    b = LegacyRecordBatchBuilder(magic=1, compression_type=0, batch_size=BATCH_SIZE)
    for i, (ts, key, value) in enumerate(messages):
        assert b.append(first_offset + i, timestamp=ts, key=key, value=value) is not None
    buf = bytes(b.build())
    out = []
    pos = 0
    for i, (ts, key, value) in enumerate(messages):
        (size,) = struct.unpack_from(">i", buf, pos + 8)
        off = first_offset + i
        out.append(Batch(buf[pos:pos + 12 + size], off, off, ts, 1,
                         records=[(off, ts, key, value, [])]))
        pos += 12 + size
    assert pos == len(buf)
    return out


def build_v1_wrapper(first_offset, messages, codec="gzip"):
    """A compressed magic-1 wrapper: inner offsets relative (0..n-1), as written by a
    broker on message format 0.10.x; wrapper offset = absolute offset of the last
    inner message, wrapper timestamp = max inner timestamp (CreateTime)."""
    b = LegacyRecordBatchBuilder(magic=1, compression_type=CODECS[codec], batch_size=BATCH_SIZE)
    for rel, (ts, key, value) in enumerate(messages):
        assert b.append(rel, timestamp=ts, key=key, value=value) is not None
    buf = bytearray(b.build())
    last = first_offset + len(messages) - 1
    max_ts = max(m[0] for m in messages)
    struct.pack_into(">q", buf, 0, last)                # outside the CRC
    struct.pack_into(">q", buf, 18, max_ts)             # wrapper timestamp
    struct.pack_into(">I", buf, 12, calc_crc32(memoryview(buf)[16:]))
    assert buf[17] & 0x07 == CODECS[codec]
    recs = [(first_offset + i, m[0], m[1], m[2], []) for i, m in enumerate(messages)]
    return Batch(buf, first_offset, last, max_ts, 1, records=recs)


# ------------------------------------------------------------------ segments
class Segment:
    """One segment and its indexes, maintained like LogSegment does."""

    def __init__(self, base, interval):
        self.base = base
        self.interval = interval
        self.log = bytearray()
        self.index = []                 # (relativeOffset, position)
        self.tindex = []                # (timestamp, relativeOffset)
        self.txn = []                   # 34-byte aborted-transaction entries
        self.bytes_since = 0            # bytesSinceLastIndexEntry (in memory only)
        self.max_ts, self.max_ts_offset = -1, -1    # TimestampOffset.UNKNOWN
        self.rolling_ts = None
        self.mtime = None

    def _time_maybe_append(self, ts, offset):
        if self.tindex:
            last_ts, last_off = self.tindex[-1][0], self.base + self.tindex[-1][1]
        else:
            last_ts, last_off = -1, self.base
        if self.tindex:
            assert offset >= last_off and ts >= last_ts
        if ts > last_ts:
            self.tindex.append((ts, offset - self.base))

    def append(self, batches):
        """One LogSegment.append call.  Kafka >= 3.9.1/4.0.1 calls it once per batch;
        older brokers once per append (all batches of one produce request)."""
        pos = len(self.log)
        largest_ts, shallow = -1, -1
        for b in batches:
            if b.max_ts > largest_ts:
                largest_ts, shallow = b.max_ts, b.last_offset
        if pos == 0:
            self.rolling_ts = largest_ts
        if largest_ts > self.max_ts:
            self.max_ts, self.max_ts_offset = largest_ts, shallow
        if self.bytes_since > self.interval:
            last = batches[-1].last_offset
            assert not self.index or last > self.base + self.index[-1][0]
            assert batches[0].last_offset == last, \
                "index entry would point at a multi-batch append (benign, but reported " \
                "as a mismatch by index checks): change the fixture data"
            self.index.append((last - self.base, pos))
            self._time_maybe_append(self.max_ts, self.max_ts_offset)
            self.bytes_since = 0
        for b in batches:
            self.log += b.data
        self.bytes_since += len(self.log) - pos

    def restart(self):
        """Broker restart: the in-memory counter starts at 0 again (the max timestamp
        is re-read from the last time-index entry, which close() made current)."""
        self.bytes_since = 0

    def close(self):
        """Roll (onBecomeInactiveSegment) or clean close: final time-index entry."""
        if (self.max_ts, self.max_ts_offset) != (-1, -1):
            self._time_maybe_append(self.max_ts, self.max_ts_offset)

    def index_bytes(self):
        return b"".join(struct.pack(">ii", r, p) for r, p in self.index)

    def timeindex_bytes(self):
        return b"".join(struct.pack(">qi", t, r) for t, r in self.tindex)


class ProducerEntry:
    def __init__(self, pid):
        self.pid = pid
        self.epoch = -1
        self.coordinator_epoch = -1
        self.last_ts = -1
        self.txn_first = -1
        self.meta = None                # (lastSeq, lastOffset, offsetDelta)

    def snapshot_bytes(self):
        last_seq, last_off, delta = self.meta if self.meta else (-1, -1, 0)
        return struct.pack(">qhiqiqiq", self.pid, self.epoch, last_seq, last_off, delta,
                           self.last_ts, self.coordinator_epoch, self.txn_first)


class PartitionLog:
    def __init__(self, topic, partition, leader_epoch=0, segment_ms=DEFAULT_SEGMENT_MS):
        self.topic = topic
        self.partition = partition
        self.name = f"{topic}-{partition}"
        self.leader_epoch = leader_epoch
        self.segment_ms = segment_ms
        self.segments = [Segment(0, INDEX_INTERVAL_BYTES)]
        self.next_offset = 0
        self.log_start = 0
        self.epochs = []                # leader-epoch cache: (epoch, startOffset)
        self.producers = {}             # pid -> ProducerEntry, insertion order kept
        self.snapshots = {}             # offset -> bytes
        self.batches = []

    # ---- leader-epoch cache
    def become_leader(self, epoch):
        """Partition.makeLeader: assign(epoch, logEndOffset)."""
        self.leader_epoch = epoch
        if not self.epochs or epoch > self.epochs[-1][0]:
            self.epochs.append((epoch, self.next_offset))

    # ---- appends
    def _maybe_roll(self, max_ts, now):
        seg = self.segments[-1]
        if seg.log and max_ts - seg.rolling_ts > self.segment_ms:
            seg.close()
            seg.mtime = now
            self.segments.append(Segment(self.next_offset, INDEX_INTERVAL_BYTES))
            self.take_snapshot(self.next_offset)        # UnifiedLog.roll
            return True
        return False

    def append_v2(self, records, **kw):
        batch = build_v2(self.next_offset, self.leader_epoch, records, **kw)
        self._append([batch])
        return batch

    def append_marker(self, pid, epoch, commit, coordinator_epoch, ts):
        batch = build_marker(self.next_offset, self.leader_epoch, pid, epoch, commit,
                             coordinator_epoch, ts)
        self._append([batch])
        return batch

    def append_legacy(self, batches):
        """One append of the old (pre-KAFKA-806) broker: all entries of one produce request."""
        assert batches[0].base_offset == self.next_offset
        self._append(batches)

    def _append(self, batches):
        max_ts = max(b.max_ts for b in batches)
        self._maybe_roll(max_ts, max_ts)
        seg = self.segments[-1]
        seg.append(batches)
        for b in batches:
            assert b.base_offset == self.next_offset
            if b.magic >= 2:
                self._update_producer_state(b, seg)
            self.next_offset = b.last_offset + 1
            self.batches.append(b)

    def _update_producer_state(self, b, seg):
        if b.pid < 0:
            return
        e = self.producers.setdefault(b.pid, ProducerEntry(b.pid))
        if b.control:
            # ProducerAppendInfo.appendEndTxnMarker + ProducerStateEntry.update
            assert b.epoch >= e.epoch
            if e.txn_first >= 0 and b.control == "ABORT":
                others = [o.txn_first for o in self.producers.values()
                          if o.pid != b.pid and o.txn_first >= 0]
                lso = min(others) if others else b.last_offset + 1
                seg.txn.append(struct.pack(">hqqqq", 0, b.pid, e.txn_first, b.last_offset, lso))
            if b.epoch != e.epoch:
                e.meta = None
                e.epoch = b.epoch
            e.coordinator_epoch = struct.unpack(">hi", b.records[0][3])[1]
            e.txn_first = -1
            e.last_ts = b.max_ts
        else:
            if b.epoch != e.epoch:
                assert b.base_seq == 0 or e.epoch == -1
                e.meta = None
                e.epoch = b.epoch
            elif e.meta:
                assert b.base_seq == e.meta[0] + 1, "out-of-sequence batch"
            e.meta = (b.base_seq + b.count - 1, b.last_offset, b.last_offset - b.base_offset)
            e.last_ts = b.max_ts
            if b.txn and e.txn_first < 0:
                e.txn_first = b.base_offset

    def take_snapshot(self, offset):
        """ProducerStateManager.writeSnapshot: version 1, CRC-32C, HashMap order."""
        if self.snapshots and offset <= max(self.snapshots):
            return
        pids = java_hashmap_order(list(self.producers))
        body = struct.pack(">i", len(pids)) + b"".join(
            self.producers[p].snapshot_bytes() for p in pids)
        self.snapshots[offset] = struct.pack(">hI", 1, calc_crc32c(body)) + body

    def restart(self, new_epoch):
        """Clean shutdown and start of a newer broker (the old one's files stay)."""
        self.close()
        for s in self.segments:
            s.restart()
        self.become_leader(new_epoch)

    def delete_records(self, offset):
        """DeleteRecords: log start offset moves; LeaderEpochFileCache.truncateFromStart."""
        assert self.log_start < offset <= self.next_offset
        self.log_start = offset
        removed = [e for e in self.epochs if e[1] <= offset]
        if removed:
            self.epochs = [(removed[-1][0], offset)] + [e for e in self.epochs if e[1] > offset]

    def close(self):
        self.segments[-1].close()
        self.take_snapshot(self.next_offset)

    # ---- files
    def write(self, root):
        d = os.path.join(root, self.name)
        os.makedirs(d)
        files = {}
        for s in self.segments:
            n = seg_name(s.base)
            files[n + ".log"] = (bytes(s.log), s.mtime)
            files[n + ".index"] = (s.index_bytes(), s.mtime)
            files[n + ".timeindex"] = (s.timeindex_bytes(), s.mtime)
            if s.txn:
                files[n + ".txnindex"] = (b"".join(s.txn), s.mtime)
        for off, data in self.snapshots.items():
            files[seg_name(off) + ".snapshot"] = (data, None)
        files["leader-epoch-checkpoint"] = (checkpoint([f"{e} {o}" for e, o in self.epochs]), None)
        files["partition.metadata"] = (
            f"version: 0\ntopic_id: {TOPIC_IDS[self.topic]}".encode(), None)
        for name, (data, mtime) in files.items():
            write_file(os.path.join(d, name), data, mtime)

    def self_check(self):
        """Read every segment back with kafka-python and compare with what was written."""
        got, want = [], []
        for s in self.segments:
            mr = MemoryRecords(bytes(s.log))
            while mr.has_next():
                batch = mr.next_batch()
                assert batch.validate_crc(), f"{self.name}: CRC"
                for r in batch:
                    off = r.offset
                    if batch.magic == 1 and batch.compression_type:
                        # kafka-python yields v1 inner offsets as written (relative)
                        off = None
                    got.append((off, r.timestamp, r.key, r.value, list(r.headers)))
            assert mr.valid_bytes() == len(s.log)
        for b in self.batches:
            for (off, ts, key, value, headers) in b.records:
                if b.magic == 1 and b.last_offset != b.base_offset:
                    off = None
                want.append((off, ts, key, value, headers))
        assert [g[1:] for g in got] == [w[1:] for w in want], f"{self.name}: records differ"
        assert [g[0] for g in got if g[0] is not None] == \
               [w[0] for w in want if w[0] is not None], f"{self.name}: offsets differ"


# ------------------------------------------------------------------ files
def write_file(path, data, mtime=None):
    with open(path, "wb") as f:
        f.write(data)
    t = (mtime if mtime is not None else SHUTDOWN_TS) / 1000.0
    os.utime(path, (t, t))


def checkpoint(lines):
    return ("0\n%d\n" % len(lines) + "".join(l + "\n" for l in lines)).encode()


def java_date(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%a %b %d %H:%M:%S UTC %Y")


# ------------------------------------------------------------------ content
SKUS = ["SKU-%04d" % n for n in (42, 77, 103, 128, 256, 314, 512, 777, 808, 999)]
PRICES = {s: (499 + 731 * i) % 5000 + 99 for i, s in enumerate(SKUS)}
STATUSES = ["created", "paid", "packed", "shipped"]


def order_value(rng, order_id, customer, ts, status):
    items = []
    total = 0
    for _ in range(1 + rng.below(3)):
        sku = SKUS[rng.below(len(SKUS))]
        qty = 1 + rng.below(3)
        total += qty * PRICES[sku]
        items.append('{"sku":"%s","qty":%d,"price":%d.%02d}' % (
            sku, qty, PRICES[sku] // 100, PRICES[sku] % 100))
    iso = datetime.datetime.fromtimestamp(ts / 1000, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ts % 1000)
    return ('{"order_id":"ord-%06d","customer":"%s","status":"%s","items":[%s],'
            '"total":%d.%02d,"currency":"EUR","created_at":"%s"}' % (
                order_id, customer, status, ",".join(items), total // 100, total % 100,
                iso)).encode()


def partition_for(key, n):
    return (murmur2(key) & 0x7FFFFFFF) % n


def build_orders():
    rng = Rng(20240529)
    parts = [PartitionLog("orders", p, segment_ms=ORDERS_SEGMENT_MS) for p in range(3)]
    for p in parts:
        p.become_leader(0)
    # producers: (name, pid, epoch, codec, header "source")
    producers = [
        ("checkout", 1000, 0, "lz4"),
        ("mobile-api", 1001, 0, "zstd"),
        ("importer", -1, -1, "gzip"),
        ("go-svc", -1, -1, "snappy"),
        ("cli", -1, -1, "none"),
    ]
    seqs = {}                                   # (pid, partition) -> next sequence
    order_id = [100000]

    def customer_for(partition):
        while True:
            c = "customer-%d" % (1 + rng.below(60))
            if partition is None or partition_for(c.encode(), 3) == partition:
                return c

    def produce(ts, producer, customers):
        name, pid, epoch, codec = producer
        by_part = {}
        for c in customers:
            by_part.setdefault(partition_for(c.encode(), 3), []).append(c)
        for part in sorted(by_part):
            recs = []
            for i, c in enumerate(by_part[part]):
                t = ts + 3 * i + rng.below(3)
                order_id[0] += 1
                status = STATUSES[rng.below(len(STATUSES))]
                headers = [("source", name.encode()),
                           ("trace-id", b"%016x" % (rng.next() << 31 | rng.next()))]
                if status == "created":
                    headers.append(("content-type", b"application/json"))
                recs.append((t, c.encode(), order_value(rng, order_id[0], c, t, status), headers))
            seq = -1
            if pid >= 0:
                seq = seqs.get((pid, part), 0)
                seqs[(pid, part)] = seq + len(recs)
            parts[part].append_v2(recs, codec=codec, pid=pid, epoch=epoch, seq=seq)

    # A first order reaches orders-0 early: its segment rolls one hour later.
    produce(T0 + 25 * MIN + 1234, producers[4], [customer_for(0)])
    # Regular traffic from T0+40min to T0+95min, one round every ~2 minutes.
    for r in range(28):
        ts = T0 + 40 * MIN + r * 2 * MIN + rng.below(20000)
        producer = producers[r % 4]
        # a linger of a few ms collects 2-4 orders per partition into one batch
        customers = []
        for part in range(3):
            if rng.below(4) != 0:
                customers += [customer_for(part) for _ in range(2 + rng.below(3))]
        if r == 15:
            # go-svc on a host whose clock runs ~3 minutes behind: its batches are
            # older than the max timestamp already in the segment.
            ts -= 200000
        produce(ts, producer, customers)
        if r % 9 == 4:
            produce(ts + 30000, producers[4], [customer_for(None)])
    return parts


def build_payments():
    p = PartitionLog("payments", 0)
    p.become_leader(0)
    rng = Rng(7)
    tx_pid, coord_epoch = 2000, 2
    t = T0 + 45 * MIN

    def payment(i, ts, status):
        return (ts, b"ord-%06d" % (100010 + i),
                ('{"payment_id":"pay-%05d","order_id":"ord-%06d","amount":%d.%02d,'
                 '"currency":"EUR","method":"%s","status":"%s"}' % (
                     500 + i, 100010 + i, 10 + rng.below(300), rng.below(100),
                     ["card", "sepa", "paypal"][i % 3], status)).encode(),
                [("txn-id", b"payments-processor-0")])

    # transaction 1 (epoch 0): two batches, committed; TV2 marker carries epoch 1
    p.append_v2([payment(i, t + 10 * i, "captured") for i in range(3)],
                pid=tx_pid, epoch=0, seq=0, txn=True)
    p.append_v2([payment(i, t + 10 * i, "captured") for i in range(3, 5)],
                pid=tx_pid, epoch=0, seq=3, txn=True)
    p.append_marker(tx_pid, 1, True, coord_epoch, t + 95)
    # transaction 2 (epoch 1, sequences restart at 0): aborted, marker epoch 2
    t2 = T0 + 58 * MIN
    p.append_v2([payment(i, t2 + 7 * i, "authorized") for i in range(5, 8)],
                pid=tx_pid, epoch=1, seq=0, txn=True)
    p.append_marker(tx_pid, 2, False, coord_epoch, t2 + 30061)
    # an idempotent, non-transactional producer afterwards
    t3 = T0 + 66 * MIN
    p.append_v2([(t3 + 5 * i, b"ord-%06d" % (100090 + i),
                  ('{"refund_id":"ref-%04d","order_id":"ord-%06d","amount":%d.00,'
                   '"currency":"EUR","reason":"customer request"}' % (
                       i, 100090 + i, 20 + i)).encode(),
                  [("source", b"refund-service")]) for i in range(4)],
                codec="zstd", pid=3000, epoch=0, seq=0)
    return p


def build_legacy():
    p = PartitionLog("legacy", 0)
    rng = Rng(1)

    def msgs(n, t):
        out = []
        for _ in range(n):
            s = 1 + rng.below(8)
            out.append((t, b"sensor-%d" % s,
                        b"sensor=%d;temp=%d.%d;hum=%d;fw=1.4.2;site=warehouse-north"
                        % (s, 18 + rng.below(8), rng.below(10), 35 + rng.below(20))))
            t += 250 + rng.below(500)
        return out

    # The old broker (message format 0.10.x, per-append index entries)
    t = T0
    plan = [("plain", 3), ("gzip", 6), ("plain", 1), ("gzip", 8), ("gzip", 5),
            ("plain", 1), ("gzip", 7), ("plain", 2)]
    for kind, n in plan:
        m = msgs(n, t)
        t = m[-1][0] + 40000
        if kind == "plain":
            p.append_legacy(build_v1_plain(p.next_offset, m))
        else:
            p.append_legacy([build_v1_wrapper(p.next_offset, m)])
    # Upgrade: clean shutdown, Kafka 4.x starts; leader epoch 7; v2 from now on
    p.restart(new_epoch=7)
    t = T0 + 30 * MIN
    p.append_v2([(ts, k, v, []) for ts, k, v in msgs(4, t)], codec="gzip")                       # an old, non-idempotent client
    t += 9 * MIN
    seq = 0
    for n, codec in ((6, "lz4"), (3, "lz4"), (5, "lz4")):       # a modern (idempotent) one
        p.append_v2([(ts, k, v, []) for ts, k, v in msgs(n, t)], codec=codec,
                    pid=5000, epoch=0, seq=seq)
        seq += n
        t += 7 * MIN
    return p


def build_consumer_offsets(commits):
    """commits: list of (ts, [(topic, partition, offset, leaderEpoch), ...])."""
    group = "my-group"
    assert java_abs(java_string_hash(group)) % 50 == 12
    p = PartitionLog("__consumer_offsets", 12)
    p.become_leader(0)

    def s(x):
        b = x.encode()
        return struct.pack(">h", len(b)) + b

    for ts, offsets in commits:
        recs = []
        for topic, part, off, le in offsets:
            key = struct.pack(">h", 1) + s(group) + s(topic) + struct.pack(">i", part)
            value = struct.pack(">hqi", 3, off, le) + s("") + struct.pack(">q", ts)
            recs.append((ts, key, value, []))
        p.append_v2(recs)
    return p


# ------------------------------------------------------------------ main
def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "testdata", "example-datadir"))
    ap.add_argument("--readme", default=os.path.join(here, "..", "testdata", "README.md"))
    args = ap.parse_args()
    out = os.path.normpath(args.out)

    for codec in ("gzip", "snappy", "lz4", "zstd"):
        if not getattr(kafka.codec, "has_" + codec)():
            sys.exit(f"kafka-python has no {codec} codec; "
                     "pip install -r scripts/requirements-fixtures.txt")

    orders = build_orders()
    payments = build_payments()
    legacy = build_legacy()
    assert [len(o.segments) for o in orders] == [2, 1, 1], \
        f"expected only orders-0 to roll, got {[len(o.segments) for o in orders]}"

    def committed(pl, ts):
        """The position of a consumer that had read everything appended 5 s before ts."""
        done = [b for b in pl.batches if b.max_ts < ts - 5000]
        return done[-1].last_offset + 1 if done else 0

    offsets = build_consumer_offsets([
        (ts, [(pl.topic, pl.partition, committed(pl, ts), pl.leader_epoch)
              for pl in orders + extra])
        for ts, extra in ((T0 + 60 * MIN + 5000, []),
                          (T0 + 75 * MIN + 5000, [payments]),
                          (T0 + 100 * MIN + 5000, [payments, legacy]))])
    # DeleteRecords on orders-2 (the consumer group was done with the first offsets)
    orders[2].delete_records(5)

    parts = orders + [payments, legacy, offsets]
    for pl in parts:
        pl.close()
        pl.self_check()

    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for pl in parts:
        pl.write(out)

    by_name = sorted(parts, key=lambda pl: (pl.topic, pl.partition))
    ends = [f"{pl.topic} {pl.partition} {pl.next_offset}" for pl in by_name]
    write_file(os.path.join(out, "meta.properties"), (
        "#\n#%s\ncluster.id=%s\ndirectory.id=%s\nnode.id=%d\nversion=1\n" % (
            java_date(T0 + 20 * MIN), CLUSTER_ID, DIRECTORY_ID, NODE_ID)).encode(),
        T0 + 20 * MIN)
    write_file(os.path.join(out, ".kafka_cleanshutdown"),
               json.dumps({"version": 0, "brokerEpoch": BROKER_EPOCH},
                          separators=(",", ":")).encode())
    write_file(os.path.join(out, "recovery-point-offset-checkpoint"), checkpoint(ends))
    write_file(os.path.join(out, "replication-offset-checkpoint"), checkpoint(ends))
    write_file(os.path.join(out, "log-start-offset-checkpoint"), checkpoint(
        [f"{pl.topic} {pl.partition} {pl.log_start}" for pl in by_name
         if pl.log_start > pl.segments[0].base]))
    write_file(os.path.join(out, "cleaner-offset-checkpoint"), checkpoint([]))

    total = 0
    for dirpath, _dirs, names in os.walk(out):
        total += sum(os.path.getsize(os.path.join(dirpath, n)) for n in names)
    for pl in by_name:
        segs = ", ".join(f"{seg_name(s.base)}: {len(s.log)} B, {len(s.index)} index / "
                         f"{len(s.tindex)} timeindex entries" for s in pl.segments)
        print(f"{pl.name}: offsets {pl.log_start}..{pl.next_offset - 1}, "
              f"{len(pl.batches)} batches; {segs}")
    print(f"{out}: {total} bytes")
    update_readme(args.readme)


def update_readme(path):
    from importlib import metadata
    versions = []
    for dist in ("python-snappy", "cramjam", "lz4", "zstandard"):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    line = ("- `example-datadir/`: `python3 scripts/gen_example_datadir.py` "
            f"(kafka-python {kafka.__version__}; {', '.join(versions)}; "
            "`pip install -r scripts/requirements-fixtures.txt`). A Kafka 4.x log dir after a "
            "clean shutdown: `orders-0..2` (all codecs, 2 segments in `orders-0`, producer "
            "snapshots), `payments-0` (committed + aborted transaction, `.txnindex`), "
            "`legacy-0` (magic 1 then magic 2), `__consumer_offsets-12`; indexes written with "
            f"`index.interval.bytes={INDEX_INTERVAL_BYTES}` (not the default 4096, so that "
            "these small segments get index entries). Deterministic.\n")
    header = "# Test data\n\nHow each fixture set was made.\n\n"
    text = open(path).read() if os.path.exists(path) else header
    lines = [l for l in text.splitlines(keepends=True) if not l.startswith("- `example-datadir/`")]
    text = "".join(lines)
    if not text.endswith("\n"):
        text += "\n"
    with open(path, "w") as f:
        f.write(text + line)


if __name__ == "__main__":
    main()
