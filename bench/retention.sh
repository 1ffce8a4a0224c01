#!/usr/bin/env bash
# `kseg retention` over a log dir of N segments (issue 40): CPU time (user + system, GNU time)
# and peak RSS, against `find -printf` stat-ing every file of the same dir in the same run (the
# floor of any answer from file metadata), and the bytes read from `.log` files, counted by
# strace outside kseg (every read/pread64 on a descriptor opened on a *.log).
#
#   bench/retention.sh                 # 10,000 segments
#   SEGMENTS="10000 100000" bench/retention.sh
#
# Data is generated (never committed) under $BENCH_DIR (default /tmp/kseg-retention) by the
# `gen_scaling` example: 100 partitions, 30% of each one's segments expired at --now.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/kseg-retention}
segments=${SEGMENTS:-10000}
runs=${RUNS:-5}
now=1767225600000
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
command -v strace >/dev/null || { echo "needs strace (apt-get install strace)" >&2; exit 1; }

cargo build --release --quiet --no-default-features --bin kseg --example gen_scaling
kseg=target/release/kseg
gen=target/release/examples/gen_scaling

# CPU seconds (user + system), wall seconds and peak RSS of the best of $runs runs.
best() {
  local out best_cpu="" line
  out=$(mktemp)
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S %e %M' -o "$out" "$@" >/dev/null 2>&1 || true
    line=$(tail -1 "$out")
    read -r u s e m <<<"$line"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
    if [[ -z "$best_cpu" ]] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a<b)}'; then
      best_cpu=$cpu
      best_line="$cpu s CPU ($e s wall, $((m / 1024)) MiB)"
    fi
  done
  rm -f "$out"
  echo "$best_line"
}

# Bytes read from *.log files by the command, from strace's log of openat/read/pread64.
log_bytes() {
  local trace
  trace=$(mktemp)
  strace -f -qq -e trace=openat,read,pread64,close -o "$trace" "$@" >/dev/null 2>&1 || true
  python3 - "$trace" <<'PY'
import re, sys
# One process: descriptors are shared by its threads. strace splits a call another thread
# interrupts into "<unfinished ...>" and "<... resumed>" lines: joined here per thread.
pending, fds, total = {}, {}, 0
for line in open(sys.argv[1]):
    tid, _, call = line.rstrip("\n").partition(" ")
    if call.endswith("<unfinished ...>"):
        pending[tid] = call[: -len("<unfinished ...>")]
        continue
    m = re.match(r"<\.\.\. \w+ resumed>(.*)", call)
    if m:
        call = pending.pop(tid, "") + m.group(1)
    m = re.match(r'openat\(.*"([^"]*)", .*\) = (\d+)$', call)
    if m:
        fds[m.group(2)] = m.group(1).endswith(".log")
        continue
    m = re.match(r"close\((\d+)\)", call)
    if m:
        fds.pop(m.group(1), None)
        continue
    m = re.match(r"(?:pread64|read)\((\d+),.*\) = (\d+)$", call)
    if m and fds.get(m.group(1)):
        total += int(m.group(2))
print(total)
PY
  rm -f "$trace"
}

echo "| segments | kseg retention | find -printf over the same dir | ratio | .log bytes read (strace) |"
echo "|---|---|---|---|---|"
for n in $segments; do
  d="$dir/segments-$n"
  [[ -d "$d" ]] || "$gen" retention "$d" "$n"
  k=$(best "$kseg" retention --json --now "$now" --threads 1 "$d")
  f=$(best find "$d" -type f -printf '%s %T@\n')
  ratio=$(awk -v a="${k%% *}" -v b="${f%% *}" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "-" }')
  bytes=$(log_bytes "$kseg" retention --json --now "$now" --threads 1 "$d")
  echo "| $n | $k | $f | $ratio | $bytes |"
done
