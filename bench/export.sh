#!/usr/bin/env bash
# kseg export against kseg dump-log --deep-iteration --json over the same generated segment, in
# one run (ratios, never absolute timings, are the figures that travel), with peak RSS at two
# row-group sizes; then DuckDB's count(*) and a filtered query over the Parquet export against
# the same queries over dump-log's NDJSON (read_json). Needs a release build, /usr/bin/time and,
# for the DuckDB rows, `pip install duckdb`.
#
#   bench/export.sh [WORKDIR]        SIZE_MIB=1024 CODEC=none (gen_segment's codec) by default
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/kseg-export-bench}
SIZE_MIB=${SIZE_MIB:-1024}
CODEC=${CODEC:-none}
BIN=target/release/kseg
cargo build --release --quiet --bin kseg --example gen_segment
SEG=$WORK/data/orders-0/00000000000000000000.log
if [[ ! -f $SEG ]]; then
  mkdir -p "$(dirname "$SEG")"
  target/release/examples/gen_segment "$SEG" "$SIZE_MIB" "$CODEC" 100
fi
cat "$SEG" > /dev/null # hot page cache for every command alike
echo "segment: $(stat -c %s "$SEG") bytes"

run() { # label, command...
  local label=$1; shift
  rm -rf "$WORK/out"
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > /dev/null 2> "$WORK/stderr" || true
  read -r secs kib < "$WORK/time"
  printf '| %s | %s s | %s MiB |\n' "$label" "$secs" "$((kib / 1024))"
  echo "$secs" > "$WORK/secs.$label"
}

echo "| command | wall time | peak RSS |"
echo "|---|---|---|"
run dump-json $BIN dump-log --deep-iteration --json "$SEG"
run parquet $BIN export --no-progress "$WORK/data" --out "$WORK/out" --tables records
run parquet-zstd $BIN export --no-progress "$WORK/data" --out "$WORK/out" --tables records --compression zstd
run parquet-rg16 $BIN export --no-progress "$WORK/data" --out "$WORK/out" --tables records --row-group-mib 16
run arrow $BIN export --no-progress "$WORK/data" --out "$WORK/out" --tables records --format arrow
run ndjson $BIN export --no-progress "$WORK/data" --out "$WORK/out" --tables records --format ndjson
awk -v a="$(cat "$WORK/secs.dump-json")" -v b="$(cat "$WORK/secs.parquet")" \
  'BEGIN { printf "export --format parquet / dump-log --deep-iteration --json: %.2fx the time\n", b / a }'

if python3 -c "import duckdb" 2>/dev/null; then
  $BIN export --no-progress "$WORK/data" --out "$WORK/parquet" --tables records 2>/dev/null || true
  $BIN dump-log --deep-iteration --json "$SEG" > "$WORK/dump.ndjson"
  python3 - "$WORK" <<'PY'
import sys, time, duckdb
work = sys.argv[1]
parquet = f"read_parquet('{work}/parquet/records/**/*.parquet', hive_partitioning = true)"
ndjson = f"read_json('{work}/dump.ndjson', format = 'newline_delimited')"
queries = {
    "count(*)": ("SELECT count(*) FROM {p}", "SELECT count(*) FROM {n} WHERE type = 'record'"),
    "offsets in a 1% range, value length": (
        'SELECT count(*), sum(octet_length(value)) FROM {p} WHERE "offset" BETWEEN 5000000 AND 5072782',
        "SELECT count(*), sum(length(value)) FROM {n} WHERE type = 'record' AND \"offset\" BETWEEN 5000000 AND 5072782"),
}
print("| DuckDB query | over the Parquet export | over dump-log's NDJSON | ratio |")
print("|---|---|---|---|")
for name, (qp, qn) in queries.items():
    times = []
    for q in (qp.format(p=parquet), qn.format(n=ndjson)):
        con = duckdb.connect()
        t = time.perf_counter(); con.sql(q).fetchall(); times.append(time.perf_counter() - t)
    print(f"| {name} | {times[0]:.3f} s | {times[1]:.3f} s | {times[1] / times[0]:.1f}x |")
PY
  rm -f "$WORK/dump.ndjson"
fi
