#!/bin/bash
# The Kubernetes manifests (deploy/k8s-*.yaml), checked as far as this machine allows: no
# cluster can be started here, so deploy/k8s-check.py checks them against the Kubernetes
# client's schema of the API they name and the Job rules the API server applies.  Each rule
# is shown to catch a broken copy (the control: a checker that accepts everything would pass
# the real manifests too).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
CHECK=deploy/k8s-check.py
S=$(hk_scratch)
trap 'rm -rf "$S"' EXIT

out=$("$CHECK" deploy/k8s-sweep.yaml deploy/k8s-sweep-merge.yaml 2>&1)
check_eq "the manifests are valid batch/v1 Jobs" 0 $?
check_contains "the sweep Job is checked" "$out" "deploy/k8s-sweep.yaml[0] batch/v1 Job harkaq-sweep: ok"
check_contains "the merge Job is checked" "$out" "deploy/k8s-sweep-merge.yaml[0] batch/v1 Job harkaq-sweep-merge: ok"

# broken NAME SED-EXPRESSION EXPECTED-MESSAGE [FILE]
broken() {
	local f=${4:-deploy/k8s-sweep.yaml}
	sed "$2" "$f" >"$S/broken.yaml"
	if cmp -s "$f" "$S/broken.yaml"; then not_ok "$1" "the edit changed nothing"; return; fi
	local got
	got=$("$CHECK" "$S/broken.yaml" 2>&1)
	local rc=$?
	if [ "$rc" -eq 1 ]; then check_contains "$1" "$got" "$3"; else not_ok "$1" "exit $rc: $got"; fi
}
broken "a misspelt field is not in the schema" 's/completionMode: Indexed/completionMod: Indexed/' \
	"JobSpec has no field 'completionMod'"
broken "a field of the wrong type" 's/backoffLimit: 0 /backoffLimit: "none" /' \
	"Job.spec.backoffLimit: 'none' is not a int"
broken "a container without its required name" 's/- name: shard$/- tty: false/' \
	'Invalid value for `name`, must not be `None`'
broken "a Job pod that restarts Always" 's/restartPolicy: Never/restartPolicy: Always/' \
	"a Job's pods restart Never or OnFailure, not 'Always'"
broken "an unknown completion mode" 's/completionMode: Indexed/completionMode: Sharded/' \
	"'Sharded' is not NonIndexed or Indexed"
broken "SHARDS differs from completions" 's/value: "3"/value: "4"/' \
	"SHARDS=4 but completions=3: shards would be lost"
broken "a mount of a volume the pod lacks" 's/name: results, mountPath/name: result, mountPath/' \
	"mounts 'result', which is not a volume of the pod"
broken "an anti-affinity that does not select the sweep pods" 's/matchLabels: { app.kubernetes.io\/component: sweep }/matchLabels: { app.kubernetes.io\/component: sweeper }/' \
	"two sweep pods could share a node"
broken "the merge Job too" 's/restartPolicy: Never/restartPolicy: Always/' \
	"restart Never or OnFailure" deploy/k8s-sweep-merge.yaml

finish
