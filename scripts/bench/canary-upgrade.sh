#!/usr/bin/env bash
# The guided canary upgrade end to end on the living cluster: `bosun upgrade --canary --version
# <the pin> -y` from the older snapshot (scripts/fetch-istio --previous) installed as revision
# `old` with the default tag and a tag `prod`, NAMESPACES namespaces (default 2) each with one
# Deployment on `prod`: the setup of crates/bosun/tests/canary_procedure.rs (the workloads ask
# the injector for the pause image as the proxy, so injected pods run and the rollouts finish).
#
# RUNS rounds (default 3). Before each round the state is reset: `uninstall --purge -y`, the
# tags and the bench's namespaces removed, waited until istio-system has no pod and the
# namespaces are gone; then the old revision installed (waited for, as install waits), the tag
# set and the workloads created and Ready, injected by `old`. Only the upgrade is timed: the
# wall time, and each step's share from the time each progress line (`Step N/5: …`, `namespace
# …: rolled out`) reached the script. The pin is read from bosun's cache (`BOSUN_CACHE`, default
# ~/.cache/bosun, where scripts/fetch-istio puts it): no fetch is timed.
#
# Needs a living cluster: BOSUN_LIVING_KUBECONFIG and the BOSUN_LOCAL_* variables that
# `scripts/testenv up --living [--name N]` prints. Release build.
# Usage: scripts/bench/canary-upgrade.sh [RUNS] [NAMESPACES]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"
namespaces="${2:-2}"
: "${BOSUN_LIVING_KUBECONFIG:?set it (and BOSUN_LOCAL_*) from scripts/testenv up --living}"
: "${BOSUN_LOCAL_HUB:?}" "${BOSUN_LOCAL_TAG:?}" "${BOSUN_LOCAL_PAUSE:?}"
old_charts="$(scripts/fetch-istio --previous)/manifests"
scripts/fetch-istio >/dev/null # the pin, in bosun's cache
. scripts/istio-pin
if [ -z "${BOSUN:-}" ]; then # BOSUN=path times that binary instead of a release build
  cargo build --release -q --locked -p bosun
  BOSUN="${CARGO_TARGET_DIR:-target}/release/bosun" # cargo's target dir, CARGO_TARGET_DIR included
fi
bosun="$BOSUN"
kubectl="$(scripts/testenv build --living)/kubectl"

python3 - "$bosun" "$kubectl" "$old_charts" "$ISTIO_VERSION" "$runs" "$namespaces" <<'PY'
import json, os, statistics, subprocess, sys, time
bosun, kubectl, old_charts, pin, runs, count = sys.argv[1:5] + [int(a) for a in sys.argv[5:7]]
env = dict(os.environ, KUBECONFIG=os.environ["BOSUN_LIVING_KUBECONFIG"])
images = ["--set", "profile=minimal", "--set", f"hub={env['BOSUN_LOCAL_HUB']}",
          "--set", f"tag={env['BOSUN_LOCAL_TAG']}"]
pause = env["BOSUN_LOCAL_PAUSE"]
names = [f"bench-canary-{i}" for i in range(count)]

def sh(*cmd, input=None):
    p = subprocess.run(cmd, env=env, input=input, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout

def kc(*args, input=None):
    return sh(kubectl, *args, input=input)

def wait(what, check, timeout=180):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.5)
    sys.exit(f"timed out waiting for {what}")

def reset():
    sh(bosun, "uninstall", "--purge", "-y")
    kc("delete", "mutatingwebhookconfiguration", "-l", "istio.io/tag", "--ignore-not-found")
    kc("delete", "service", "-n", "istio-system", "-l", "istio.io/tag", "--ignore-not-found")
    kc("delete", "configmap", "-n", "istio-system", "bosun-canary-upgrade", "--ignore-not-found")
    kc("delete", "namespace", "--ignore-not-found", "--wait=false", *names)
    gone = lambda: (all(not kc("get", "namespace", n, "--ignore-not-found", "-o", "name").strip()
                        for n in names)
                    and not kc("get", "pods", "-n", "istio-system", "-o", "name").strip())
    wait("the bench namespaces and istio-system's pods gone", gone)

