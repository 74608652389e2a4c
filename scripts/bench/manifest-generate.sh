#!/usr/bin/env bash
# Whole-process `bosun manifest generate` vs `istioctl manifest generate`, per profile (default
# demo ambient unless given), alternated RUNS times (default 20) in one run. Prints each tool's
# median wall time, the median of the per-pair ratios istioctl/bosun and each tool's median peak
# RSS (getrusage of the child), and checks the outputs are byte-identical.
# Usage: scripts/bench/manifest-generate.sh [RUNS] [PROFILE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-20}"; shift $(( $# > 0 ? 1 : 0 ))
profiles=("$@"); [ ${#profiles[@]} -gt 0 ] || profiles=(default demo ambient)
istioctl_bin="$(scripts/fetch-istioctl)"
cargo build --release -q -p bosun
# Both tools run as installed copies (see scripts/bench/install-copies).
bin_dir="$(mktemp -d)"; trap 'rm -rf "$bin_dir"' EXIT
scripts/bench/install-copies "$bin_dir" "$istioctl_bin" target/release/bosun
python3 - "$bin_dir/$(basename "$istioctl_bin")" "$bin_dir/bosun" "$runs" "${profiles[@]}" <<'PY'
import os, statistics, subprocess, sys, time
istioctl, bosun, runs, profiles = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    assert status == 0, f"{cmd} failed"
    return wall, usage.ru_maxrss, out  # ru_maxrss is in KiB on Linux
print("| profile | istioctl median | bosun median | median of ratios | istioctl peak RSS | bosun peak RSS |")
print("|---|---|---|---|---|---|")
for profile in profiles:
    args = ["manifest", "generate", "--set", f"profile={profile}"]
    ti, tb, ri, rb, ratios = [], [], [], [], []
    for _ in range(runs):
        a, ma, oi = run([istioctl, *args])
        b, mb, ob = run([bosun, *args])
        assert oi == ob, f"{profile}: outputs differ"
        ti.append(a); tb.append(b); ri.append(ma); rb.append(mb); ratios.append(a / b)
    med = statistics.median
    print(f"| {profile} | {med(ti)*1e3:.1f} ms | {med(tb)*1e3:.1f} ms | {med(ratios):.1f}x "
          f"| {med(ri)/1024:.1f} MiB | {med(rb)/1024:.1f} MiB |", flush=True)
print(f"({runs} alternated pairs per profile, outputs byte-identical)")
PY
