#!/bin/bash
# The sweep on a real Slurm cluster started here (docs/sweep.md, "Many machines"): munged,
# slurmctld and slurmd (Debian 12's slurm-wlm 22.05) on this one node, with a generated
# slurm.conf, no systemd.  The catalogue is tests/data/cluster (trivial recipes, base =
# "host"); the workers' store is a bundle of the declared deps' closure imported into a store
# of their own, never the submitter's directory; deploy/slurm-sweep.sh is submitted as an
# array of 3; one running task is cancelled with scancel and the merge names its shard
# missing; the index is run again and the merge completes; the merged summary.json equals a
# local --jobs 1 sweep's byte for byte, although the workers' stores lacked a provider the
# complete store has.  Then a Debian sweep of three small source packages: the hub's store
# (the debian-12-buildd base and the closures a local sweep imported, downloading them) shipped
# as one bundle, an array of 2 whose builds download nothing, and the merge equal to the local
# sweep's summary.  Everything started is stopped and removed, also when the test fails.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1

for tool in munged slurmctld slurmd sbatch squeue scancel sinfo; do
	if ! command -v "$tool" >/dev/null; then
		not_ok "$tool is installed" "tests/setup-deps installs munge, slurmctld, slurmd and slurm-client"
		finish
		exit 1
	fi
done

T=$(hk_scratch)
CAT=tests/data/cluster
# The tasks run deploy/slurm-sweep.sh, which calls harkaq from PATH (sbatch exports ours).
export PATH=$B:$PATH
JOBS=()

