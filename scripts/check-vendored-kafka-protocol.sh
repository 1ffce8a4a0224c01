#!/usr/bin/env bash
# The vendored kafka-protocol (vendor/kafka-protocol, used through [patch.crates-io]) must be the
# published crate plus exactly the changes in vendor/kafka-protocol.patch: fetches the pinned
# version from crates.io, diffs every file kept in vendor/ against it, and fails when that diff is
# not the committed patch. Run by .ci/run; `--write` regenerates the patch after a deliberate
# change (then say why in vendor/kafka-protocol/PATCHED.md).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' vendor/kafka-protocol/Cargo.toml | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
url="https://static.crates.io/crates/kafka-protocol/kafka-protocol-$version.crate"
if ! curl -sSfL "$url" | tar xz -C "$tmp"; then
  echo "check-vendored-kafka-protocol: cannot fetch $url" >&2
  exit 1
fi
upstream="$tmp/kafka-protocol-$version"
actual="$tmp/actual.patch"
(cd vendor/kafka-protocol && find . -type f ! -name PATCHED.md | LC_ALL=C sort) |
  while read -r f; do
    f=${f#./}
    diff -uN --label "a/$f" --label "b/$f" "$upstream/$f" "vendor/kafka-protocol/$f" || true
  done >"$actual"
if [[ "${1:-}" == --write ]]; then
  cp "$actual" vendor/kafka-protocol.patch
  echo "wrote vendor/kafka-protocol.patch ($(grep -c '^+++ ' "$actual") files changed)"
  exit 0
fi
if ! diff -u vendor/kafka-protocol.patch "$actual" >"$tmp/drift"; then
  echo "check-vendored-kafka-protocol: vendor/kafka-protocol is not kafka-protocol $version plus" >&2
  echo "vendor/kafka-protocol.patch; the difference:" >&2
  head -100 "$tmp/drift" >&2
  exit 1
fi
echo "vendor/kafka-protocol = kafka-protocol $version + vendor/kafka-protocol.patch ($(grep -c '^+++ ' "$actual") files)"
