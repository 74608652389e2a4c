#!/usr/bin/env bash
# `bosun operator run` on the test control plane: idle memory (VmRSS once started, and again
# after the runs), and the time from creating an IstioOperator (minimal profile, a new Istio
# namespace each run) to the end of the reconcile that applied it (the operator's own
# `msg=reconciled` log line, with its timestamp), against the wall time of `bosun install
# --no-wait` of the same input into another new namespace. Alternated RUNS times (default 5).
# The operator runs with the allocator settings its Deployment sets (`bosun operator dump`);
# pass BOSUN_BENCH_DEFAULT_ALLOCATOR=1 to measure mimalloc's defaults instead.
# Usage: scripts/bench/operator.sh [RUNS]
set -euo pipefail
if [ -z "${BOSUN_BENCH_DEFAULT_ALLOCATOR:-}" ]; then
  export MIMALLOC_ARENA_EAGER_COMMIT=0 MIMALLOC_PURGE_DELAY=0
fi
cd "$(dirname "$0")/../.."
runs="${1:-5}"
cargo build --release -q -p bosun
manifests="$(scripts/fetch-istio)/manifests"
eval "$(scripts/testenv up)"
target/release/bosun operator init --operator-namespace bosun-bench >/dev/null
python3 - target/release/bosun "$manifests" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time
bosun, manifests, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
tag = f"{os.getpid()}"
iop_ns = f"bench-iop-{tag}"
subprocess.run(["kubectl", "create", "namespace", iop_ns], check=True, stdout=subprocess.DEVNULL)
log = tempfile.NamedTemporaryFile(prefix="bosun-operator-bench-", suffix=".log", delete=False)
op = subprocess.Popen([bosun, "operator", "run", "--watch-namespace", iop_ns, "--manifests", manifests,
                       "--metrics-addr", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=log)
def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
def log_text():
    return open(log.name).read()
try:
    deadline = time.time() + 60
    while "controller started" not in log_text():
        assert time.time() < deadline and op.poll() is None, log_text()
        time.sleep(0.05)
    time.sleep(3)
    idle_start = rss_mib(op.pid)
    t_op, t_install = [], []
    for i in range(runs):
        name, istio_ns = f"run-{i}", f"bench-op-{tag}-{i}"
        iop = {"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
               "metadata": {"name": name, "namespace": iop_ns},
               "spec": {"profile": "minimal", "values": {"global": {"istioNamespace": istio_ns}}}}
        t0 = time.time()
        subprocess.run(["kubectl", "create", "-f", "-"], input=json.dumps(iop).encode(), check=True,
                       stdout=subprocess.DEVNULL)
        needle = f"msg=reconciled iop={iop_ns}/{name} "
        while True:
            line = next((l for l in log_text().splitlines() if needle in l), None)
            if line:
                t_op.append(float(line.split()[0].removeprefix("ts=")) - t0)
                break
            assert time.time() - t0 < 120 and op.poll() is None, log_text()
            time.sleep(0.02)
        t = time.perf_counter()
        subprocess.run([bosun, "install", "--set", "profile=minimal", "--set",
                        f"values.global.istioNamespace=bench-inst-{tag}-{i}", "-y", "--no-wait",
                        "--manifests", manifests], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        t_install.append(time.perf_counter() - t)
    time.sleep(3)
    idle_after = rss_mib(op.pid)
    for i in range(runs):
        subprocess.run(["kubectl", "-n", iop_ns, "delete", "istiooperator", f"run-{i}", "--wait=false"],
                       check=True, stdout=subprocess.DEVNULL)
    ms = lambda xs: f"{statistics.median(xs) * 1000:.0f} ms"
    print("| idle RSS at start | idle RSS after the runs | create → applied (median) | `install --no-wait` (median) |")
    print("|---|---|---|---|")
    print(f"| {idle_start:.1f} MiB | {idle_after:.1f} MiB | {ms(t_op)} | {ms(t_install)} |")
    print(f"create → applied, each run: {', '.join(f'{x*1000:.0f}' for x in t_op)} ms; "
          f"install: {', '.join(f'{x*1000:.0f}' for x in t_install)} ms", file=sys.stderr)
finally:
    time.sleep(2)
    op.terminate(); op.wait()
    os.unlink(log.name)
PY
