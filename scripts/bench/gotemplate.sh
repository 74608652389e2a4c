#!/usr/bin/env bash
# Parse+execute of a large template: bosun's gotemplate vs Go's text/template, alternated
# ROUNDS times (default 3), each run printing its own medians. Also checks both produce the
# same output bytes. Usage: scripts/bench/gotemplate.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
cargo build --release -p gotemplate --bench large_template >/dev/null 2>&1 || cargo bench -p gotemplate --bench large_template --no-run
bench_bin=$(ls -t target/release/deps/large_template-* | grep -v '\.d$' | head -1)
go_bin="${BOSUN_CACHE:-$HOME/.cache/bosun}/bench/gotemplate-go"
mkdir -p "$(dirname "$go_bin")"
(cd scripts/bench/gotemplate && go build -o "$go_bin" .)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  BENCH_OUTPUT="$tmp/rust.out" "$bench_bin"
  BENCH_OUTPUT="$tmp/go.out" "$go_bin"
done
if cmp -s "$tmp/rust.out" "$tmp/go.out"; then echo "outputs identical ($(wc -c < "$tmp/go.out") bytes)"; else echo "OUTPUTS DIFFER"; exit 1; fi
