#!/usr/bin/env bash
# What one `bosun install --no-wait` reads, per profile: for each profile a fresh test API server
# (scripts/testenv in a state directory of its own, etcd wiped), `install --set profile=P -d
# MANIFESTS -y --no-wait` into the empty cluster, then the same again; the requests each
# install sent (by user agent `bosun/`, from the API server's audit log) by verb, and every
# read (a get or list of one path with one label selector) sent more than once within it.
# Counts do not depend on the machine's load, except the install lock's renewal (an `update`
# every 4 s of an install that takes longer, as a debug build's first install can).
# Usage: scripts/bench/install-reads.sh BOSUN_BINARY [PROFILE...]   (default: minimal default demo ambient)
set -euo pipefail
cd "$(dirname "$0")/../.."
bosun_bin="$(realpath "$1")"; shift
profiles=("$@"); [ ${#profiles[@]} -gt 0 ] || profiles=(minimal default demo ambient)
manifests="$(ls -d "${BOSUN_CACHE:-$HOME/.cache/bosun}"/istio-*/manifests | head -1)"
[ -d "$manifests" ] || "$bosun_bin" profile list >/dev/null # fetches the pinned release
manifests="$(ls -d "${BOSUN_CACHE:-$HOME/.cache/bosun}"/istio-*/manifests | head -1)"
state="$(mktemp -d /tmp/bosun-bench-reads.XXXXXX)"
trap 'BOSUN_TESTENV_DIR="$state/env" scripts/testenv down >/dev/null 2>&1 || true; rm -rf "$state"' EXIT

python3 - "$bosun_bin" "$manifests" "$state" "${profiles[@]}" <<'PY'
import collections, json, os, subprocess, sys, time, urllib.parse
bosun, manifests, state, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
env = dict(os.environ, BOSUN_TESTENV_DIR=os.path.join(state, "env"))
audit = os.path.join(state, "env", "audit.log")

def fresh_cluster():
    subprocess.run(["scripts/testenv", "down"], env=env, check=True, stderr=subprocess.DEVNULL)
    for attempt in range(3):  # a busy machine can make a start time out; try again
        up = subprocess.run(["scripts/testenv", "up"], env=env, capture_output=True, text=True)
        if up.returncode == 0:
            time.sleep(3)  # a fresh API server is busy with its own bootstrap for a moment
            return up.stdout.strip().split("=", 1)[1]
    sys.exit(f"scripts/testenv up failed three times: {up.stderr[-500:]}")

def lines():
    with open(audit) as f:
        return f.readlines()

print("| profile | install | requests | by verb | reads sent more than once |")
print("|---|---|---|---|---|")
for profile in profiles:
    kubeconfig = fresh_cluster()
    for which in ("first", "second"):
        start = len(lines())
        run = subprocess.run([bosun, "install", "--set", f"profile={profile}", "-d", manifests,
                              "-y", "--no-wait"], env=dict(os.environ, KUBECONFIG=kubeconfig),
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"install failed: {run.stdout}{run.stderr}")
        time.sleep(1)  # the audit log is written as requests complete
        verbs, reads = collections.Counter(), collections.Counter()
        for line in lines()[start:]:
            event = json.loads(line)
            if not event.get("userAgent", "").startswith("bosun/"):
                continue
            verbs[event["verb"]] += 1
            if event["verb"] in ("get", "list"):
                uri = urllib.parse.urlparse(event["requestURI"])
                selector = urllib.parse.parse_qs(uri.query).get("labelSelector", [""])[0]
                reads[f"{event['verb']} {uri.path}" + (f" ({selector})" if selector else "")] += 1
        repeated = ", ".join(f"{k} ×{v}" for k, v in sorted(reads.items()) if v > 1) or "none"
        by_verb = ", ".join(f"{v} {k}" for k, v in sorted(verbs.items()))
        print(f"| {profile} | {which} | {sum(verbs.values())} | {by_verb} | {repeated} |", flush=True)
PY
