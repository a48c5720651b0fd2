#!/bin/bash
# harkaq sweep as a Slurm array: task I of N builds shard I/N on its own node (docs/sweep.md).
#
#   sbatch --array=1-8 deploy/slurm-sweep.sh            # 8 shards
#   sbatch --dependency=afterany:<jobid> --wrap 'harkaq sweep merge results/shard-* --out results/all'
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
N=${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=1-N}
I=${SLURM_ARRAY_TASK_ID:?run with sbatch --array=1-N}
STORE=${HARKAQ_STORE:-/var/lib/harkaq/store}
# A node that cannot give evidence would turn its whole shard into NoEvidence: refuse early.
harkaq probe | grep -Eq '^Landlock +ABI ([7-9]|[1-9][0-9])' ||
	{ echo "$(hostname): Landlock ABI < 7, no evidence possible here" >&2; exit 1; }
exec harkaq sweep catalogue --shard "$I/$N" --jobs 2 --store "$STORE" \
	--out "results/shard-$I" --quiet
