#!/usr/bin/env python3
"""Generate independent-encoder Kafka log fixtures with kafka-python.

The record batches are encoded by kafka-python's own builders
(``DefaultRecordBatchBuilder`` for magic 2, ``LegacyRecordBatchBuilder`` for
magic 0/1), then concatenated into ``.log`` files the way a broker stores them.
Like a broker, this script afterwards fills in only the fields a broker owns:

* v2: ``baseOffset`` and ``partitionLeaderEpoch`` (both outside the CRC);
  for the ``*-logappendtime`` file also the LogAppendTime attribute bit and
  ``maxTimestamp`` (CRC-32C recomputed); for the control (transaction marker)
  batches the control attribute bit (CRC-32C recomputed).
* v0/v1 compressed wrappers: the wrapper offset (= absolute offset of the last
  inner message; outside the CRC) and, for v1, the wrapper timestamp
  (= max inner timestamp, or the broker time for LogAppendTime; CRC-32
  recomputed).  Inner v1 offsets stay *relative* (0..n-1), exactly as
  kafka-python/Java producers write them; inner v0 offsets are absolute.

Payload bytes (records, compression) are untouched kafka-python output, with one
exception for reproducibility: gzip streams get mtime=0 in their header (Java's
GZIPOutputStream writes 0 there too).

Next to each ``<name>.log`` it writes:

* ``<name>.expected.json``: one object per record in log order
  ``{"offset", "timestamp", "key", "value", "headers"}`` (hex or null), computed
  from the input data and Kafka semantics -- not by decoding the file.
* ``<name>.expected-batches.json``: one object per batch (top-level entry) with
  a few unambiguous batch-header fields to check.

Every file is read back with kafka-python's reader (``MemoryRecords``) and
compared with the expectations before it is written.

Usage: python3 scripts/gen_kafka_python_fixtures.py [--out testdata/kafka-python]
"""

import argparse
import functools
import gzip
import json
import os
import struct
import sys

import kafka
import kafka.codec
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords
from kafka.record.util import calc_crc32, calc_crc32c


# --- reproducible gzip (kafka.codec.gzip_encode uses gzip.GzipFile without mtime)
class _DeterministicGzipModule:
    GzipFile = functools.partial(gzip.GzipFile, mtime=0)


kafka.codec.gzip = _DeterministicGzipModule

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
BASE_TS = 1700000000000
BROKER_APPEND_TS = 1700000099999
LEADER_EPOCH = 3
LOG_OVERHEAD = 12  # offset(8) + length(4)
NO_TIMESTAMP = -1

# 0x00..0xff followed by several invalid UTF-8 sequences
BINARY_KEY = bytes(range(256)) + b"\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc\xff\xfe\xed\xa0\x80"
LOREM = (b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, "
         b"sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ")

# (key, value, v2 headers).  12 records; every batch of 4 contains a
# compressible value so that kafka-python does not fall back to "none".
TEMPLATES = [
    (b"user-1", b"hello kafka " * 8,
     [("content-type", b"text/plain"), ("trace-id", b"4bf92f3577b34da6")]),
    (None, b"value with a null key", [("null-header", None)]),
    (b"tombstone-key", None, []),
    (BINARY_KEY, b"value for a binary, non-UTF-8 key",
     [("bin-header", bytes(range(256))), ("null-header", None),
      ("empty-header", b""), ("dup", b"1"), ("dup", b"2"),
      ("\u043a\u043b\u044e\u0447", "\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435".encode("utf-8"))]),
    (b"empty-value", b"", []),
    (LOREM * 6, LOREM * 4, [("h", b"\x00\xff\x80")]),
    ("\u043a\u043b\u044e\u0447-\u00fc".encode("utf-8"),
     "\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435 \u2713 \U0001F680".encode("utf-8"), []),
    (None, None, [("only-null", None)]),
    (b"", b"empty (zero-length, non-null) key", []),
    (b"bin-value", bytes(range(255, -1, -1)), [("k", b"v")]),
    (b"order-42", b'{"id":42,"items":["a","b","c"],"note":"' + b"x" * 200 + b'"}',
     [("content-type", b"application/json")]),
    (b"last", b"the last record " * 10, []),
]
N_RECORDS = len(TEMPLATES)
PER_BATCH = 4


def hx(b):
    return None if b is None else bytes(b).hex()


def expected_record(offset, timestamp, key, value, headers):
    return {
        "offset": offset,
        "timestamp": timestamp,
        "key": hx(key),
        "value": hx(value),
        "headers": [{"key": k, "value": hx(v)} for k, v in headers],
    }


def record_ts(i):
    """Deterministic CreateTime of the i-th record in a file.

    Record 6 goes back in time (negative timestamp delta inside its v2 batch).
    """
    if i == 6:
        return BASE_TS + 4 - 7
    return BASE_TS + i


