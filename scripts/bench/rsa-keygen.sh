#!/usr/bin/env bash
# RSA key generation alone: bosun's (gox509::rsa_key, release build) vs Go's crypto/rsa (the Go
# on PATH; helm v4.1.4 is built with Go 1.25, whose GenerateKey is the same code as 1.24+),
# alternated ROUNDS times (default 5) in batches of BATCH keys (default 10) per bit size (2048,
# as genCA / genSelfSignedCert / genSignedCert make, and 4096, as genPrivateKey "rsa").
# Prints per tool and size the median, the quartiles and the range of the per-key times, and
# the CPU time of all of each tool's batches.
# Usage: scripts/bench/rsa-keygen.sh [ROUNDS] [BATCH]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-5}"; batch="${2:-10}"
cargo build --release -q -p gox509 --example rsa_keygen
rust_bin="${CARGO_TARGET_DIR:-target}/release/examples/rsa_keygen"
go_bin="${BOSUN_CACHE:-$HOME/.cache/bosun}/bench/rsa-keygen-go"
mkdir -p "$(dirname "$go_bin")"
(cd scripts/bench/rsa-keygen && go build -o "$go_bin" .)
python3 - "$rust_bin" "$go_bin" "$rounds" "$batch" <<'PY'
import os, resource, statistics, subprocess, sys
rust, go, rounds, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
times, cpu = {}, {}
print(f"load average before: {os.getloadavg()[0]:.2f}")
for _ in range(rounds):
    for bits in ("2048", "4096"):
        for tool in (go, rust):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([tool, bits, batch], capture_output=True, check=True, text=True).stdout
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            for line in out.splitlines():
                name, b, ms = line.split()
                times.setdefault((name, b), []).append(float(ms))
            key = (os.path.basename(tool), bits)
            cpu[key] = cpu.get(key, 0) + r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
print("| tool | bits | keys | median | quartiles | range | CPU per key |")
print("|---|---|---|---|---|---|---|")
for (name, bits), ts in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    q = statistics.quantiles(ts, n=4)
    tool = os.path.basename(go if name == "go" else rust)
    print(f"| {name} | {bits} | {len(ts)} | {statistics.median(ts):.1f} ms | {q[0]:.1f}–{q[2]:.1f} ms | "
          f"{min(ts):.1f}–{max(ts):.1f} ms | {cpu[(tool, bits)] * 1e3 / len(ts):.1f} ms |")
print(f"load average after: {os.getloadavg()[0]:.2f}")
PY
