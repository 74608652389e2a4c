#!/usr/bin/env bash
# `bosun manifest generate --version V`: the first run, which fetches V's module zip from a
# module proxy, verifies it against go.sum's hash (the module's sumdb line is not asked: the
# proxy is local) and unpacks its package into an empty cache, against a run from the cache,
# alternated, RUNS of each (default 5). Then `--manifests` of the same package, the floor.
#
# The proxy is a folder served on 127.0.0.1 in the module proxy layout (GOPROXY), holding the
# older snapshot's zip from Go's module cache (scripts/fetch-istio --previous leaves it there),
# so the numbers are bosun's work, not a network's.
# Usage: scripts/bench/version-fetch.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
previous="$(scripts/fetch-istio --previous)"
version="$(basename "$previous")"; version="${version#istio-}"
cache_root="${BOSUN_CACHE:-$HOME/.cache/bosun}"
zip="${BOSUN_GOMODCACHE:-$cache_root/gomod}/cache/download/istio.io/istio/@v/$version.zip"
[ -f "$zip" ] || { echo "version-fetch: $zip is missing" >&2; exit 1; }
cargo build --release -q --locked -p bosun
bosun="${CARGO_TARGET_DIR:-target}/release/bosun" # cargo's target dir, CARGO_TARGET_DIR included
state="$(mktemp -d /tmp/bosun-bench-version.XXXXXX)"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$state"' EXIT
mkdir -p "$state/proxy/istio.io/istio/@v" "$state/proxy/istio.io/api/@v"
cp "$zip" "$state/proxy/istio.io/istio/@v/"
# The istio.io/api it requires (its MeshConfig protos are kept with the package).
cp "${BOSUN_GOMODCACHE:-$cache_root/gomod}"/cache/download/istio.io/api/@v/*.zip "$state/proxy/istio.io/api/@v/"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$state/proxy" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done

python3 - "$bosun" "$version" "$previous/manifests" "$state" "$port" "$runs" <<'PY'
import os, shutil, statistics, subprocess, sys, time
bosun, version, manifests, state, port, runs = sys.argv[1:6] + [int(sys.argv[6])]
env = dict(os.environ, GOPROXY=f"http://127.0.0.1:{port}", GOSUMDB="off", GOFLAGS="-mod=mod")
env.pop("BOSUN_ISTIO_MIRROR", None)

def run(args, cache):
    e = dict(env, BOSUN_CACHE=cache)
    start = time.perf_counter()
    subprocess.run([bosun, "manifest", "generate", *args], env=e, check=True,
                   stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000

times = {"first (fetch, verify, unpack)": [], "cached": [], "--manifests": []}
warm = os.path.join(state, "warm")
run(["--version", version], warm)  # fills the warm cache
for i in range(runs):
    cold = os.path.join(state, f"cold-{i}")
    times["first (fetch, verify, unpack)"].append(run(["--version", version], cold))
    shutil.rmtree(cold)
    times["cached"].append(run(["--version", version], warm))
    times["--manifests"].append(run(["--manifests", manifests], warm))
for name, ts in times.items():
    print(f"{name:32} median {statistics.median(ts):7.1f} ms  min {min(ts):7.1f}  max {max(ts):7.1f}  ({len(ts)} runs)")
PY
