#!/usr/bin/env bash
# `bosun install --no-wait` vs `istioctl install --readiness-timeout 1ms` on the real test API
# server (scripts/testenv): wall time and the number of API requests each sends, per profile
# (default minimal ambient unless given), RUNS fresh clusters per tool (default 5).
#
# Every run starts a fresh control plane (etcd wiped) in its own state directory, installs once
# into the empty cluster, then installs the same input again (the second install of an
# unchanged mesh). Requests are counted from the API server's audit log (scripts/testenv writes
# one line per request), by user agent: `bosun/…` and `istioctl/…`; the API server's own
# requests are not counted.
#
# istioctl has no --no-wait: with --readiness-timeout 1ms it checks each component's readiness
# once and fails that wait (there is no kubelet, so nothing becomes ready), which is the closest
# it comes to not waiting. Because its install then ends in an error, it also skips its prune,
# so its request counts here are lower than those of a real, successful istioctl install.
# Usage: scripts/bench/install.sh [RUNS] [PROFILE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"; shift $(( $# > 0 ? 1 : 0 ))
profiles=("$@"); [ ${#profiles[@]} -gt 0 ] || profiles=(default minimal ambient)
istioctl_bin="$(scripts/fetch-istioctl)"
cargo build --release -q -p bosun
manifests="$(ls -d "${BOSUN_CACHE:-$HOME/.cache/bosun}"/istio-*/manifests | head -1)"
[ -d "$manifests" ] || target/release/bosun profile list >/dev/null # fetches the pinned release
manifests="$(ls -d "${BOSUN_CACHE:-$HOME/.cache/bosun}"/istio-*/manifests | head -1)"
state="$(mktemp -d /tmp/bosun-bench-install.XXXXXX)"
trap 'BOSUN_TESTENV_DIR="$state/env" scripts/testenv down >/dev/null 2>&1 || true; rm -rf "$state"' EXIT

python3 - "$istioctl_bin" target/release/bosun "$manifests" "$state" "$runs" "${profiles[@]}" <<'PY'
import collections, json, os, statistics, subprocess, sys, time
istioctl, bosun, manifests, state, runs, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:]
env_dir = os.path.join(state, "env")

def fresh_cluster():
    env = dict(os.environ, BOSUN_TESTENV_DIR=env_dir)
    subprocess.run(["scripts/testenv", "down"], env=env, check=True, stderr=subprocess.DEVNULL)
    out = subprocess.run(["scripts/testenv", "up"], env=env, check=True, capture_output=True, text=True).stdout
    time.sleep(3)  # a fresh API server is busy with its own bootstrap for a moment
    return out.strip().split("=", 1)[1]

def audit_lines():
    with open(os.path.join(env_dir, "audit.log")) as f:
        return f.readlines()

def requests_since(start, agent):
    lines = audit_lines()[start:]
    verbs = collections.Counter()
    for line in lines:
        event = json.loads(line)
        if event.get("userAgent", "").startswith(agent):
            verbs[event["verb"]] += 1
    return sum(verbs.values()), verbs

def install(tool, profile, kubeconfig):
    if tool == "bosun":
        cmd = [bosun, "install", "--set", f"profile={profile}", "-d", manifests, "-y", "--no-wait"]
        agent = "bosun/"
    else:
        cmd = [istioctl, "install", "--set", f"profile={profile}", "-d", manifests, "-y",
               "--readiness-timeout", "1ms"]
        agent = "istioctl/"
    start = len(audit_lines())
    t = time.perf_counter()
    p = subprocess.run(cmd, env=dict(os.environ, KUBECONFIG=kubeconfig), capture_output=True)
    wall = time.perf_counter() - t
    if tool == "bosun" and p.returncode != 0:
        sys.exit(f"bosun failed: {p.stderr.decode()}")
    time.sleep(0.3)  # the audit log is written asynchronously
    count, verbs = requests_since(start, agent)
    return wall, count, verbs, p.returncode

med = statistics.median
print("| profile | tool | install into an empty cluster | requests | second install | requests |")
print("|---|---|---|---|---|---|")
for profile in profiles:
    for tool in ("istioctl", "bosun"):
        first_t, first_n, second_t, second_n = [], [], [], []
        verbs_first = None
        for _ in range(runs):
            kubeconfig = fresh_cluster()
            w, n, verbs, rc = install(tool, profile, kubeconfig)
            first_t.append(w); first_n.append(n); verbs_first = verbs
            w, n, _, _ = install(tool, profile, kubeconfig)
            second_t.append(w); second_n.append(n)
        by_verb = ", ".join(f"{v} {k}" for k, v in sorted(verbs_first.items()))
        print(f"| {profile} | {tool} | {med(first_t)*1e3:.0f} ms | {med(first_n):.0f} ({by_verb}) "
              f"| {med(second_t)*1e3:.0f} ms | {med(second_n):.0f} |", flush=True)
print(f"({runs} fresh clusters per tool and profile; medians)")
PY