# --------------------------------------------------------------------- v0 / v1
def build_legacy(magic, codec, log_append_time=False):
    cid = CODECS[codec]
    out = bytearray()
    records = []
    batches = []
    if cid == 0:
        # Uncompressed message set: each message is its own top-level entry
        # with its absolute offset.
        b = LegacyRecordBatchBuilder(magic=magic, compression_type=0, batch_size=1 << 20)
        for i, (key, value, _h) in enumerate(TEMPLATES):
            ts = record_ts(i)
            assert b.append(i, timestamp=ts, key=key, value=value) is not None
            records.append(expected_record(i, ts if magic == 1 else NO_TIMESTAMP, key, value, []))
        buf = b.build()
        pos = 0
        i = 0
        while pos < len(buf):
            (length,) = struct.unpack_from(">i", buf, pos + 8)
            batches.append({
                "position": pos, "size": LOG_OVERHEAD + length, "magic": magic,
                "compression": "none", "lastOffset": i,
                "timestampType": "CreateTime" if magic == 1 else "NoTimestampType",
                "maxTimestamp": record_ts(i) if magic == 1 else NO_TIMESTAMP,
            })
            pos += LOG_OVERHEAD + length
            i += 1
        out += buf
        return bytes(out), records, batches

    # Compressed: one wrapper message per PER_BATCH inner messages.
    for start in range(0, N_RECORDS, PER_BATCH):
        b = LegacyRecordBatchBuilder(magic=magic, compression_type=cid, batch_size=1 << 20)
        chunk = list(range(start, min(start + PER_BATCH, N_RECORDS)))
        for rel, i in enumerate(chunk):
            key, value, _h = TEMPLATES[i]
            inner_offset = rel if magic == 1 else i   # v1: relative, v0: absolute
            assert b.append(inner_offset, timestamp=record_ts(i), key=key, value=value) is not None
        wrapper = bytearray(b.build())
        last_abs = chunk[-1]
        struct.pack_into(">q", wrapper, 0, last_abs)        # wrapper offset (outside CRC)
        max_ts = max(record_ts(i) for i in chunk)
        if magic == 1:
            wrapper_ts = BROKER_APPEND_TS if log_append_time else max_ts
            if log_append_time:
                wrapper[17] |= 0x08                          # attributes: LogAppendTime
            struct.pack_into(">q", wrapper, 18, wrapper_ts)  # wrapper timestamp
            struct.pack_into(">I", wrapper, 12, calc_crc32(memoryview(wrapper)[16:]))
        assert wrapper[17] & 0x07 == cid
        for i in chunk:
            key, value, _h = TEMPLATES[i]
            if magic == 0:
                ts = NO_TIMESTAMP
            elif log_append_time:
                ts = BROKER_APPEND_TS
            else:
                ts = record_ts(i)
            records.append(expected_record(i, ts, key, value, []))
        batches.append({
            "position": len(out), "size": len(wrapper), "magic": magic,
            "compression": codec, "lastOffset": last_abs,
            "timestampType": ("NoTimestampType" if magic == 0 else
                              "LogAppendTime" if log_append_time else "CreateTime"),
            "maxTimestamp": (NO_TIMESTAMP if magic == 0 else
                             BROKER_APPEND_TS if log_append_time else max_ts),
        })
        out += wrapper
    return bytes(out), records, batches


# -------------------------------------------------------------------------- v2
def finish_v2(buf, base_offset, log_append_time=False, control=False):
    buf = bytearray(buf)
    struct.pack_into(">q", buf, 0, base_offset)        # outside CRC
    struct.pack_into(">i", buf, 12, LEADER_EPOCH)      # outside CRC
    if log_append_time or control:
        (attrs,) = struct.unpack_from(">h", buf, 21)
        if log_append_time:
            attrs |= 0x08
            struct.pack_into(">q", buf, 35, BROKER_APPEND_TS)   # maxTimestamp
        if control:
            attrs |= 0x20
        struct.pack_into(">h", buf, 21, attrs)
        struct.pack_into(">I", buf, 17, calc_crc32c(memoryview(buf)[21:]))
    return bytes(buf)


def v2_batch_expect(pos, buf, codec, base_offset, count, first_ts, max_ts,
                    pid, epoch, base_seq, txn, control, lat):
    return {
        "position": pos, "size": len(buf), "magic": 2, "compression": codec,
        "baseOffset": base_offset, "lastOffset": base_offset + count - 1, "count": count,
        "timestampType": "LogAppendTime" if lat else "CreateTime",
        "firstTimestamp": first_ts, "maxTimestamp": max_ts,
        "producerId": pid, "producerEpoch": epoch, "baseSequence": base_seq,
        "lastSequence": -1 if base_seq == -1 else base_seq + count - 1,
        "partitionLeaderEpoch": LEADER_EPOCH,
        "isTransactional": txn, "isControl": control,
    }


