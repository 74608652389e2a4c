"""Differential fuzzing against Go: random token soups through Go's text/template and ours.

    cargo build --release --example difffuzz -p gotemplate
    (cd crates/gotemplate/testdata/fuzz && go build -o gofuzz . && python3 cmp.py SEED COUNT)

While fmt is a stub, successful outputs are not compared (numbers print as "" here).
"""
import os, subprocess, sys
seed, n = sys.argv[1], sys.argv[2]
src = subprocess.run(["python3", "gen.py", seed, n], capture_output=True).stdout
open("in.txt", "wb").write(src)
g = subprocess.run(["./gofuzz", "in.txt"], capture_output=True).stdout.decode().split("\0")
r = subprocess.run([os.environ.get("RUST_FUZZ", os.path.join(os.path.dirname(__file__), "../../../../target/release/examples/difffuzz")), "in.txt"], capture_output=True)
if r.returncode != 0:
    print("RUST CRASH", r.stderr.decode()[-2000:]); sys.exit(1)
r = r.stdout.decode().split("\0")
ins = src.decode().split("\0")
bad = 0
for i, (a, b) in enumerate(zip(g, r)):
    if a != b:
        # fmt is a stub: numbers/bools/lists print as "" in Rust
        if a.startswith("OUT:") and b.startswith("OUT:") and os.environ.get("COMPARE_OUTPUT") != "1":
            continue
        bad += 1
        if bad <= 12:
            print(repr(ins[i])); print("  go:", repr(a)); print("  rs:", repr(b))
print(len(ins), "cases", bad, "differ")
