#!/usr/bin/env bash
# Whole-process `bosun helm template` vs `helm template` on one chart, alternated RUNS times
# (default 30); prints each tool's median wall time and the median of the per-pair ratios, and
# checks the outputs are identical.
# Usage: scripts/bench/helm-template.sh [CHART_DIR] [RUNS] [extra flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
chart="${1:-examples/charts/hello}"; runs="${2:-30}"; shift $(( $# > 2 ? 2 : $# )) || true
helm_bin="$(scripts/fetch-helm)"
cargo build --release -q -p bosun
python3 - "$helm_bin" target/release/bosun "$chart" "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time
helm, bosun, chart, runs, extra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
def run(cmd):
    t = time.perf_counter(); out = subprocess.run(cmd, capture_output=True, check=True).stdout
    return time.perf_counter() - t, out
th, tb, ratios = [], [], []
for _ in range(runs):
    a, oh = run([helm, "template", "bench", chart, *extra])
    b, ob = run([bosun, "helm", "template", "bench", chart, *extra])
    assert oh == ob, "outputs differ"
    th.append(a); tb.append(b); ratios.append(a / b)
print(f"{chart}: helm median {statistics.median(th)*1e3:.1f} ms, bosun median {statistics.median(tb)*1e3:.1f} ms, "
      f"median ratio helm/bosun {statistics.median(ratios):.1f}x over {runs} alternated pairs (outputs identical)")
PY