def build_v2(codec, log_append_time=False):
    cid = CODECS[codec]
    out = bytearray()
    records = []
    batches = []
    # (producerId, producerEpoch, baseSequence, transactional) per batch
    producer_states = [(-1, -1, -1, False), (1001, 0, 0, False), (2002, 5, 10, True)]
    for bi, start in enumerate(range(0, N_RECORDS, PER_BATCH)):
        pid, epoch, seq, txn = producer_states[bi % len(producer_states)]
        b = DefaultRecordBatchBuilder(magic=2, compression_type=cid, is_transactional=txn,
                                      producer_id=pid, producer_epoch=epoch,
                                      base_sequence=seq, batch_size=1 << 20)
        chunk = list(range(start, min(start + PER_BATCH, N_RECORDS)))
        for delta, i in enumerate(chunk):
            key, value, headers = TEMPLATES[i]
            assert b.append(delta, timestamp=record_ts(i), key=key, value=value,
                            headers=headers) is not None
        buf = finish_v2(b.build(), start, log_append_time=log_append_time)
        (attrs,) = struct.unpack_from(">h", buf, 21)
        if attrs & 0x07 != cid:
            sys.exit(f"v2 {codec} batch {bi}: kafka-python fell back to codec {attrs & 7}; "
                     "make the records more compressible")
        first_ts = record_ts(chunk[0])
        max_ts = BROKER_APPEND_TS if log_append_time else max(record_ts(i) for i in chunk)
        for i in chunk:
            key, value, headers = TEMPLATES[i]
            ts = BROKER_APPEND_TS if log_append_time else record_ts(i)
            records.append(expected_record(i, ts, key, value, headers))
        batches.append(v2_batch_expect(len(out), buf, codec, start, len(chunk), first_ts,
                                       max_ts, pid, epoch, seq, txn, False, log_append_time))
        out += buf
    return bytes(out), records, batches


def build_v2_txn_markers():
    """Transactional data batches followed by COMMIT / ABORT control batches."""
    out = bytearray()
    records = []
    batches = []
    pid, epoch, coordinator_epoch = 3003, 7, 9
    offset = 0
    seq = 0
    ts_i = 0
    plan = [("data", TEMPLATES[0:3]), ("marker", 1), ("data", TEMPLATES[3:5]), ("marker", 0)]
    for kind, arg in plan:
        if kind == "data":
            b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=True,
                                          producer_id=pid, producer_epoch=epoch,
                                          base_sequence=seq, batch_size=1 << 20)
            tss = []
            for delta, (key, value, headers) in enumerate(arg):
                ts = BASE_TS + ts_i
                ts_i += 1
                tss.append(ts)
                assert b.append(delta, timestamp=ts, key=key, value=value, headers=headers)
                records.append(expected_record(offset + delta, ts, key, value, headers))
            buf = finish_v2(b.build(), offset)
            batches.append(v2_batch_expect(len(out), buf, "none", offset, len(arg), tss[0],
                                           max(tss), pid, epoch, seq, True, False, False))
            offset += len(arg)
            seq += len(arg)
        else:
            # Control record: key = version(int16)=0, type(int16) 0=ABORT 1=COMMIT;
            # value = version(int16)=0, coordinatorEpoch(int32).  No sequence.
            key = struct.pack(">hh", 0, arg)
            value = struct.pack(">hi", 0, coordinator_epoch)
            ts = BASE_TS + ts_i
            ts_i += 1
            b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=True,
                                          producer_id=pid, producer_epoch=epoch,
                                          base_sequence=-1, batch_size=1 << 20)
            assert b.append(0, timestamp=ts, key=key, value=value, headers=[])
            buf = finish_v2(b.build(), offset, control=True)
            records.append(expected_record(offset, ts, key, value, []))
            batches.append(v2_batch_expect(len(out), buf, "none", offset, 1, ts, ts,
                                           pid, epoch, -1, True, True, False))
            offset += 1
        out += buf
    return bytes(out), records, batches


