#!/usr/bin/env bash
# `bosun operator run`'s memory on the test control plane: VmRSS idle (3 s after the controller
# started), then after 10 reconciles each of a default-profile and an ambient-profile
# IstioOperator (each reconcile a new generation: a changed `values.pilot.env` entry, so every
# one renders and applies) — 3 s after the last, and again 95 s after it, once the HTTP client
# has closed the connections its pool kept (90 s idle) —, then after both are uninstalled;
# VmHWM (the peak) at the end. Each as VmRSS (RssAnon + RssFile: the process's own memory, and
# the pages of the bosun binary and libraries it has mapped, shared with the page cache).
# Pass `--render inline` as BOSUN_BENCH_RUN_FLAGS to render inside the operator's process.
# The operator runs with the allocator settings of its Deployment (`bosun operator dump`), from
# the release build stripped as scripts/build-operator-image strips it, which is what the image
# runs (or BOSUN_BENCH_BINARY, as it is). Needs kubectl.
# Usage: scripts/bench/operator-memory.sh [RECONCILES]
set -euo pipefail
export MIMALLOC_ARENA_EAGER_COMMIT=0 MIMALLOC_PURGE_DELAY=0
cd "$(dirname "$0")/../.."
reconciles="${1:-10}"
if [ -z "${BOSUN_BENCH_BINARY:-}" ]; then
  cargo build --release -q -p bosun
  BOSUN_BENCH_BINARY="$(mktemp "${TMPDIR:-/tmp}/bosun-bench-XXXXXX")"
  trap 'rm -f "$BOSUN_BENCH_BINARY"' EXIT
  strip -o "$BOSUN_BENCH_BINARY" "${CARGO_TARGET_DIR:-target}/release/bosun"
fi
manifests="$(scripts/fetch-istio)/manifests"
eval "$(scripts/testenv up)"
"$BOSUN_BENCH_BINARY" operator init --operator-namespace bosun-bench >/dev/null
python3 - "$BOSUN_BENCH_BINARY" "$manifests" "$reconciles" <<'PY'
import json, os, subprocess, sys, tempfile, time
bosun, manifests, reconciles = sys.argv[1], sys.argv[2], int(sys.argv[3])
tag = f"{os.getpid()}"
iop_ns = f"bench-mem-{tag}"
subprocess.run(["kubectl", "create", "namespace", iop_ns], check=True, stdout=subprocess.DEVNULL)
log = tempfile.NamedTemporaryFile(prefix="bosun-operator-mem-", suffix=".log", delete=False)
extra = os.environ.get("BOSUN_BENCH_RUN_FLAGS", "").split()
op = subprocess.Popen([bosun, "operator", "run", "--watch-namespace", iop_ns, "--manifests", manifests,
                       "--metrics-addr", "127.0.0.1:0", *extra], stdout=subprocess.DEVNULL, stderr=log)
def status(field):
    for line in open(f"/proc/{op.pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
def rss():
    return f"{status('VmRSS'):.1f} ({status('RssAnon'):.1f} + {status('RssFile'):.1f})"
def log_text():
    return open(log.name).read()
def wait_log(needle, timeout=180):
    t0 = time.time()
    while needle not in log_text():
        assert time.time() - t0 < timeout and op.poll() is None, log_text()
        time.sleep(0.05)
def kubectl(*args, input=None):
    subprocess.run(["kubectl", *args], input=input, check=True, stdout=subprocess.DEVNULL)
profiles = ["default", "ambient"]
try:
    wait_log("controller started")
    time.sleep(3)
    idle = rss()
    for p in profiles:
        iop = {"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
               "metadata": {"name": p, "namespace": iop_ns},
               "spec": {"profile": p, "values": {"global": {"istioNamespace": f"bench-{p}-{tag}"}}}}
        kubectl("create", "-f", "-", input=json.dumps(iop).encode())
    for p in profiles:
        wait_log(f"msg=reconciled iop={iop_ns}/{p} generation=1 ")
    for i in range(reconciles):
        for p in profiles:
            patch = {"spec": {"values": {"pilot": {"env": {"BENCH_RUN": str(i)}}}}}
            kubectl("-n", iop_ns, "patch", "istiooperator", p, "--type=merge", "-p", json.dumps(patch))
        for p in profiles:
            wait_log(f"msg=reconciled iop={iop_ns}/{p} generation={i + 2} ")
    time.sleep(3)
    after = rss()
    time.sleep(92)
    after_idle = rss()
    for p in profiles:
        kubectl("-n", iop_ns, "delete", "istiooperator", p, "--wait=false")
    for p in profiles:
        wait_log(f"msg=uninstalled iop={iop_ns}/{p} ")
    time.sleep(3)
    uninstalled, peak = rss(), status("VmHWM")
    print(f"MiB: idle | {reconciles} reconciles of default and ambient, 3 s after | 95 s after | after uninstalling both | peak (VmHWM)")
    print(f"| {idle} | {after} | {after_idle} | {uninstalled} | {peak:.1f} |")
finally:
    op.terminate(); op.wait()
    os.unlink(log.name)
    subprocess.run(["kubectl", "delete", "namespace", iop_ns, "--wait=false"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
PY