# ---- teardown: every daemon by its pid file, their jobs first, then the directory --------------
pid_of() { [ -s "$1" ] && cat "$1"; }
stop_pid() { # PIDFILE: TERM, then KILL after 10 s; only the process that file names
	local pid
	pid=$(pid_of "$1") || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
	kill -KILL "$pid" 2>/dev/null
}
teardown() {
	if [ -s "$T/slurmctld.pid" ] && [ "${#JOBS[@]}" -gt 0 ]; then
		scancel "${JOBS[@]}" 2>/dev/null
		for _ in $(seq 60); do
			[ -z "$(squeue -h -j "$(IFS=,; echo "${JOBS[*]}")" 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	stop_pid "$T/slurmd.pid"
	stop_pid "$T/slurmctld.pid"
	stop_pid "$T/munge/munged.pid"
}
# Host files no package of the host ships (the recipes stand on base = "host"): what the
# declarable and irreducible recipes probe.
PROBES=/usr/local/lib/harkaq-cluster
cleanup() { teardown; rm -rf "$T" "$PROBES"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$PROBES"
printf '#!/bin/sh\necho "a make that is not run"\n' >"$PROBES/make"
echo "read by nobody's recipe" >"$PROBES/irreducible"
chmod 755 "$PROBES" "$PROBES/make"; chmod 644 "$PROBES/irreducible"
check "control: no package of the host ships the probed files" \
	sh -c "! dpkg -S '$PROBES/make' >/dev/null 2>&1 && ! dpkg -S '$PROBES/irreducible' >/dev/null 2>&1"

# ---- the submitter's complete store, and the bundle the workers get ---------------------------
mkdir -p "$T/tool/usr/share/cluster-tool" "$T/make/usr/local/lib/harkaq-cluster"
echo "cluster tool data" >"$T/tool/usr/share/cluster-tool/data"
cp "$PROBES/make" "$T/make/usr/local/lib/harkaq-cluster/make"
FULL=$T/hub-store
"$HARKAQ" store --store "$FULL" add "$T/tool" --name cluster-tool --version 1 >/dev/null &&
"$HARKAQ" store --store "$FULL" add "$T/make" --name cluster-make --version 1 >/dev/null
check_eq "the complete store holds the tool and a provider of the probed make" 0 $?
# Only the closure of what the recipes declare: not cluster-make.
"$HARKAQ" store --store "$FULL" export cluster-tool --out "$T/store.bundle" 2>"$T/export.log"
check_eq "the bundle of the declared deps is exported" 0 $?
check_contains "the bundle holds one artifact" "$(cat "$T/export.log")" "exported 1 artifact(s)"

# ---- the reference: one machine, one job, against (a copy of) the complete store --------------
cp -al "$FULL" "$T/local-store"
"$HARKAQ" sweep "$CAT" --store "$T/local-store" --jobs 1 --out "$T/local" --quiet \
	>/dev/null 2>"$T/local.stderr"
check_eq "the local --jobs 1 sweep completes" 0 $?

# ---- the cluster ---------------------------------------------------------------------------
free_port() {
	local p
	for p in $(shuf -i 20000-60000 -n 50); do
		[ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && [ "$p" != "${1:-}" ] && { echo "$p"; return; }
	done
	return 1
}
CTLD_PORT=$(free_port) && SLURMD_PORT=$(free_port "$CTLD_PORT")
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/results"
chmod 700 "$T/munge"
# munge's key, made here and removed with the rest: never the machine's /etc/munge key.
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
mkdir -p "$T/munge-sock" && chmod 755 "$T/munge-sock"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge-sock/munge.socket" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
	--seed-file="$T/munge/munged.seed"
check_eq "munged starts with the test's own key" 0 $?

export SLURM_CONF=$T/slurm.conf
NODE=hknode
cat >"$SLURM_CONF" <<EOF
ClusterName=harkaq-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge-sock/munge.socket
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
KillWait=10
MinJobAge=600
NodeName=$NODE NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=harkaq Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF" -i && slurmd -f "$SLURM_CONF" -N "$NODE"
check_eq "slurmctld and slurmd start (no systemd)" 0 $?
state=""
for _ in $(seq 60); do
	state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.5
done
check_eq "the node is idle in the partition" idle "$state"

# task_state JOBID TASK: the final state the controller recorded (jobcomp/filetxt)
task_state() {
	grep " ArrayJobId=$1 ArrayTaskId=$2 " "$T/log/jobcomp.txt" 2>/dev/null | tail -1 |
		sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p'
}
wait_gone() { # JOBID: until the queue no longer holds it (bounded)
	for _ in $(seq 600); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	return 1
}
submit() { # ARRAY [VAR=VALUE...]: prints the job id (SUB_* replace the recipes' defaults)
	local array=$1; shift
	local env="ALL,HARKAQ_CATALOGUE=${SUB_CAT:-$CAT},HARKAQ_RESULTS=${SUB_RESULTS:-$T/results}"
	env+=",HARKAQ_STORE=${SUB_STORE:-$T/node-store}"
	env+=",HARKAQ_BUNDLE=${SUB_BUNDLE:-$T/store.bundle},HARKAQ_JOBS=2"
	for v in "$@"; do env+=",$v"; done
	sbatch --parsable --array="$array" --chdir="$ROOT" --output="$T/results/slurm-%A_%a.log" \
		--export="$env" deploy/slurm-sweep.sh | cut -d';' -f1
}

# ---- the array, one task cancelled while it builds -------------------------------------------
JOB=$(submit 1-3)
check "sbatch accepts the array 1-3" test -n "$JOB"
JOBS+=("$JOB")
# Shard 3/3 holds failed-phase, then slow; cancel it once slow's build has started.
started=no
for _ in $(seq 600); do
	if ls "$T/results/shard-3/logs/"*slow* >/dev/null 2>&1; then started=yes; break; fi
	sleep 0.2
done
check_eq "task 3 reached the slow recipe" yes "$started"
scancel "${JOB}_3"
wait_gone "$JOB"
check_eq "the queue empties" 0 $?
check_eq "task 1 completed" COMPLETED "$(task_state "$JOB" 1)"
check_eq "task 2 completed" COMPLETED "$(task_state "$JOB" 2)"
check_eq "task 3 was cancelled" CANCELLED "$(task_state "$JOB" 3)"

out=$("$HARKAQ" sweep merge "$T"/results/shard-* --store "$FULL" --out "$T/merged" 2>&1)
check_eq "a merge without the cancelled shard: exit 65" 65 $?
echo "# merge said: $out"
check_contains "the cancelled shard is named missing" "$out" \
	"shard(s) 3/3 missing: every recipe must be accounted for"
check_eq "no merged result was written" no "$([ -e "$T/merged/summary.json" ] && echo yes || echo no)"

# ---- the cancelled index again, then the merge ------------------------------------------------
JOB2=$(submit 3 HARKAQ_SHARDS=3)
JOBS+=("$JOB2")
wait_gone "$JOB2"
check_eq "the re-run of index 3 completed" COMPLETED "$(task_state "$JOB2" 3)"
"$HARKAQ" sweep merge "$T"/results/shard-* --store "$FULL" --out "$T/merged" >/dev/null 2>"$T/merge.stderr"
check_eq "the merge completes after the re-run" 0 $?

if cmp -s "$T/local/summary.json" "$T/merged/summary.json"; then
	ok "merged summary.json = the local --jobs 1 sweep's, byte for byte"
else
	not_ok "merged summary.json = the local --jobs 1 sweep's, byte for byte" \
		"$(diff "$T/local/summary.json" "$T/merged/summary.json" | head -20
		   jq -c '.recipes[] | select(.outcome == "no_evidence") | [.key, .phases]' \
			"$T/local/result.json" "$T/merged/result.json")"
fi
outcomes() { jq -r '.catalogue.id, (.recipes[] | "\(.key) \(.outcome)"), (.summary | "\(.recipes) \(.hermetic) \(.declarable) \(.irreducible) \(.no_evidence) \(.failed)")' "$1"; }
check_eq "same catalogue id, every recipe's outcome, every count" \
	"$(outcomes "$T/local/summary.json")" "$(outcomes "$T/merged/summary.json")"
check_eq "the counts: 6 recipes, 2 Hermetic, 1 declarable, 1 irreducible, 0 no evidence, 2 failed" \
	"6 2 1 1 0 2" "$(jq -r '.summary | "\(.recipes) \(.hermetic) \(.declarable) \(.irreducible) \(.no_evidence) \(.failed)"' "$T/merged/summary.json")"

# ---- the worker measured, the merge classified -----------------------------------------------
NODE_STORE=$(realpath "$T/node-store")
check_eq "the shards ran against the workers' store, not the submitter's" \
	"$NODE_STORE $NODE_STORE $NODE_STORE" \
	"$(jq -r '.run.store' "$T"/results/shard-{1,2,3}/result.json | tr '\n' ' ' | sed 's/ $//')"
"$HARKAQ" store --store "$T/node-store" which "$PROBES/make" >/dev/null 2>&1
check_eq "the workers' store has no provider of the probed make" 1 $?
"$HARKAQ" store --store "$FULL" which "$PROBES/make" >/dev/null 2>&1
check_eq "the complete store has one (the control)" 0 $?
cls() { jq -r --arg k "$CAT/declarable/recipe.toml" --arg p "$PROBES/make" '.recipes[] | select(.key == $k) | "\(.outcome) \(.debt[] | select(.path == $p) | "\(.class) \(.providers | join(","))")"' "$1"; }
check_eq "shard 2 alone calls the probed make irreducible (its store lacks the provider)" \
	"irreducible irreducible " "$(cls "$T/results/shard-2/result.json")"
check_eq "the merge classifies it against the complete store: declarable, cluster-make" \
	"declarable declarable cluster-make" "$(cls "$T/merged/result.json")"
check_eq "as the local sweep does" "$(cls "$T/local/result.json")" "$(cls "$T/merged/result.json")"
ev=$(jq -r --arg k "$CAT/declarable/recipe.toml" '.recipes[] | select(.key == $k) | .debt[0].evidence | length' "$T/merged/result.json")
check_eq "the raw denial names its evidence object" 1 "$ev"
check_seen "the Hermetic recipe built on the cluster" "$(ls "$T"/results/shard-1/builds/*hermetic*.json | head -1)"
check_eq "the merged result is not an interrupted one" null "$(jq -r .interrupted "$T/merged/summary.json")"

# ---- Debian source packages on the cluster ---------------------------------------------------
# The hub: the buildd base, and a local sweep of the packages, which imports their closures; its
# whole store (base, closures) is the bundle the workers import.
BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd)
check_eq "the buildd base fixture" 0 $?
DEB=$T/debcat
for p in hkone:bison hktwo:bison hkthree:; do
	tests/fixtures/testpkg.sh "$DEB/${p%%:*}" "${p%%:*}" "${p#*:}" 0 >/dev/null
done
HUB=$T/deb-hub
"$HARKAQ" store --store "$HUB" base import debian-12-buildd --from "$BASESTORE" >/dev/null
"$HARKAQ" sweep "$DEB" --store "$HUB" --jobs 1 --out "$T/deb-local" --quiet >/dev/null \
	2>"$T/deb-local.stderr"
check_eq "the local Debian sweep completes" 0 $?
check_eq "...two packages built, one missing a Build-Depends" \
	"built missing_build_depends built" \
	"$(jq -r '[.recipes[] | if .outcome == "hermetic" or .outcome == "probes_only" then "built" else .outcome end] | join(" ")' "$T/deb-local/result.json")"
"$HARKAQ" store --store "$HUB" export --all --out "$T/deb.bundle" 2>"$T/deb-export.log"
check_eq "the hub's store (base and closures) is exported as one bundle" 0 $?
DJOB=$(SUB_CAT=$DEB SUB_RESULTS=$T/deb-results SUB_STORE=$T/deb-node-store \
	SUB_BUNDLE=$T/deb.bundle submit 1-2)
JOBS+=("$DJOB")
wait_gone "$DJOB"
check_eq "Debian task 1 completed" COMPLETED "$(task_state "$DJOB" 1)"
check_eq "Debian task 2 completed" COMPLETED "$(task_state "$DJOB" 2)"
check_eq "the workers built against their own store" "$(realpath "$T/deb-node-store")" \
	"$(jq -r .run.store "$T/deb-results/shard-1/result.json")"
"$HARKAQ" sweep merge "$T"/deb-results/shard-* --store "$HUB" --out "$T/deb-merged" >/dev/null \
	2>"$T/deb-merge.stderr"
check_eq "the Debian shards merge" 0 $?
if cmp -s "$T/deb-local/summary.json" "$T/deb-merged/summary.json"; then
	ok "merged Debian summary.json = the local sweep's, byte for byte"
else
	not_ok "merged Debian summary.json = the local sweep's, byte for byte" \
		"$(diff "$T/deb-local/summary.json" "$T/deb-merged/summary.json" | head -20)"
fi
check_eq "...in which hkthree lacks bison, as the local sweep found" \
	"missing_build_depends bison" \
	"$(jq -r '.recipes[] | select(.key | endswith("hkthree_1.0.dsc")) | "\(.outcome) \([.debian.missing[].package] | join(" "))"' "$T/deb-merged/summary.json")"
# How each build got its closure (run data): the hub's local sweep downloaded the .debs, the
# workers had them all from the bundle.  Each with its control: the builds had a closure to get.
downloaded() { jq -r '[.recipes[] | select(.debian.closure > 0) | .run.closure_downloaded] | "\(length) \(add)"' "$@"; }
read -r n_local sum_local <<<"$(downloaded "$T/deb-local/result.json")"
check "the local sweep's builds had closures (the control)" test "$n_local" -ge 2
check "...and it downloaded them ($sum_local .debs)" test "$sum_local" -gt 0
read -r n_work sum_work <<<"$(jq -s '{recipes: [.[].recipes[]]}' "$T"/deb-results/shard-*/result.json | downloaded)"
check_eq "the workers' builds had the same closures (the control)" "$n_local" "$n_work"
check_eq "...and downloaded none: every .deb came with the bundle" 0 "$sum_work"
check_contains "the merge's table says the closures came from the store" \
	"$(cat "$T/deb-merged/summary.txt")" "closure $(jq -r '.recipes[] | select(.key | endswith("hkone_1.0.dsc")) | .debian.closure' "$T/deb-merged/result.json") from the store"
check_contains "...the local sweep's that they were downloaded" "$(cat "$T/deb-local/summary.txt")" \
	" downloaded"

# ---- teardown, checked ---------------------------------------------------------------------
pids="$(pid_of "$T/munge/munged.pid") $(pid_of "$T/slurmctld.pid") $(pid_of "$T/slurmd.pid")"
trap - EXIT
cleanup
alive=""
for p in $pids; do kill -0 "$p" 2>/dev/null && alive+=" $p"; done
check_eq "munged, slurmctld and slurmd are stopped" "" "$alive"
check_eq "their key, spool, state and logs are removed" no "$([ -e "$T" ] && echo yes || echo no)"

finish
