"""Reads a `kseg export` dataset with real engines and compares it, record for record, with
`kseg dump-log --json --deep-iteration --encoding base64` of the same inputs.

    python3 export_compare.py DUMP.ndjson EXPORT_DIR FORMAT [TXN_STATES.json]

FORMAT is parquet (read with pyarrow and with DuckDB), arrow (pyarrow's IPC reader) or ndjson
(DuckDB's read_json). TXN_STATES.json, when given, maps "segment:offset" to the transaction
state `kseg grep --txn-state` gave that record. Prints one JSON object (rows per engine) and
exits 1 naming the first differences.
"""

import base64
import json
import sys
from collections import Counter

TYPE_IDS = {"NoTimestampType": -1, "CreateTime": 0, "LogAppendTime": 1}


def b64(b):
    return None if b is None else base64.b64encode(bytes(b)).decode()


def dump_rows(path):
    """The records of dump-log's NDJSON, normalised as the export's rows are."""
    rows = Counter()
    for line in open(path, encoding="utf-8"):
        v = json.loads(line)
        if v.get("type") != "record" or not v["file"].endswith(".log"):
            continue
        headers = v["headers"]
        rows[json.dumps([
            v["file"], v["batchPosition"], v["offset"], v["key"], v["value"],
            v["timestamp"] * 1000, TYPE_IDS[v["timestampType"]],
            # dump-log shows a record without headers as []; Spark's source (and the export)
            # as null.
            None if not headers else [[h["key"], h["value"]] for h in headers],
        ])] += 1
    return rows


def normalise(segment, position, offset, key, value, ts_us, ts_type, headers):
    return json.dumps([
        segment, position, offset, key, value, ts_us, ts_type,
        None if headers is None else [[h["key"], h["value"]] for h in headers],
    ])


def pyarrow_rows(root, fmt, states):
    import pyarrow as pa
    import pyarrow.dataset as ds

    # The Hive keys typed as the columns are (files given outside a partition dir have null
    # ones, whose type nothing could infer).
    keys = ds.partitioning(pa.schema([("topic", pa.string()), ("partition", pa.int32())]),
                           flavor="hive")
    dataset = ds.dataset(root + "/records", format="parquet" if fmt == "parquet" else "ipc",
                         partitioning=keys)
    table = dataset.to_table()
    # Spark's TimestampType: microseconds, UTC.
    ts_field = table.schema.field("timestamp")
    assert ts_field.type == pa.timestamp("us", tz="UTC"), ts_field.type
    ts = table.column("timestamp").cast(pa.int64()).to_pylist()
    rows = Counter()
    seen_states = {}
    for i, r in enumerate(table.to_pylist()):
        k = r["kafka"]
        headers = r["headers"]
        if headers is not None:
            headers = [{"key": h["key"], "value": b64(h["value"])} for h in headers]
        rows[normalise(k["segment"], k["batchPosition"], r["offset"], b64(r["key"]),
                       b64(r["value"]), ts[i], r["timestampType"], headers)] += 1
        seen_states[f'{k["segment"]}:{r["offset"]}'] = k["transaction"]
    check_states(states, seen_states, "pyarrow")
    return rows


def duckdb_rows(root, fmt):
    import duckdb

    if fmt == "parquet":
        source = f"read_parquet('{root}/records/**/*.parquet', hive_partitioning = true)"
        key, value = "to_base64(key)", "to_base64(value)"
        headers = "[{'key': h.key, 'value': to_base64(h.value)} for h in headers]"
        ts = "epoch_us(timestamp)"
    else:
        source = (f"read_json('{root}/records/**/*.ndjson', hive_partitioning = true, "
                  "format = 'newline_delimited')")
        key, value = "key", "value"
        headers = "headers"
        ts = "epoch_us(CAST(timestamp AS TIMESTAMPTZ))"
    query = (f'SELECT kafka.segment, kafka.batchPosition, "offset", {key}, {value}, {ts}, '
             f'"timestampType", CASE WHEN headers IS NULL THEN NULL ELSE {headers} END '
             f"FROM {source}")
    rows = Counter()
    for seg, pos, off, k, v, t, tt, hs in duckdb.sql(query).fetchall():
        if hs is not None:
            hs = [{"key": h["key"], "value": h["value"]} for h in hs]
        rows[normalise(seg, pos, off, k, v, t, tt, hs)] += 1
    return rows


def check_states(expected, seen, engine):
    for where, state in (expected or {}).items():
        if seen.get(where) != state:
            fail(f"{engine}: {where}: kafka.transaction {seen.get(where)!r}, grep says {state!r}")


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def compare(engine, want, got):
    if want == got:
        return
    missing = list((want - got).elements())[:3]
    extra = list((got - want).elements())[:3]
    fail(f"{engine}: {sum(got.values())} rows, dump-log {sum(want.values())}\n"
         f"  in dump-log only: {missing}\n  in the export only: {extra}")


def main():
    dump, root, fmt = sys.argv[1:4]
    states = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
    want = dump_rows(dump)
    counts = {"dumpLog": sum(want.values())}
    if fmt in ("parquet", "arrow"):
        got = pyarrow_rows(root, fmt, states)
        compare("pyarrow", want, got)
        counts["pyarrow"] = sum(got.values())
    if fmt in ("parquet", "ndjson"):
        got = duckdb_rows(root, fmt)
        compare("duckdb", want, got)
        counts["duckdb"] = sum(got.values())
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
