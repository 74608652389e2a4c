# Alternated before/after comparison of two bosun binaries on the speed rows (wall + CPU medians).
import os, resource, statistics, subprocess, sys, time
# Usage: before-after.py BEFORE AFTER ISTIO CORPUS RUNS [CASE-SUBSTRING...] (only the cases
# whose name holds one of the substrings, when any are given).
before, after, istio, corpus, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
only = sys.argv[6:]
cases = [
  ("manifest generate default", ["manifest", "generate", "-d", f"{istio}/manifests"]),
  ("manifest generate demo", ["manifest", "generate", "-d", f"{istio}/manifests", "--set", "profile=demo"]),
  ("manifest generate ambient", ["manifest", "generate", "-d", f"{istio}/manifests", "--set", "profile=ambient"]),
  ("helm template istiod", ["helm", "template", "x", f"{istio}/manifests/charts/istio-control/istio-discovery"]),
  ("helm template base", ["helm", "template", "x", f"{istio}/manifests/charts/base"]),
  ("helm template loki", ["helm", "template", "bench", f"{corpus}/loki/chart", "-f", f"{corpus}/loki/variants/simple-scalable-minio.yaml"]),
  ("helm template kube-prometheus-stack", ["helm", "template", "bench", f"{corpus}/kube-prometheus-stack/chart", "-f", f"{corpus}/kube-prometheus-stack/variants/ingress-thanos.yaml"]),
  ("helm template argo-cd", ["helm", "template", "bench", f"{corpus}/argo-cd/chart"]),
  ("helm template traefik", ["helm", "template", "bench", f"{corpus}/traefik/chart"]),
  ("helm template cilium", ["helm", "template", "bench", f"{corpus}/cilium/chart", "-f", f"{corpus}/cilium/variants/hubble-certgen.yaml"]),
]
cases = [c for c in cases if not only or any(o in c[0] for o in only)]
def run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    w = time.perf_counter() - t; r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return w, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, out
print(f"load average before: {os.getloadavg()[0]:.2f}")
print("| case | before wall | after wall | median after/before | before CPU | after CPU |")
print("|---|---|---|---|---|---|")
for name, args in cases:
    wb, wa, cb, ca, r = [], [], [], [], []
    for _ in range(runs):
        w1, c1, o1 = run([before, *args]); w2, c2, o2 = run([after, *args])
        assert o1 == o2, f"{name}: outputs differ"
        wb.append(w1); wa.append(w2); cb.append(c1); ca.append(c2); r.append(w2 / w1)
    m = statistics.median
    print(f"| {name} | {m(wb)*1e3:.1f} ms | {m(wa)*1e3:.1f} ms | {m(r):.3f} | {m(cb)*1e3:.1f} ms | {m(ca)*1e3:.1f} ms |", flush=True)
print(f"\n{runs} alternated pairs each, outputs identical; load average after: {os.getloadavg()[0]:.2f}")
