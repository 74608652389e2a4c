#!/usr/bin/env bash
# Whole-process `bosun helm template` vs `helm template` on one chart, alternated RUNS times
# (default 30); prints each tool's median wall time and the median of the per-pair ratios, and
# checks the outputs are identical. Also times the floor: one process (`cat`) that reads every
# file of the chart and writes the output, alternated with the others, and bosun's ratio to it.
# Usage: scripts/bench/helm-template.sh [CHART_DIR] [RUNS] [extra flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
chart="${1:-examples/charts/hello}"; runs="${2:-30}"; shift $(( $# > 2 ? 2 : $# )) || true
helm_bin="$(scripts/fetch-helm)"
cargo build --release -q -p bosun
# Both tools run as installed copies (see scripts/bench/install-copies).
bin_dir="$(mktemp -d)"; trap 'rm -rf "$bin_dir"' EXIT
scripts/bench/install-copies "$bin_dir" "$helm_bin" target/release/bosun
python3 - "$bin_dir/$(basename "$helm_bin")" "$bin_dir/bosun" "$chart" "$runs" "$@" <<'PY'
import os, statistics, subprocess, sys, tempfile, time
helm, bosun, chart, runs, extra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(chart) for f in fs)
def run(cmd):
    t = time.perf_counter(); out = subprocess.run(cmd, capture_output=True, check=True).stdout
    return time.perf_counter() - t, out
out_file = tempfile.NamedTemporaryFile(delete=False)
th, tb, tf, ratios, floor_ratios = [], [], [], [], []
for _ in range(runs):
    a, oh = run([helm, "template", "bench", chart, *extra])
    b, ob = run([bosun, "helm", "template", "bench", chart, *extra])
    assert oh == ob, "outputs differ"
    out_file.seek(0); out_file.truncate(); out_file.write(ob); out_file.flush()
    c, _ = run(["cat", *files, out_file.name])
    th.append(a); tb.append(b); tf.append(c); ratios.append(a / b); floor_ratios.append(b / c)
os.unlink(out_file.name)
print(f"{chart}: helm median {statistics.median(th)*1e3:.1f} ms, bosun median {statistics.median(tb)*1e3:.1f} ms, "
      f"median ratio helm/bosun {statistics.median(ratios):.1f}x over {runs} alternated pairs (outputs identical); "
      f"read+write floor median {statistics.median(tf)*1e3:.1f} ms, bosun/floor {statistics.median(floor_ratios):.2f}x")
PY
