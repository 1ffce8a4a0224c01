#!/usr/bin/env bash
# Peak RSS and wall time of kseg on the hostile inputs of issue 14 (BENCHMARKS.md, "Hostile
# inputs (issue 14): before and after"). Generates the data on demand under $DIR (default
# /tmp/kseg-hostile, about 4 GiB; never committed) and deletes it at the end unless KEEP=1.
#
#   bench/hostile.sh                              # after only: target/release/kseg
#   KSEG_BEFORE=/tmp/kseg-main bench/hostile.sh   # also a "before" build, row by row
#   CASES="wrapper text" bench/hostile.sh         # a subset of: timeindex index wrapper text resync
#
# A "before" run that the issue measured above 8 GB (dump-log on the 1 GiB .timeindex, 11.7 GB
# and an abort) is skipped unless BEFORE_ALL=1: the machine is shared.
# Every run: `/usr/bin/time -f "%e s %M KiB"`, stdout to /dev/null, hot page cache, a
# ${TIMEOUT:-900} s limit.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DIR:-/tmp/kseg-hostile}
cases=${CASES:-timeindex index wrapper text resync}
after=${KSEG:-target/release/kseg}
before=${KSEG_BEFORE:-}
timeout=${TIMEOUT:-900}
want() { [[ " $cases " == *" $1 "* ]]; }
[[ -x $after ]] || cargo build --release --quiet --bin kseg
mkdir -p "$dir"

# run LABEL BIN ARGS...: one timed run, one result line on stdout
run() {
  local label=$1 bin=$2; shift 2
  local status=0
  timeout "$timeout" /usr/bin/time -f "%e s %M KiB" -o "$dir/.time" "$bin" "$@" \
    > /dev/null 2> "$dir/.stderr" || status=$?
  local lines
  lines=$(wc -l < "$dir/.stderr")
  printf '%s | %s | exit %s | %s stderr lines\n' "$label" "$(tail -1 "$dir/.time")" "$status" "$lines"
}
# both LABEL ARGS...: the "before" build (when given) then the "after" one
both() {
  local label=$1; shift
  if [[ -n $before ]]; then run "$label before" "$before" "$@"; fi
  run "$label after" "$after" "$@"
}
# a copy of the committed example partition orders-0 under $dir/NAME
example() {
  rm -rf "$dir/$1"
  mkdir -p "$dir/$1"
  cp -r testdata/example-datadir/orders-0 "$dir/$1/"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

if want timeindex; then
  example ti
  head -c 1073741824 /dev/urandom > "$dir/ti/orders-0/00000000000000000000.timeindex"
  cat "$dir/ti/orders-0/00000000000000000000.timeindex" > /dev/null
  if [[ -n $before && ${BEFORE_ALL:-0} == 1 ]]; then
    run "random 1 GiB .timeindex: dump-log before" "$before" dump-log "$dir/ti/orders-0/00000000000000000000.timeindex"
  fi
  run "random 1 GiB .timeindex: dump-log after" "$after" dump-log "$dir/ti/orders-0/00000000000000000000.timeindex"
  both "random 1 GiB .timeindex: verify-index" verify-index "$dir/ti"
  rm -rf "$dir/ti"
fi

if want index; then
  example ix
  head -c 1073741824 /dev/urandom > "$dir/ix/orders-0/00000000000000000000.index"
  cat "$dir/ix/orders-0/00000000000000000000.index" > /dev/null
  both "random 1 GiB .index: verify-index" verify-index "$dir/ix"
  rm -rf "$dir/ix"
fi

if want wrapper; then
  # One v1 gzip wrapper (offset 5,100,999) of 5.1 M v0 messages with null key and value
  # (26 bytes each: 126.5 MiB inflated, under the 128 MiB cap; 13 MB on disk at level 1 ... 9).
  mkdir -p "$dir/wr/t-0"
  python3 - "$dir/wr/t-0/00000000000000000000.log" <<'EOF'
import struct, sys, zlib
n = 5_100_000
body = bytes([0, 0]) + struct.pack(">ii", -1, -1)
crc = zlib.crc32(body)
z = zlib.compressobj(6, zlib.DEFLATED, 31)
parts = []
chunk = []
for i in range(n):
    chunk.append(struct.pack(">qiI", i, 14, crc) + body)
    if len(chunk) == 65536:
        parts.append(z.compress(b"".join(chunk)))
        chunk = []
parts.append(z.compress(b"".join(chunk)))
parts.append(z.flush())
value = b"".join(parts)
wbody = bytes([1, 1]) + struct.pack(">qii", 1_700_000_000_000, -1, len(value)) + value
wrapper = struct.pack(">qiI", 1000 + n - 1, len(wbody) + 4, zlib.crc32(wbody)) + wbody
open(sys.argv[1], "wb").write(wrapper)
print(f"wrapper: {len(wrapper)} bytes on disk, {26 * n} inflated", file=sys.stderr)
EOF
  both "5.1 M-message v1 wrapper: summary" summary "$dir/wr"
  both "5.1 M-message v1 wrapper: dump-log --deep-iteration" dump-log --deep-iteration "$dir/wr/t-0/00000000000000000000.log"
  rm -rf "$dir/wr"
fi

if want text; then
  # A leader-epoch-checkpoint of 63 MiB: "0", the count, then "<epoch> 0" lines (all kept by
  # recover, the log of orders-0 ending at 70).
  example tx
  python3 - "$dir/tx/orders-0/leader-epoch-checkpoint" <<'EOF'
import sys
limit = 63 << 20
lines = []
size = 0
i = 0
while True:
    line = f"{i} 0\n"
    if size + len(line) + 20 > limit:
        break
    lines.append(line)
    size += len(line)
    i += 1
open(sys.argv[1], "w").write(f"0\n{len(lines)}\n" + "".join(lines))
print(f"leader-epoch-checkpoint: {len(lines)} entries", file=sys.stderr)
EOF
  both "63 MiB leader-epoch-checkpoint: dump-log" dump-log "$dir/tx/orders-0/leader-epoch-checkpoint"
  if [[ -n $before ]]; then
    rm -rf "$dir/tx-out"
    run "63 MiB leader-epoch-checkpoint: recover before" "$before" recover --out "$dir/tx-out" "$dir/tx/orders-0"
  fi
  rm -rf "$dir/tx-out"
  run "63 MiB leader-epoch-checkpoint: recover after" "$after" recover --out "$dir/tx-out" "$dir/tx/orders-0"
  rm -rf "$dir/tx" "$dir/tx-out"
fi

if want resync; then
  # A valid 1.5 GiB segment (examples/gen_segment: 100 uncompressed records a batch) with 1 MiB
  # of random bytes written over it at 200 MiB.
  gen=${GEN_SEGMENT:-target/release/examples/gen_segment}
  [[ -x $gen ]] || cargo build --release --quiet --example gen_segment
  mkdir -p "$dir/rs/t-0"
  "$gen" "$dir/rs/t-0/00000000000000000000.log" 1536 none 100 > /dev/null
  dd if=/dev/urandom of="$dir/rs/t-0/00000000000000000000.log" bs=1M seek=200 count=1 \
    conv=notrunc status=none
  cat "$dir/rs/t-0/00000000000000000000.log" > /dev/null
  both "1.5 GiB segment, 1 MiB random at 200 MiB: summary" summary "$dir/rs"
  both "1.5 GiB segment, 1 MiB random at 200 MiB: verify-index" verify-index "$dir/rs"
  rm -rf "$dir/rs"
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ ${KEEP:-0} == 1 ]] || rm -rf "$dir"
