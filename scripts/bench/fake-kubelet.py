#!/usr/bin/env python3
"""Makes workloads on the test API server (scripts/testenv: no kubelet, no controller manager)
look ready, the way both bosun's and istioctl's readiness waits judge it, so that an install
benchmark can run both tools to completion.

Every POLL seconds, for each Deployment: a ReplicaSet owned by it (controller reference,
the Deployment's pod template plus a pod-template-hash label, as the deployment controller
makes one; istioctl looks for it) with ready status, then the Deployment's own status; for each
DaemonSet, status for one scheduled, ready, updated pod; for each Service with a selector, an
EndpointSlice with one ready endpoint (what bosun's wait for webhooks looks at). Runs until
killed.

Usage: KUBECONFIG=... scripts/bench/fake-kubelet.py [POLL]
Requests carry the user agent `bench-fake-kubelet`, so request counts by user agent leave them out.
"""

import base64
import json
import os
import ssl
import sys
import tempfile
import time
import urllib.request

import yaml  # PyYAML

POLL = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1


def connection():
    with open(os.environ["KUBECONFIG"]) as f:
        config = yaml.safe_load(f)
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    tls = ssl.create_default_context()
    files = {}
    for key, data_key in (("ca", "certificate-authority"), ("cert", "client-certificate"), ("key", "client-key")):
        section = cluster if key == "ca" else user
        if data_key in section:
            files[key] = section[data_key]
        else:
            tmp = tempfile.NamedTemporaryFile(delete=False)
            tmp.write(base64.b64decode(section[data_key + "-data"]))
            tmp.close()
            files[key] = tmp.name
    tls.load_verify_locations(files["ca"])
    tls.load_cert_chain(files["cert"], files["key"])
    return cluster["server"], tls


SERVER, TLS = connection()


def call(method, path, body=None, content_type="application/json"):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(SERVER + path, data=data, method=method)
    request.add_header("User-Agent", "bench-fake-kubelet")
    if data is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, context=TLS, timeout=10) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        if e.code in (404, 409):
            return None
        raise


MERGE = "application/merge-patch+json"


def fake_deployment(d):
    meta, spec = d["metadata"], d.get("spec", {})
    ns, name = meta["namespace"], meta["name"]
    replicas = spec.get("replicas", 1)
    template = json.loads(json.dumps(spec.get("template", {})))
    template.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = "bench"
    rs_name = f"{name}-bench"
    rs = {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {
            "name": rs_name, "namespace": ns,
            "labels": template["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                                 "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {"replicas": replicas, "selector": spec["selector"], "template": template},
    }
    path = f"/apis/apps/v1/namespaces/{ns}/replicasets"
    if call("GET", f"{path}/{rs_name}") is None:
        call("POST", path, rs)
    else:
        call("PATCH", f"{path}/{rs_name}", {"spec": rs["spec"]}, MERGE)
    call("PATCH", f"{path}/{rs_name}/status",
         {"status": {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas,
                     "fullyLabeledReplicas": replicas, "observedGeneration": 1}}, MERGE)
    call("PATCH", f"/apis/apps/v1/namespaces/{ns}/deployments/{name}/status",
         {"status": {"observedGeneration": meta.get("generation", 1), "replicas": replicas,
                     "updatedReplicas": replicas, "readyReplicas": replicas,
                     "availableReplicas": replicas}}, MERGE)


def fake_daemonset(d):
    meta = d["metadata"]
    call("PATCH", f"/apis/apps/v1/namespaces/{meta['namespace']}/daemonsets/{meta['name']}/status",
         {"status": {"observedGeneration": meta.get("generation", 1), "desiredNumberScheduled": 1,
                     "currentNumberScheduled": 1, "numberReady": 1, "updatedNumberScheduled": 1,
                     "numberAvailable": 1, "numberMisscheduled": 0}}, MERGE)


def fake_endpoints(svc, existing):
    meta = svc["metadata"]
    ns, name = meta["namespace"], meta["name"]
    if not svc.get("spec", {}).get("selector") or (ns, name) in existing:
        return
    call("POST", f"/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices", {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": f"{name}-bench", "labels": {"kubernetes.io/service-name": name}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": True}}]})


def ready_deployment(d):
    s, spec = d.get("status", {}), d.get("spec", {})
    return (s.get("observedGeneration", 0) >= d["metadata"].get("generation", 1)
            and s.get("readyReplicas", 0) >= spec.get("replicas", 1)
            and s.get("availableReplicas", 0) >= spec.get("replicas", 1))


def ready_daemonset(d):
    s = d.get("status", {})
    return s.get("observedGeneration", 0) >= d["metadata"].get("generation", 1) and s.get("numberReady", 0) >= 1


while True:
    try:
        for d in (call("GET", "/apis/apps/v1/deployments") or {}).get("items", []):
            if not ready_deployment(d):
                fake_deployment(d)
        for d in (call("GET", "/apis/apps/v1/daemonsets") or {}).get("items", []):
            if not ready_daemonset(d):
                fake_daemonset(d)
        slices = (call("GET", "/apis/discovery.k8s.io/v1/endpointslices") or {}).get("items", [])
        existing = {(s["metadata"]["namespace"],
                     s["metadata"].get("labels", {}).get("kubernetes.io/service-name")) for s in slices}
        for svc in (call("GET", "/api/v1/services") or {}).get("items", []):
            fake_endpoints(svc, existing)
    except Exception as e:  # the server restarting, a race with a delete: try again
        print(f"fake-kubelet: {e}", file=sys.stderr)
    time.sleep(POLL)
