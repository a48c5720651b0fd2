#!/usr/bin/python3
"""Checks Kubernetes manifests against the API they name, without a cluster (docs/sweep.md).

    deploy/k8s-check.py deploy/k8s-*.yaml

The schema is the official Kubernetes Python client's models (Debian's python3-kubernetes,
generated from the API's OpenAPI document): every key of every object must be a field of the
type the API gives it there, every value of that field's type, every required field present
(the models' own validation).  Then the rules the API server applies to a batch/v1 Job and
its pod, and the contract between these manifests and the sweep (docs/sweep.md): a Job's
restartPolicy is Never or OnFailure; completionMode is NonIndexed or Indexed, and Indexed
needs completions; SHARDS equals completions; the pod anti-affinity selects the pod's own
labels (one sweep pod per node); every volume mount names a volume of the pod; container
names are unique.  Prints one line per document and every problem with its path; exits 1
if any.
"""
import re
import sys

import kubernetes.client as k8s
import yaml

KINDS = {("batch/v1", "Job"): "V1Job"}
PRIMITIVE = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def check(value, type_name, path, problems):
    """Walks `value` as the API type `type_name`; returns the model built from it (or None)."""
    if type_name in PRIMITIVE:
        want = PRIMITIVE[type_name]
        if isinstance(value, bool) and type_name != "bool" or not isinstance(value, want):
            problems.append(f"{path}: {value!r} is not a {type_name}")
        return value
    if type_name == "object":
        return value
    m = re.fullmatch(r"list\[(.+)\]", type_name)
    if m:
        if not isinstance(value, list):
            problems.append(f"{path}: not a list of {m.group(1)}")
            return None
        return [check(v, m.group(1), f"{path}[{i}]", problems) for i, v in enumerate(value)]
    m = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if m:
        if not isinstance(value, dict):
            problems.append(f"{path}: not a map of {m.group(1)}")
            return None
        return {k: check(v, m.group(1), f"{path}.{k}", problems) for k, v in value.items()}
    cls = getattr(k8s, type_name, None)
    if cls is None:
        problems.append(f"{path}: the client does not know the type {type_name}")
        return None
    if not isinstance(value, dict):
        problems.append(f"{path}: not an object ({type_name})")
        return None
    by_json = {j: p for p, j in cls.attribute_map.items()}
    kwargs = {}
    for key, v in value.items():
        if key not in by_json:
            problems.append(f"{path}.{key}: {type_name} has no field '{key}'")
            continue
        attr = by_json[key]
        kwargs[attr] = check(v, cls.openapi_types[attr], f"{path}.{key}", problems)
    try:
        return cls(**kwargs)
    except ValueError as e:   # a required field missing: the model's own validation
        problems.append(f"{path}: {e}")
        return None


def pod_rules(pod, labels, path, problems):
    names = [c.get("name") for c in pod.get("initContainers", []) + pod.get("containers", [])]
    for n in set(names):
        if names.count(n) > 1:
            problems.append(f"{path}: container name '{n}' is used twice")
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    for c in pod.get("initContainers", []) + pod.get("containers", []):
        for m in c.get("volumeMounts", []):
            if m.get("name") not in volumes:
                problems.append(f"{path}: container '{c.get('name')}' mounts '{m.get('name')}', "
                                "which is not a volume of the pod")
    anti = (pod.get("affinity") or {}).get("podAntiAffinity") or {}
    for term in anti.get("requiredDuringSchedulingIgnoredDuringExecution", []):
        want = (term.get("labelSelector") or {}).get("matchLabels") or {}
        if any(labels.get(k) != v for k, v in want.items()):
            problems.append(f"{path}: the anti-affinity selects {want}, not this pod's labels "
                            f"{labels}: two sweep pods could share a node")


def job_rules(doc, problems):
    spec = doc.get("spec") or {}
    tmpl = spec.get("template") or {}
    pod = tmpl.get("spec") or {}
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        problems.append("spec.template.spec.restartPolicy: a Job's pods restart Never or "
                        f"OnFailure, not {pod.get('restartPolicy')!r}")
    mode = spec.get("completionMode", "NonIndexed")
    if mode not in ("NonIndexed", "Indexed"):
        problems.append(f"spec.completionMode: {mode!r} is not NonIndexed or Indexed")
    if mode == "Indexed" and not spec.get("completions"):
        problems.append("spec.completions: an Indexed Job needs completions")
    if spec.get("parallelism", 1) < 0 or spec.get("completions", 1) < 0:
        problems.append("spec: parallelism and completions are not negative")
    for c in pod.get("containers", []):
        for e in c.get("env", []):
            if e.get("name") == "SHARDS" and str(e.get("value")) != str(spec.get("completions")):
                problems.append(f"container '{c.get('name')}': SHARDS={e.get('value')} but "
                                f"completions={spec.get('completions')}: shards would be lost")
    pod_rules(pod, (tmpl.get("metadata") or {}).get("labels") or {}, "spec.template.spec",
              problems)


def main(files):
    bad = 0
    for f in files:
        with open(f) as fh:
            docs = [d for d in yaml.safe_load_all(fh) if d is not None]
        if not docs:
            print(f"{f}: no document")
            bad += 1
        for i, doc in enumerate(docs):
            problems = []
            api, kind = doc.get("apiVersion"), doc.get("kind")
            if (api, kind) not in KINDS:
                problems.append(f"{api}/{kind}: not a kind this checker knows")
            else:
                check(doc, KINDS[(api, kind)], kind, problems)
                job_rules(doc, problems)
            name = (doc.get("metadata") or {}).get("name")
            print(f"{f}[{i}] {api} {kind} {name}: " + ("ok" if not problems else "INVALID"))
            for p in problems:
                print(f"  {p}")
            bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
