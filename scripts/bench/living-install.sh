#!/usr/bin/env bash
# Installing Istio on the living cluster (scripts/testenv up --living: a real node where istiod
# runs), bosun vs istioctl: the minimal profile with the images built for that cluster, from the
# same charts, each tool waiting (as it does by default) until everything it installed is ready.
# Wall time to all-Ready and the API requests each tool sends (counted in the API server's audit
# log by user agent, `bosun/…` and `istioctl/…`).
#
# RUNS rounds (default 5); each round installs with both tools, in alternating order (bosun
# first in odd rounds, istioctl first in even ones), and before every install removes the
# previous one (`bosun uninstall --purge -y`) and waits until istio-system has no pod left and no
# CRD is still being deleted, so every install starts from the same empty cluster (istiod's
# own leftovers, its CA Secret and ConfigMaps, stay for both tools alike).
# Uses a living cluster already up (scripts/testenv status --living), else starts one and stops it
# at the end.
# Usage: scripts/bench/living-install.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
istioctl_bin="$(scripts/fetch-istioctl)"
cargo build --release -q --locked -p bosun
manifests="$(scripts/fetch-istio)/manifests"
bindir="$(scripts/testenv build --living)"
started=""
if ! living="$(scripts/testenv status --living 2>/dev/null)"; then
  living="$(scripts/testenv up --living)"
  started=1
fi
trap '[ -z "$started" ] || scripts/testenv down --living >/dev/null 2>&1 || true' EXIT
eval "$living"

python3 - "$istioctl_bin" target/release/bosun "$manifests" "$bindir/kubectl" "$runs" <<'PY'
import collections, json, os, statistics, subprocess, sys, time
istioctl, bosun, manifests, kubectl, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
kubeconfig = os.environ["KUBECONFIG"]
audit = os.path.join(os.path.dirname(kubeconfig), "audit.log")
images = ["--set", f"hub={os.environ['BOSUN_LOCAL_HUB']}", "--set", f"tag={os.environ['BOSUN_LOCAL_TAG']}"]

def kc(*args):
    return subprocess.run([kubectl, "--kubeconfig", kubeconfig, *args], check=True,
                          capture_output=True, text=True).stdout

def clean():
    subprocess.run([bosun, "uninstall", "--purge", "-y"], check=True, capture_output=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        pods = kc("get", "pods", "-n", "istio-system", "-o", "name")
        deleting = kc("get", "crd", "-o",
                      "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name} {end}")
        if not pods.strip() and not deleting.strip():
            time.sleep(2)  # let the controllers' own writes settle
            return
        time.sleep(0.5)
    sys.exit("the previous install was not gone within 180s (pods, or CRDs being deleted)")

def requests_since(offset, agent):
    verbs = collections.Counter()
    with open(audit, "rb") as f:
        f.seek(offset)
        for line in f:
            event = json.loads(line)
            if event.get("userAgent", "").startswith(agent):
                verbs[event["verb"]] += 1
    return verbs

def install(tool):
    if tool == "bosun":
        cmd = [bosun, "install", "--set", "profile=minimal", *images, "-d", manifests, "-y"]
        agent = "bosun/"
    else:
        cmd = [istioctl, "install", "--set", "profile=minimal", *images, "-d", manifests, "-y"]
        agent = "istioctl/"
    offset = os.path.getsize(audit)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{tool} install failed: {p.stdout.decode()[-2000:]}{p.stderr.decode()[-2000:]}")
    ready = kc("get", "deploy", "istiod", "-n", "istio-system", "-o", "jsonpath={.status.readyReplicas}")
    if ready != "1":
        sys.exit(f"{tool} returned, but istiod has {ready!r} ready replicas")
    time.sleep(1)  # the audit log is written asynchronously
    return wall, requests_since(offset, agent)

results = {"bosun": [], "istioctl": []}
for r in range(runs):
    order = ["bosun", "istioctl"] if r % 2 == 0 else ["istioctl", "bosun"]
    for tool in order:
        clean()
        wall, verbs = install(tool)
        results[tool].append((wall, verbs))
        by_verb = ", ".join(f"{v} {k}" for k, v in sorted(verbs.items()))
        print(f"round {r + 1} {tool}: {wall * 1e3:.0f} ms, {sum(verbs.values())} requests ({by_verb})",
              file=sys.stderr, flush=True)
clean()

print("| tool | wall time to all-Ready, median (min–max) | API requests, median (min–max) | by verb (median run) |")
print("|---|---|---|---|")
for tool in ("istioctl", "bosun"):
    walls = sorted(w for w, _ in results[tool])
    counts = sorted(sum(v.values()) for _, v in results[tool])
    med_count = statistics.median_low(counts)
    verbs = next(v for _, v in results[tool] if sum(v.values()) == med_count)
    by_verb = ", ".join(f"{v} {k}" for k, v in sorted(verbs.items()))
    print(f"| {tool} | {statistics.median(walls) * 1e3:.0f} ms ({walls[0] * 1e3:.0f}–{walls[-1] * 1e3:.0f}) "
          f"| {med_count} ({counts[0]}–{counts[-1]}) | {by_verb} |")
print(f"({runs} alternated rounds)")
PY
