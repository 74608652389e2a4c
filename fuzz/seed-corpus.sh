#!/usr/bin/env bash
# Seeds the `template` fuzz target's corpus with every template of the conformance cases.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/template
python3 - ../tests/cases/gotemplate/*.txt <<'PY'
import hashlib, re, sys
for path in sys.argv[1:]:
    text = open(path).read()
    for m in re.finditer(r'-- template --\n(.*?)\n(?=-- |=== )', text, re.S):
        t = m.group(1).encode()
        open('corpus/template/' + hashlib.sha1(t).hexdigest()[:16], 'wb').write(t)
PY
ls corpus/template | wc -l

# The chart loader's seeds: helm::fuzzing::seeds(), written by its test.
mkdir -p corpus/chart_loader
HELM_FUZZ_SEED_DIR="$PWD/corpus/chart_loader" cargo test -p helm --lib --manifest-path ../Cargo.toml \
    fuzzing::tests::the_seeds_are_charts -- --exact >/dev/null
ls corpus/chart_loader | wc -l
