#!/usr/bin/env bash
# Whole-process `bosun helm template` (release build) vs `helm template` on the five largest
# charts of tests/charts-corpus, alternated RUNS times each (default 20): prints each tool's
# median wall time and the median of the per-pair ratios per chart, and checks the outputs are
# identical. It also prints each tool's median CPU time (user + system, all threads): on a
# machine shared with other work the wall times swing with the load, the CPU times much less.
# "Largest" is the sum of the sizes in bytes of all files under the case's `chart/` directory,
# vendored subcharts included; the script checks that `cases` holds exactly those five, so it
# fails when the corpus changes under it.
# Each chart runs with a variant whose values pin every random field (identical bytes); for
# cilium that is `hubble-certgen` (certificates from the certgen CronJob, not helm's genCA).
# Usage: scripts/bench/public-charts.sh [RUNS]; BOSUN=PATH times that binary instead of a
# fresh release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-20}"
corpus=tests/charts-corpus
cases=(
  "kube-prometheus-stack $corpus/kube-prometheus-stack/variants/ingress-thanos.yaml"
  "loki $corpus/loki/variants/simple-scalable-minio.yaml"
  "argo-cd -"
  "traefik -"
  "cilium $corpus/cilium/variants/hubble-certgen.yaml"
)
largest="$(for d in "$corpus"/*/chart; do
  printf '%s %s\n' "$(find "$d" -type f -printf '%s\n' | awk '{n += $1} END {print n}')" \
    "$(basename "$(dirname "$d")")"
done | sort -rn | head -5 | cut -d' ' -f2 | sort)"
listed="$(printf '%s\n' "${cases[@]}" | cut -d' ' -f1 | sort)"
if [ "$largest" != "$listed" ]; then
  echo "the five largest corpus charts are now:" $largest "- update cases" >&2
  exit 1
fi
helm_bin="$(scripts/fetch-helm)"
bosun_bin="${BOSUN:-target/release/bosun}"
[ -n "${BOSUN:-}" ] || nice -n 19 cargo build --release -q -p bosun
# Both tools run as installed copies (see scripts/bench/install-copies).
bin_dir="$(mktemp -d)"; trap 'rm -rf "$bin_dir"' EXIT
scripts/bench/install-copies "$bin_dir" "$helm_bin" "$bosun_bin"
python3 - "$bin_dir/$(basename "$helm_bin")" "$bin_dir/$(basename "$bosun_bin")" "$corpus" "$runs" "${cases[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time
helm, bosun, corpus, runs, cases = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
cpu = []
def run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter(); out = subprocess.run(cmd, capture_output=True, check=True).stdout
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return wall, out
print(f"load average before: {os.getloadavg()[0]:.2f}")
print(f"| chart | values | output | helm median | bosun median | median of helm/bosun ratios | CPU helm | CPU bosun | CPU ratio |")
print(f"|---|---|---|---|---|---|---|---|---|")
worst = None
for case in cases:
    name, values = case.split(" ", 1)
    args = ["template", "bench", f"{corpus}/{name}/chart"] + ([] if values == "-" else ["-f", values])
    th, tb, ratios, ch, cb = [], [], [], [], []
    for _ in range(runs):
        a, oh = run([helm, *args]); ch.append(cpu[-1])
        b, ob = run([bosun, "helm", *args]); cb.append(cpu[-1])
        assert oh == ob, f"{name}: outputs differ"
        th.append(a); tb.append(b); ratios.append(a / b)
    r = statistics.median(ratios)
    worst = r if worst is None else min(worst, r)
    v = "defaults" if values == "-" else values.rsplit("/", 1)[1]
    print(f"| {name} | {v} | {len(oh)/1024:.0f} KiB | {statistics.median(th)*1e3:.1f} ms | "
          f"{statistics.median(tb)*1e3:.1f} ms | {r:.1f}x | {statistics.median(ch)*1e3:.0f} ms | "
          f"{statistics.median(cb)*1e3:.0f} ms | {statistics.median(ch)/statistics.median(cb):.1f}x |", flush=True)
print(f"\n{runs} alternated pairs per chart, outputs identical; lowest wall-time ratio {worst:.1f}x; "
      f"load average after: {os.getloadavg()[0]:.2f}")
PY
