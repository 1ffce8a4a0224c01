#!/usr/bin/env bash
# Issue 26's scaling rows, before and after: two kseg binaries on the same generated data in
# the same run. Wall time and peak RSS (GNU time's "Maximum resident set size") per command;
# a run that passes $LIMIT seconds is stopped and shown as ">LIMIT".
#
#   bench/scaling.sh BEFORE_BIN AFTER_BIN
#   SEGMENTS="2500 10000 100000" PARTITIONS="1000 5000" MEMBERS="1000 40000" LIMIT=600 \
#     bench/scaling.sh /tmp/kseg-before target/release/kseg
#
# BEFORE_BIN is a kseg built from the commit before the issue-26 fixes (34c137a^:
# `git worktree add /tmp/before 34c137a^ && cargo build --release --no-default-features`).
# Data is generated (never committed) under $BENCH_DIR (default /tmp/kseg-scaling) by the
# `gen_scaling` example, and reused on later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
before=$(realpath "$1")
after=$(realpath "$2")
dir=${BENCH_DIR:-/tmp/kseg-scaling}
limit=${LIMIT:-600}
segments=${SEGMENTS:-2500 10000 100000}
partitions=${PARTITIONS:-1000 5000}
members=${MEMBERS:-1000 40000}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }

cargo build --release --quiet --no-default-features --example gen_scaling
gen=target/release/examples/gen_scaling
mkdir -p "$dir"

# One measurement: "SECONDS s, RSS MiB" or ">LIMIT s".
measure() {
  local out
  out=$(mktemp)
  if /usr/bin/time -f '%e %M' -o "$out" timeout "$limit" "$@" >/dev/null 2>&1 || true; then :; fi
  local secs rss
  read -r secs rss < <(tail -1 "$out")
  rm -f "$out"
  if [[ -z "${secs:-}" ]] || awk -v s="$secs" -v l="$limit" 'BEGIN{exit !(s>=l)}'; then
    echo ">${limit} s"
  else
    echo "${secs} s, $((rss / 1024)) MiB"
  fi
}

row() { # LABEL COMMAND...: the command with each binary
  local label=$1
  shift
  local b a
  # recover writes its copy here: each binary starts without one.
  rm -rf "$dir/recovered"
  b=$(measure "$before" "$@")
  rm -rf "$dir/recovered"
  a=$(measure "$after" "$@")
  printf '| %s | %s | %s |\n' "$label" "$b" "$a"
}

echo "| command | before (34c137a^) | after |"
echo "|---|---|---|"
for n in $segments; do
  p="$dir/segments-$n/orders-0"
  [[ -d "$p" ]] || "$gen" segments "$p" "$n"
  row "verify-index, $n one-batch segments" verify-index "$p"
  row "recover, $n segments" recover "$p" --out "$dir/recovered"
  row "lookup --offset (last), $n segments" lookup "$p" --offset $((n - 1))
  row "dump-log --threads 2, $n segments" dump-log --threads 2 "$p"
done
for n in $partitions; do
  a="$dir/partitions-$n/a"
  b="$dir/partitions-$n/b"
  [[ -d "$a" ]] || { "$gen" partitions "$a" "$n"; "$gen" partitions "$b" "$n"; }
  row "diff, $n partitions × 2 replicas" diff --json "$a" "$b"
done
for n in $members; do
  g="$dir/members-$n"
  [[ -d "$g" ]] || "$gen" members "$g" "$n"
  row "groups --rebalances, a classic group of $n members over two generations" groups --rebalances --json "$g"
  row "groups (reference), the same dir" groups --json "$g"
  k="$dir/kip848-$n"
  [[ -d "$k" ]] || "$gen" kip848 "$k" "$n"
  row "groups --rebalances, a KIP-848 group of $n members" groups --rebalances --json "$k"
done