# ------------------------------------------------------------------ self-check
def verify_with_kafka_python(name, data, records, batches):
    got = []
    mr = MemoryRecords(data)
    nb = 0
    while mr.has_next():
        batch = mr.next_batch()
        assert batch.validate_crc(), f"{name}: batch {nb} CRC invalid"
        exp_b = batches[nb]
        assert batch.magic == exp_b["magic"], name
        if batch.magic == 2:
            assert batch.base_offset == exp_b["baseOffset"], name
            assert batch.last_offset == exp_b["lastOffset"], name
            assert batch.is_control_batch == exp_b["isControl"], name
            assert batch.is_transactional == exp_b["isTransactional"], name
            assert batch.producer_id == exp_b["producerId"], name
            assert batch.max_timestamp == exp_b["maxTimestamp"], name
        nb += 1
        for r in batch:
            ts = r.timestamp if r.timestamp is not None else NO_TIMESTAMP
            got.append(expected_record(r.offset, ts, r.key, r.value, list(r.headers)))
    assert nb == len(batches), f"{name}: {nb} batches read, {len(batches)} expected"
    assert mr.valid_bytes() == len(data), name
    if got != records:
        for a, b in zip(got, records):
            if a != b:
                print("kafka-python read:", a, "\nexpected:        ", b, file=sys.stderr)
                break
        sys.exit(f"{name}: kafka-python's reader disagrees with the expectations")


def write_fixture(out_dir, name, data, records, batches):
    verify_with_kafka_python(name, data, records, batches)
    with open(os.path.join(out_dir, name + ".log"), "wb") as f:
        f.write(data)
    with open(os.path.join(out_dir, name + ".expected.json"), "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, name + ".expected-batches.json"), "w") as f:
        json.dump(batches, f, indent=1)
        f.write("\n")
    print(f"{name}.log: {len(data)} bytes, {len(batches)} batches, {len(records)} records")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "testdata", "kafka-python"))
    args = ap.parse_args()
    out_dir = os.path.normpath(args.out)
    os.makedirs(out_dir, exist_ok=True)

    for name, codec in [("gzip", "gzip"), ("snappy", "snappy"), ("lz4", "lz4")]:
        if not getattr(kafka.codec, "has_" + name)():
            sys.exit(f"kafka-python has no {codec} codec; pip install -r scripts/requirements-fixtures.txt")
    if not kafka.codec.has_zstd():
        sys.exit("kafka-python has no zstd codec; pip install -r scripts/requirements-fixtures.txt")

    fixtures = []  # (name, how)
    for magic in (0, 1):
        for codec in ("none", "gzip", "snappy", "lz4"):
            name = f"v{magic}-{codec}"
            write_fixture(out_dir, name, *build_legacy(magic, codec))
            fixtures.append((name, f"LegacyRecordBatchBuilder(magic={magic}, {codec})"))
    write_fixture(out_dir, "v1-gzip-logappendtime", *build_legacy(1, "gzip", log_append_time=True))
    fixtures.append(("v1-gzip-logappendtime",
                     "LegacyRecordBatchBuilder(magic=1, gzip); wrappers re-stamped LogAppendTime"))
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        name = f"v2-{codec}"
        write_fixture(out_dir, name, *build_v2(codec))
        fixtures.append((name, f"DefaultRecordBatchBuilder(magic=2, {codec}); "
                               "batches: plain, idempotent, transactional"))
    write_fixture(out_dir, "v2-lz4-logappendtime", *build_v2("lz4", log_append_time=True))
    fixtures.append(("v2-lz4-logappendtime",
                     "DefaultRecordBatchBuilder(magic=2, lz4); batches re-stamped LogAppendTime"))
    write_fixture(out_dir, "v2-txn-markers", *build_v2_txn_markers())
    fixtures.append(("v2-txn-markers",
                     "DefaultRecordBatchBuilder(magic=2, none), transactional; "
                     "COMMIT and ABORT control batches (control bit set, CRC recomputed)"))

    from importlib import metadata
    versions = {}
    for dist in ("python-snappy", "cramjam", "lz4", "zstandard", "xxhash"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    cmd = "python3 scripts/gen_kafka_python_fixtures.py"
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write("# kafka-python fixtures\n\n")
        f.write("Kafka log files written by an independent encoder, "
                f"kafka-python {kafka.__version__} "
                f"(codecs: {', '.join(f'{k} {v}' for k, v in versions.items())}; "
                "pinned in `scripts/requirements-fixtures.txt`).\n")
        f.write(f"Regenerate with `pip install -r scripts/requirements-fixtures.txt && {cmd}` "
                "(output is deterministic). Each `<name>.log` has `<name>.expected.json` (records: "
                "offset, timestamp, hex key/value, headers) and `<name>.expected-batches.json` "
                "(batch header fields), checked by `tests/cli/kafka_python_roundtrip.rs`. "
                "Broker-owned fields (offsets, leader epoch, v1 wrapper timestamp, "
                "LogAppendTime/control bits) are filled in by the script as a broker would; "
                "see the script's docstring.\n\n")
        for name, how in fixtures:
            f.write(f"- `{name}.log`: `{cmd}` (kafka-python {kafka.__version__}), {how}\n")


if __name__ == "__main__":
    main()
