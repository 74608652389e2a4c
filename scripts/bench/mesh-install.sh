#!/usr/bin/env bash
# `bosun mesh install` of two living clusters against one single-cluster `bosun install` of the
# same profile (issue 32's goal: the mesh within 1.3x of the single install). Both install the
# minimal profile with the images built for the living clusters and wait, as they do by
# default, until istiod is Ready; the mesh also creates each cluster's `cacerts` from a CA made
# once beforehand (`bosun mesh ca`, not timed) and exchanges the remote secrets.
#
# RUNS rounds (default 3); each round runs both, in alternating order (the mesh first in odd
# rounds, the single install first in even ones). Before every run both clusters are reset:
# `bosun uninstall --purge -y` on each, then `cacerts`, the remote secrets and the reader's
# token Secrets deleted (what the mesh adds that uninstall leaves), and the script waits until
# istio-system has no pod left and no CRD is still being deleted in either cluster. The single
# install goes into the first cluster only; both clusters are reset around it all the same, so
# it shares the machine with an idle second cluster, as the mesh does.
#
# Each mesh run's progress lines are timestamped as they arrive: the stderr log shows, per
# cluster, when istiod was installed and when each remote secret was applied.
#
# The clusters: two living clusters already up, their kubeconfigs in BOSUN_LIVING_KUBECONFIG and
# BOSUN_LIVING2_KUBECONFIG (scripts/testenv up --living --name A; … --name B); BOSUN_LOCAL_HUB
# and BOSUN_LOCAL_TAG as `scripts/testenv up --living` prints them. The release build of the
# checkout is measured, or the binary BOSUN_BIN names (built before, not rebuilt).
# Usage: scripts/bench/mesh-install.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"
: "${BOSUN_LIVING_KUBECONFIG:?the first living cluster's kubeconfig}"
: "${BOSUN_LIVING2_KUBECONFIG:?the second living cluster's kubeconfig}"
: "${BOSUN_LOCAL_HUB:?the living clusters' image hub (scripts/testenv up --living prints it)}"
: "${BOSUN_LOCAL_TAG:?the living clusters' image tag}"
if [ -z "${BOSUN_BIN:-}" ]; then
  cargo build --release -q --locked -p bosun
  BOSUN_BIN="${CARGO_TARGET_DIR:-target}/release/bosun"
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
scripts/bench/install-copies "$bin" "$BOSUN_BIN"
manifests="$(scripts/fetch-istio)/manifests"
kubectl="$(scripts/testenv build --living)/kubectl"

python3 - "$bin/bosun" "$manifests" "$kubectl" "$runs" "$bin" <<'PY'
import os, statistics, subprocess, sys, time
bosun, manifests, kubectl, runs, work = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
configs = [os.environ["BOSUN_LIVING_KUBECONFIG"], os.environ["BOSUN_LIVING2_KUBECONFIG"]]

def context(config):
    for line in open(config):
        if line.startswith("current-context:"):
            return line.split(":", 1)[1].strip().strip('"')
    sys.exit(f"{config} has no current-context")

contexts = [context(c) for c in configs]
merged = ":".join(configs)
common = ["--set", "profile=minimal", "--set", f"hub={os.environ['BOSUN_LOCAL_HUB']}",
          "--set", f"tag={os.environ['BOSUN_LOCAL_TAG']}", "-d", manifests, "-y"]
ca = os.path.join(work, "ca")

def run(config, *args, check=True):
    p = subprocess.run([bosun, *args], capture_output=True, text=True,
                       env={**os.environ, "KUBECONFIG": config})
    if check and p.returncode != 0:
        sys.exit(f"bosun {' '.join(args)} failed:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return p

def kc(config, *args, check=True):
    return subprocess.run([kubectl, "--kubeconfig", config, *args], check=check,
                          capture_output=True, text=True).stdout

def clean():
    for config in configs:
        run(config, "uninstall", "--purge", "-y")
        secrets = kc(config, "get", "secrets", "-n", "istio-system", "-o", "name", check=False).split()
        mesh = [s for s in secrets if s == "secret/cacerts" or s.startswith("secret/istio-remote-secret-")
                or "-istio-remote-secret-token" in s]
        if mesh:
            kc(config, "delete", "-n", "istio-system", "--wait=false", *mesh)
    deadline = time.time() + 180
    while time.time() < deadline:
        busy = False
        for config in configs:
            pods = kc(config, "get", "pods", "-n", "istio-system", "-o", "name")
            deleting = kc(config, "get", "crd", "-o",
                          "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name} {end}")
            busy = busy or bool(pods.strip() or deleting.strip())
        if not busy:
            time.sleep(2)  # let the controllers' own writes settle
            return
        time.sleep(0.5)
    sys.exit("the previous install was not gone within 180s (pods, or CRDs being deleted)")

def istiod_ready(config, what):
    ready = kc(config, "get", "deploy", "istiod", "-n", "istio-system", "-o", "jsonpath={.status.readyReplicas}")
    if ready != "1":
        sys.exit(f"{what} returned, but istiod in {config} has {ready!r} ready replicas")

def single():
    t = time.perf_counter()
    run(configs[0], "install", *common)
    wall = time.perf_counter() - t
    istiod_ready(configs[0], "install")
    return wall, []

def mesh():
    args = [bosun, "mesh", "install", "--context", contexts[0], "--context", contexts[1], "--ca", ca, *common]
    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env={**os.environ, "KUBECONFIG": merged})
    lines = [(time.perf_counter() - t, line.rstrip("\n")) for line in p.stdout]
    p.wait()
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("mesh install failed:\n" + "\n".join(l for _, l in lines[-40:]))
    for config in configs:
        istiod_ready(config, "mesh install")
    return wall, lines

run(merged, "mesh", "ca", *[a for c in contexts for a in ("--cluster", c)], "--out", ca)
results = {"mesh": [], "single": []}
timelines = []
for r in range(runs):
    order = ["mesh", "single"] if r % 2 == 0 else ["single", "mesh"]
    for what in order:
        clean()
        wall, lines = mesh() if what == "mesh" else single()
        results[what].append(wall)
        print(f"round {r + 1} {what}: {wall * 1e3:.0f} ms", file=sys.stderr, flush=True)
        if lines:
            timelines.append((wall, lines))
            for at, line in lines:
                print(f"  {at * 1e3:7.0f} ms  {line}", file=sys.stderr)
clean()

print("| run | wall time to istiod Ready, median (min–max) |")
print("|---|---|")
for what, label in (("single", f"`install`, 1 cluster ({contexts[0]})"),
                    ("mesh", f"`mesh install`, 2 clusters ({', '.join(contexts)})")):
    walls = sorted(results[what])
    print(f"| {label} | {statistics.median(walls) * 1e3:.0f} ms ({walls[0] * 1e3:.0f}–{walls[-1] * 1e3:.0f}) |")
ratio_median = statistics.median(results["mesh"]) / statistics.median(results["single"])
ratio_min = min(results["mesh"]) / min(results["single"])
print(f"mesh / single: {ratio_median:.2f}x (medians), {ratio_min:.2f}x (minimums); {runs} alternated rounds")
PY
