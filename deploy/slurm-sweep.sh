#!/bin/bash
# harkaq sweep as a Slurm array: task I of N builds shard I/N on its own node (docs/sweep.md,
# "Many machines"); tests/integration/slurm.sh runs it on a real single-node cluster.
#
#   harkaq store export --store HUB ID... --out /shared/store.bundle      # once, on the hub
#   HARKAQ_BUNDLE=/shared/store.bundle sbatch --array=1-8 deploy/slurm-sweep.sh
#   harkaq sweep merge results/shard-* --store HUB --out results/all     # after every task
#
# A task that did not finish (scancel, a node lost) is named missing by the merge; run that
# index again with the same number of shards, then merge again:
#
#   HARKAQ_SHARDS=8 sbatch --array=3 deploy/slurm-sweep.sh
#
# The environment (sbatch exports the submitter's): HARKAQ_CATALOGUE (default catalogue),
# HARKAQ_RESULTS (default results), HARKAQ_STORE (the node's own store, default
# /var/lib/harkaq/store), HARKAQ_BUNDLE (a bundle imported into it first: idempotent and
# verified, so every task may import it), HARKAQ_JOBS (builds at a time, default 2),
# HARKAQ_SHARDS (N, default the array's task count).  Debian source packages (docs/sweep.md,
# "Debian source packages"): HARKAQ_CATALOGUE may hold .dsc files, HARKAQ_DSC_LIST names a list
# of NAME=VERSION pins (then HARKAQ_CATALOGUE="" sweeps the pins alone), HARKAQ_SOURCES is where
# the node fetches them (default RESULTS/shard-I/sources), HARKAQ_ITEM_TIMEOUT the limit per
# item in seconds, HARKAQ_DECIDE_PROBES=1 and HARKAQ_CONFIRM=1 pass --decide-probes and
# --confirm to each Debian build.  A bundle of the hub's store (export --all) carries the base
# and the closures; a package whose closure the bundle lacks is fetched by the node itself
# (each item's "closure_downloaded" in the result says which way it went).
#
# --exclusive: one task per node, because audit is per host (one reader per host, one backlog
# shared by every build on it).  Runs as root: the reader needs CAP_AUDIT_READ (and
# CAP_AUDIT_CONTROL to switch audit on), bubblewrap and the overlay mounts need root; the
# builds themselves run as the unprivileged --user (default nobody).
#SBATCH --job-name=harkaq-sweep
#SBATCH --exclusive
#SBATCH --nodes=1
#SBATCH --cpus-per-task=2
#SBATCH --time=06:00:00
#SBATCH --output=results/slurm-%A_%a.log
set -euo pipefail
N=${HARKAQ_SHARDS:-${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=1-N}}
I=${SLURM_ARRAY_TASK_ID:?run with sbatch --array=1-N}
STORE=${HARKAQ_STORE:-/var/lib/harkaq/store}
RESULTS=${HARKAQ_RESULTS:-results}
# A node that cannot give evidence would turn its whole shard into NoEvidence: refuse early.
# (Read whole first: with pipefail, grep -q leaving early could fail the probe with SIGPIPE.)
probe=$(harkaq probe)
grep -Eq '^Landlock +ABI ([7-9]|[1-9][0-9])' <<<"$probe" ||
	{ echo "$(hostname): Landlock ABI < 7, no evidence possible here" >&2; exit 1; }
# The node's store: the hub's artifacts, shipped as a bundle, never the hub's directory.
if [ -n "${HARKAQ_BUNDLE:-}" ]; then
	harkaq store --store "$STORE" import "$HARKAQ_BUNDLE" >/dev/null
fi
args=()
CAT=${HARKAQ_CATALOGUE-catalogue}
[ -n "$CAT" ] && args+=("$CAT")
[ -n "${HARKAQ_DSC_LIST:-}" ] && args+=(--dsc-list "$HARKAQ_DSC_LIST")
[ -n "${HARKAQ_SOURCES:-}" ] && args+=(--sources "$HARKAQ_SOURCES")
[ -n "${HARKAQ_ITEM_TIMEOUT:-}" ] && args+=(--item-timeout "$HARKAQ_ITEM_TIMEOUT")
[ "${HARKAQ_DECIDE_PROBES:-}" = 1 ] && args+=(--decide-probes)
[ "${HARKAQ_CONFIRM:-}" = 1 ] && args+=(--confirm)
exec harkaq sweep "${args[@]}" --shard "$I/$N" --jobs "${HARKAQ_JOBS:-2}" \
	--store "$STORE" --out "$RESULTS/shard-$I" --quiet
