#!/usr/bin/env bash
# Every row of the performance table (issue 13, BENCHMARKS.md), each figure next to its
# reference measured in the same run, and their ratio. Generates its data on demand (never
# committed) under $BENCH_DIR (default /tmp/kseg-bench) and reuses it on later runs.
#
#   bench/run.sh                 # the full table: 1 GiB segment, 200 partitions, 10 GiB RSS dir
#   BENCH_MIB=256 BENCH_RSS_GIB=2 bench/run.sh     # smaller data (ratios stay comparable)
#   BENCH_ROWS="json hex codecs" bench/run.sh       # a subset: json single print hex codecs
#                                                   #           threads verify rss grep
#   BENCH_ROWS=groups bench/run.sh               # issue 14 item 9: `groups` over 1 M distinct
#                                                   # groups in 50 coordinator partitions (not in
#                                                   # the default set: ~1 min)
# Needs: cargo, python3 with kafka-python 3.0.12 (pip install kafka-python==3.0.12) for the
# first row, and the Kafka jars (oracle/setup, or the CI's oracle/target) for the print row;
# a row whose reference is missing says so and the others still run.
# Times: the best of $ROUNDS runs (default 3) for kseg, of $REF_ROUNDS (default 1) for the
# Python and Java references; hot page cache (every file is read once before it is timed).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/kseg-bench}
mib=${BENCH_MIB:-1024}
rss_gib=${BENCH_RSS_GIB:-10}
rounds=${ROUNDS:-3}
ref_rounds=${REF_ROUNDS:-1}
rows=${BENCH_ROWS:-json single print hex codecs threads verify rss grep}
want() { [[ " $rows " == *" $1 "* ]]; }

# BENCH_CARGO_FLAGS=--no-default-features skips librdkafka (rescue rows need it).
# shellcheck disable=SC2086
cargo build --release --quiet ${BENCH_CARGO_FLAGS:-} --bin kseg --example gen_segment --example gen_index \
  --example crc_pass --example deep_decode --example gen_commits
bin=target/release
kseg=$bin/kseg
mkdir -p "$dir"

segment() { # DIR/PART SIZE_MIB CODEC: a partition with one segment and its indexes
  local p=$1 size=$2 codec=$3
  local seg="$p/00000000000000000000.log"
  if [[ ! -f "$seg" ]]; then
    mkdir -p "$p"
    $bin/examples/gen_segment "$seg" "$size" "$codec" 100 > /dev/null 2>&1
    $bin/examples/gen_index "$seg" > /dev/null 2>&1
  fi
  cat "$seg" > /dev/null
}

# best SECONDS of a command (stdout to /dev/null); peak RSS KiB of the last run in $rss and
# its exit status in $dir/.status
rss=0
best() {
  local n=$1; shift
  local b="" t
  for _ in $(seq "$n"); do
    local s e
    s=$(date +%s.%N)
    local status=0
    /usr/bin/time -f %M -o "$dir/.rss" "$@" > /dev/null || status=$?
    echo "$status" > "$dir/.status"
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [[ -z $b ]] || (( $(echo "$t < $b" | bc -l) )); then b=$t; fi
  done
  rss=$(tail -1 "$dir/.rss")
  printf '%.3f' "$b"
}
# best SECONDS reported by a command that times itself (first field of its output)
best_inner() {
  local n=$1; shift
  local b="" t
  for _ in $(seq "$n"); do
    t=$("$@" | awk '{print $1}')
    if [[ -z $b ]] || (( $(echo "$t < $b" | bc -l) )); then b=$t; fi
  done
  printf '%.3f' "$b"
}