def workloads(ns):
    annotations = {"sidecar.istio.io/proxyImage": pause, "sidecar.istio.io/interceptionMode": "NONE",
                   "sidecar.istio.io/nativeSidecar": "false", "status.sidecar.istio.io/port": "0",
                   "sidecar.istio.io/proxyCPU": "10m", "sidecar.istio.io/proxyMemory": "16Mi"}
    objects = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Namespace",
         "metadata": {"name": ns, "labels": {"istio.io/rev": "prod"}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app", "namespace": ns},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "app"}},
                  "template": {"metadata": {"labels": {"app": "app"}, "annotations": annotations},
                               "spec": {"terminationGracePeriodSeconds": 0,
                                        "containers": [{"name": "app", "image": pause}]}}}}]}
    kc("apply", "-f", "-", input=json.dumps(objects))

def injected(ns):
    pods = json.loads(kc("get", "pods", "-n", ns, "-l", "app=app", "-o", "json"))["items"]
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    ready = lambda p: any(c["type"] == "Ready" and c["status"] == "True"
                          for c in p.get("status", {}).get("conditions", []))
    if not live or not all(ready(p) for p in live):
        return None
    return sorted({p["metadata"].get("annotations", {}).get("istio.io/rev", "") for p in live})

def setup():
    reset()
    sh(bosun, "install", "-y", "-d", old_charts, "--revision", "old", *images)
    sh(bosun, "tag", "set", "prod", "--revision", "old")
    for ns in names:
        workloads(ns)
    wait("the workloads injected by old and Ready", lambda: all(injected(ns) == ["old"] for ns in names))

def upgrade():
    cmd = [bosun, "upgrade", "--canary", "--version", pin, "-y", *images]
    start = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    marks = []  # (seconds since start, line)
    for line in p.stdout:
        marks.append((time.perf_counter() - start, line.rstrip("\n")))
    err = p.stderr.read()
    if p.wait() != 0:
        sys.exit("upgrade failed:\n" + "\n".join(l for _, l in marks) + err)
    total = time.perf_counter() - start
    if not all(injected(ns) == ["1-31"] for ns in names):
        sys.exit(f"after the upgrade the pods are not all injected by 1-31: {[injected(ns) for ns in names]}")
    # Each step: from its `Step N/5` line to the next one (the last to the end).
    steps = [(t, l) for t, l in marks if l.startswith("Step ")]
    if len(steps) != 5:
        sys.exit("expected five `Step N/5` lines:\n" + "\n".join(l for _, l in marks))
    durations = {"before step 1": steps[0][0]}
    for i, (t, l) in enumerate(steps):
        end = steps[i + 1][0] if i + 1 < len(steps) else total
        durations[l.split(" (")[0]] = end - t
    rolled = [t for t, l in marks if l.strip().startswith("namespace ") and l.endswith("rolled out")]
    return total, durations, marks, rolled

totals, per_step = [], {}
for r in range(runs):
    setup()
    total, durations, marks, rolled = upgrade()
    totals.append(total)
    for k, v in durations.items():
        per_step.setdefault(k, []).append(v)
    print(f"run {r + 1}: {total:6.1f} s  " + ", ".join(f"{k} {v:.1f}" for k, v in durations.items()))
    if r == 0:
        print("  the first run's progress, seconds since the start:")
        for t, l in marks:
            print(f"  {t:6.1f}  {l}")
reset()
print(f"\nupgrade --canary end to end: median {statistics.median(totals):.1f} s "
      f"(min {min(totals):.1f}, max {max(totals):.1f}; {runs} runs, {count} namespaces)")
for k, v in per_step.items():
    print(f"  {k:40} median {statistics.median(v):6.1f} s  (min {min(v):.1f}, max {max(v):.1f})")
PY
