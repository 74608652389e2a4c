#!/usr/bin/env bash
# Installing Istio on the real test API server (scripts/testenv), bosun vs istioctl: wall time
# and the number of API requests each sends, per profile (default minimal ambient unless
# given), RUNS fresh clusters per tool and mode (default 3).
#
# Every run starts a fresh control plane (etcd wiped) in its own state directory, installs once
# into the empty cluster, then installs the same input again (the second install of an
# unchanged mesh). Requests are counted from the API server's audit log (scripts/testenv writes
# one line per request), by user agent: `bosun/…` and `istioctl/…`; the API server's own
# requests and the fake kubelet's are not counted.
#
# Modes:
# - `wait`: both tools wait for readiness; scripts/bench/fake-kubelet.py makes Deployments
#   (with the ReplicaSet istioctl looks for) and DaemonSets ready as soon as they appear, so
#   both installs complete, prune included.
# - `no-wait`: bosun --no-wait, against istioctl --readiness-timeout 1ms (istioctl has no
#   --no-wait; it checks readiness once per component and fails that wait, since nothing becomes
#   ready without the fake kubelet, so it also skips its prune: its request counts in this mode
#   are lower than those of a real istioctl install).
# After the table: every read (get or list of one resource, by verb) bosun sent more than once
# within one install, summed over the installs measured.
# Usage: scripts/bench/install.sh [RUNS] [PROFILE...]
# BOSUN_BENCH_BINARY=PATH measures that bosun binary instead of building this checkout's release.
# BOSUN_BENCH_TOOLS="bosun" measures bosun alone (for a before/after of two binaries, run
# alternately: one invocation per binary, in turns).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"; shift $(( $# > 0 ? 1 : 0 ))
profiles=("$@"); [ ${#profiles[@]} -gt 0 ] || profiles=(default minimal ambient)
istioctl_bin="$(scripts/fetch-istioctl)"
if [ -n "${BOSUN_BENCH_BINARY:-}" ]; then
  bosun_bin="$(realpath "$BOSUN_BENCH_BINARY")" # another build (an older commit's, for a before/after)
else
  cargo build --release -q -p bosun
  bosun_bin="${CARGO_TARGET_DIR:-target}/release/bosun" # cargo's target dir, CARGO_TARGET_DIR included
fi
# The pinned Istio's package (before 2026-12-07 the first istio-* in the cache, which could be the
# older snapshot once `scripts/fetch-istio --previous` had run).
manifests="$(scripts/fetch-istio)/manifests"
state="$(mktemp -d /tmp/bosun-bench-install.XXXXXX)"
trap 'BOSUN_TESTENV_DIR="$state/env" scripts/testenv down >/dev/null 2>&1 || true; rm -rf "$state"' EXIT

python3 - "$istioctl_bin" "$bosun_bin" "$manifests" "$state" "$runs" "${profiles[@]}" <<'PY'
import collections, json, os, statistics, subprocess, sys, time
tools = os.environ.get("BOSUN_BENCH_TOOLS", "istioctl bosun").split()
istioctl, bosun, manifests, state, runs, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:]
env_dir = os.path.join(state, "env")

def fresh_cluster():
    env = dict(os.environ, BOSUN_TESTENV_DIR=env_dir)
    subprocess.run(["scripts/testenv", "down"], env=env, check=True, stderr=subprocess.DEVNULL)
    for attempt in range(3):  # a busy machine can make a start time out; try again
        up = subprocess.run(["scripts/testenv", "up"], env=env, capture_output=True, text=True)
        if up.returncode == 0:
            break
        print(f"testenv up failed (attempt {attempt + 1}): {up.stderr[-500:]}", file=sys.stderr)
    else:
        sys.exit("scripts/testenv up failed three times")
    out = up.stdout
    time.sleep(3)  # a fresh API server is busy with its own bootstrap for a moment
    return out.strip().split("=", 1)[1]

def audit_lines():
    with open(os.path.join(env_dir, "audit.log")) as f:
        return f.readlines()

def requests_since(start, agent):
    lines = audit_lines()[start:]
    verbs = collections.Counter()
    reads = collections.Counter()
    for line in lines:
        event = json.loads(line)
        if event.get("userAgent", "").startswith(agent):
            verbs[event["verb"]] += 1
            if event["verb"] in ("get", "list"):
                ref = event.get("objectRef", {})
                what = ref.get("resource") or event["requestURI"].split("?")[0]
                if ref.get("namespace"):
                    what += f" in {ref['namespace']}"
                if event["verb"] == "get" and ref.get("name"):
                    what += f" {ref['name']}"
                reads[f"{event['verb']} {what}"] += 1
    repeated.update({k: v for k, v in reads.items() if v > 1 and agent == "bosun/"})
    return sum(verbs.values()), verbs

def install(tool, mode, profile, kubeconfig):
    if tool == "bosun":
        cmd = [bosun, "install", "--set", f"profile={profile}", "-d", manifests, "-y"]
        cmd += ["--no-wait"] if mode == "no-wait" else ["--readiness-timeout", "60s"]
        agent = "bosun/"
    else:
        cmd = [istioctl, "install", "--set", f"profile={profile}", "-d", manifests, "-y",
               "--readiness-timeout", "1ms" if mode == "no-wait" else "60s"]
        agent = "istioctl/"
    start = len(audit_lines())
    t = time.perf_counter()
    p = subprocess.run(cmd, env=dict(os.environ, KUBECONFIG=kubeconfig), capture_output=True)
    wall = time.perf_counter() - t
    if p.returncode != 0 and not (tool == "istioctl" and mode == "no-wait"):
        sys.exit(f"{tool} ({mode}) failed: {p.stderr.decode()[-2000:]}")
    time.sleep(0.3)  # the audit log is written asynchronously
    count, verbs = requests_since(start, agent)
    return wall, count, verbs

med = statistics.median
repeated = collections.Counter()  # bosun's reads of one kind (verb, resource) more than once in an install
print("| profile | mode | tool | install into an empty cluster | requests | second install | requests |")
print("|---|---|---|---|---|---|---|")
for profile in profiles:
    for mode in ("wait", "no-wait"):
        for tool in tools:
            first_t, first_n, second_t, second_n = [], [], [], []
            verbs_first = None
            for _ in range(runs):
                kubeconfig = fresh_cluster()
                faker = None
                if mode == "wait":
                    faker = subprocess.Popen([sys.executable, "scripts/bench/fake-kubelet.py"],
                                             env=dict(os.environ, KUBECONFIG=kubeconfig))
                try:
                    w, n, verbs = install(tool, mode, profile, kubeconfig)
                    first_t.append(w); first_n.append(n); verbs_first = verbs
                    w, n, _ = install(tool, mode, profile, kubeconfig)
                    second_t.append(w); second_n.append(n)
                finally:
                    if faker:
                        faker.kill(); faker.wait()
            by_verb = ", ".join(f"{v} {k}" for k, v in sorted(verbs_first.items()))
            print(f"| {profile} | {mode} | {tool} | {med(first_t)*1e3:.0f} ms | {med(first_n):.0f} ({by_verb}) "
                  f"| {med(second_t)*1e3:.0f} ms | {med(second_n):.0f} |", flush=True)
print(f"({runs} fresh clusters per tool, mode and profile; medians)")
print("bosun's reads repeated within one install (verb resource: times, summed over installs): "
      + (", ".join(f"{k}: {v}" for k, v in sorted(repeated.items())) or "none"))
PY