table=()
row() { # figure, kseg, reference, ratio, goal
  table+=("$(printf '| %s | %s | %s | %s | %s |' "$@")")
  printf '| %s | %s | %s | %s | %s |\n' "$@" >&2
}
ratio() { echo "scale=2; $1 / $2" | bc -l | sed 's/^\./0./'; }
mbs() { echo "scale=0; $1 / $2 / 1000000" | bc -l; }
met() { (( $(echo "$1 >= $2" | bc -l) )) && echo "met" || echo "missed"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
big="$dir/big/orders-0"
segment "$big" "$mib" none
seg="$big/00000000000000000000.log"
bytes=$(stat -c %s "$seg")
echo "segment: $bytes bytes of 100-record batches (gen_segment $mib none 100)" >&2

if want json; then
  k=$(best "$rounds" $kseg dump-log --deep-iteration --json "$seg")
  if python3 -c 'import kafka, sys; sys.exit(kafka.__version__ != "3.0.12")' 2> /dev/null; then
    p=$(best_inner "$ref_rounds" python3 bench/kafka_python_iter.py "$seg")
    r=$(ratio "$p" "$k")
    row "dump-log --deep-iteration --json (default threads)" "$k s ($(mbs "$bytes" "$k") MB/s)" \
      "kafka-python 3.0.12 iterating: $p s" "${r}x" "≥ 30x: $(met "$r" 30)"
  else
    row "dump-log --deep-iteration --json" "$k s" "kafka-python 3.0.12 not installed" "—" "≥ 30x"
  fi
fi
if want single; then
  k=$(best "$rounds" $kseg dump-log --deep-iteration --json --threads 1 "$seg")
  d=$(best_inner "$rounds" $bin/examples/deep_decode "$seg")
  r=$(ratio "$d" "$k")
  row "the same, --threads 1" "$k s ($(mbs "$bytes" "$k") MB/s)" \
    "deep decode alone (examples/deep_decode): $d s" "${r}x" "≥ 0.5x: $(met "$r" 0.5)"
fi
if want print; then
  k=$(best "$rounds" $kseg dump-log --deep-iteration --print-data-log "$seg")
  version=$(head -1 oracle/target/clients-version 2> /dev/null || true)
  libs="oracle/target/kafka-$version/libs"
  if [[ -n $version && -d $libs ]] && command -v java > /dev/null; then
    main=kafka.tools.DumpLogSegments
    # (grep without -q: an early exit would kill unzip with SIGPIPE and fail the pipeline)
    if unzip -l "$libs/kafka-tools-$version.jar" 2> /dev/null | grep org/apache/kafka/tools/DumpLogSegments.class > /dev/null; then
      main=org.apache.kafka.tools.DumpLogSegments
    fi
    j=$(best "$ref_rounds" java -Xmx1g "-Dlog4j2.configurationFile=$PWD/oracle/log4j2-tools.properties" \
      "-Dlog4j.configuration=file:$PWD/oracle/log4j-tools.properties" -cp "$libs/*" "$main" \
      --deep-iteration --print-data-log --files "$seg")
    r=$(ratio "$j" "$k")
    if [[ $(cat "$dir/.status") != 0 ]]; then
      row "dump-log --deep-iteration --print-data-log" "$k s" "DumpLogSegments FAILED ($main)" "—" "≥ 20x"
    else
      row "dump-log --deep-iteration --print-data-log" "$k s" "DumpLogSegments (Kafka $version, JVM start included): $j s" \
        "${r}x" "≥ 20x: $(met "$r" 20)"
    fi
  else
    row "dump-log --deep-iteration --print-data-log" "$k s" "Kafka jars not found (oracle/setup)" "—" "≥ 20x"
  fi
fi
if want hex; then
  h=$(best "$rounds" $kseg dump-log --deep-iteration --json --threads 1 --encoding hex "$seg")
  b=$(best "$rounds" $kseg dump-log --deep-iteration --json --threads 1 --encoding base64 "$seg")
  r=$(ratio "$b" "$h")
  row "--encoding hex (--threads 1)" "$h s" "--encoding base64: $b s" "${r}x" "≥ 0.8x: $(met "$r" 0.8)"
fi
if want codecs; then
  for c in gzip snappy lz4 zstd; do
    p="$dir/codec-$c/orders-0"
    segment "$p" $((mib / 4)) "$c"
    f="$p/00000000000000000000.log"
    d=$(best_inner "$rounds" $bin/examples/deep_decode "$f")
    o=$(best_inner "$rounds" $bin/examples/deep_decode --codec-only "$f")
    r=$(ratio "$o" "$d")
    row "$c deep decode ($(stat -c %s "$f") bytes)" "$d s" "$c alone decompressing the batches: $o s" \
      "${r}x" "≥ 0.8x: $(met "$r" 0.8)"
    # grep's byte pass over the decompressed records (a value found nowhere: every batch ruled out).
    # shellcheck disable=SC2086
    g=$(best "$rounds" $kseg grep -F -c kseg-bench-absent --threads 1 "$f")
    r=$(ratio "$o" "$g")
    row "grep -F over $c batches (--threads 1)" "$g s" "$c alone decompressing the batches: $o s" \
      "${r}x" "≥ 0.8x: $(met "$r" 0.8)"
  done
fi
if want threads; then
  many="$dir/many"
  per=$(( (mib + 199) / 200 ))
  for i in $(seq 0 199); do segment "$many/t$((i % 20))-$((i / 20))" "$per" none; done
  for cmd in "dump-log --deep-iteration --json" "verify-index --json"; do
    # shellcheck disable=SC2086
    one=$(best "$rounds" $kseg $cmd --threads 1 "$many")
    # shellcheck disable=SC2086
    two=$(best "$rounds" $kseg $cmd --threads 2 "$many")
    # shellcheck disable=SC2086
    same=$(cmp -s <($kseg $cmd --threads 1 "$many") <($kseg $cmd --threads 2 "$many") && echo identical || echo DIFFERENT)
    r=$(ratio "$one" "$two")
    row "${cmd%% *} --threads 2, 200 partitions ($((per * 200)) MiB)" "$two s" "--threads 1: $one s" \
      "${r}x, output $same" "≥ 1.7x: $(met "$r" 1.7)"
  done
fi
if want grep; then
  # kseg grep (issue 24): a fixed string found nowhere (every record searched) over the
  # uncompressed segment, against dumping it to ripgrep and against ripgrep over the raw bytes
  # (-a: the .log searched as text, ignoring record structure: the practical limit).
  needle=kseg-needle-found-nowhere
  rg=${RG:-$(command -v rg || true)}
  k1=$(best "$rounds" $kseg grep --threads 1 -F "$needle" "$big")
  if [[ -n $rg ]]; then
    pipe=$(best "$rounds" sh -c "$kseg dump-log --deep-iteration --json --threads 1 '$seg' | '$rg' -F '$needle'")
    raw=$(best "$rounds" "$rg" -a -F "$needle" "$seg")
    r=$(ratio "$pipe" "$k1")
    row "grep -F over $mib MiB uncompressed (--threads 1)" "$k1 s ($(mbs "$bytes" "$k1") MB/s)" \
      "dump-log --deep-iteration --json --threads 1 | rg -F: $pipe s" "${r}x" "≥ 5x: $(met "$r" 5)"
    r=$(ratio "$raw" "$k1")
    row "the same" "$k1 s" "rg -a -F over the raw .log: $raw s" "${r}x" "≥ 0.5x: $(met "$r" 0.5)"
  else
    row "grep -F over $mib MiB uncompressed (--threads 1)" "$k1 s" "ripgrep not found (RG=...)" "—" "≥ 5x"
  fi
  k2=$(best "$rounds" $kseg grep --threads 2 -F "$needle" "$big")
  same=$(cmp -s <($kseg grep --threads 1 -F '"order":77,' "$big") <($kseg grep --threads 2 -F '"order":77,' "$big") && echo identical || echo DIFFERENT)
  r=$(ratio "$k1" "$k2")
  row "grep -F --threads 2, one $mib MiB segment (pieces of 32 MiB)" "$k2 s" "--threads 1: $k1 s" \
    "${r}x, output $same" "≥ 1.7x: $(met "$r" 1.7)"
fi
if want verify; then
  k=$(best "$rounds" $kseg verify-index --threads 1 "$big")
  c=$(best "$rounds" $bin/examples/crc_pass "$seg")
  r=$(ratio "$c" "$k")
  row "verify-index over $mib MiB (--threads 1)" "$k s" "bare CRC-32C pass (examples/crc_pass): $c s" \
    "${r}x" "≥ 0.9x: $(met "$r" 0.9)"
fi
if want rss; then
  huge="$dir/rss"
  per=$(( rss_gib * 1024 / 200 ))
  for i in $(seq 0 199); do segment "$huge/t$((i % 20))-$((i / 20))" "$per" none; done
  # and a __consumer_offsets partition for `groups` (1,000,000 offset commits, 69 MB)
  [[ -d $huge/__consumer_offsets-0 ]] || $bin/examples/gen_commits "$huge" 1000000 > /dev/null 2>&1
  worst=0 wc=""
  for cmd in "dump-log" "dump-log --deep-iteration --json" "dump-log --deep-iteration --print-data-log" \
    "summary" "verify-index" "transactions" "groups"; do
    # shellcheck disable=SC2086
    best 1 $kseg $cmd "$huge" > /dev/null 2>&1
    echo "  $cmd: peak RSS $((rss / 1024)) MiB" >&2
    (( rss > worst )) && worst=$rss && wc=$cmd
  done
  p="$huge/t0-0"
  best 1 $kseg lookup "$p" --timestamp 1717000000500 > /dev/null 2>&1
  echo "  lookup: peak RSS $((rss / 1024)) MiB" >&2
  (( rss > worst )) && worst=$rss && wc=lookup
  rm -rf "$dir/recovered"
  best 1 $kseg recover "$p" --out "$dir/recovered/t0-0" > /dev/null 2>&1
  echo "  recover: peak RSS $((rss / 1024)) MiB" >&2
  (( rss > worst )) && worst=$rss && wc=recover
  rm -rf "$dir/recovered"
  row "peak RSS, every command, ${rss_gib} GiB in 200 partitions" "$((worst / 1024)) MiB ($wc)" "—" "—" \
    "≤ 64 MiB: $( ((worst <= 65536)) && echo met || echo missed)"
fi
if want groups; then
  # 1,000,000 groups with one committed offset each, spread by partitionFor over 50
  # __consumer_offsets partitions (70 MB), and the 10 topics' partitions absent (every row is
  # partition-not-on-disk): the state and the table are what is measured.
  g="$dir/groups-1m"
  [[ -d $g/__consumer_offsets-49 ]] || $bin/examples/gen_commits "$g" 1000000 1000000 50 > /dev/null 2>&1
  cat "$g"/__consumer_offsets-*/*.log > /dev/null
  for out in "" "--json"; do
    # (best runs in a subshell here: its peak RSS is read from the file it leaves)
    one=$(best 1 $kseg groups --threads 1 $out "$g"); r1=$(tail -1 "$dir/.rss")
    two=$(best 1 $kseg groups --threads 2 $out "$g"); r2=$(tail -1 "$dir/.rss")
    row "groups ${out:-(text)} over 1 M groups, 50 partitions, --threads 2" "$two s, $((r2 / 1024)) MiB" \
      "--threads 1: $one s, $((r1 / 1024)) MiB" "$(ratio "$one" "$two")x" "RSS < 1 GiB: $( ((r2 < 1048576)) && echo met || echo missed)"
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo
echo "| figure | kseg | reference in the same run | ratio | goal |"
echo "|---|---|---|---|---|"
printf '%s\n' "${table[@]}"
