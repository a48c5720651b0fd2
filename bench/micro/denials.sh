#!/bin/bash
# The reader's highest denial rate with zero loss: bench/micro/flood raises COUNT denials at
# a paced RATE under `harkaq run` with the audit backlog raised (--backlog-floor); a run has
# zero loss when the verdict is Impure with every denial received (records = the kernel's
# denials= count).  Prints one JSON object per rate.  harkaq run restores backlog_limit.
#   bench/micro/denials.sh HARKAQ FLOOD_BINARY SCRATCH_DIR RATE...
set -euo pipefail
H=$1; F=$2; S=$3; shift 3
mkdir -p "$S"
printf 'harkaq-policy 1\n' >"$S/empty.policy"
for rate in "$@"; do
	count=$rate; [ "$rate" -eq 0 ] && count=50000; [ "$count" -lt 10000 ] && count=10000
	"$H" run --policy "$S/empty.policy" --backlog-floor 65536 --quiet --json -- \
		"$F" /etc/hostname "$count" "$rate" >"$S/d.json" 2>"$S/d.err" || true
	achieved=$(sed -n 's/.*(\([0-9]*\)\/s).*/\1/p' "$S/d.err")
	jq -c --argjson rate "$rate" --argjson count "$count" --arg achieved "${achieved:-0}" '{
		rate_requested: $rate, achieved_per_s: ($achieved | tonumber), count: $count,
		state: .verdict.state, kernel_denials: .verdict.kernel.denials,
		records_received: .verdict.kernel.records_received,
		lost_delta: (.verdict.kernel.lost_after - .verdict.kernel.lost_before),
		enobufs: .verdict.kernel.enobufs,
		zero_loss: (.verdict.state == "Impure" and .verdict.kernel.denials == .verdict.kernel.records_received)
	}' "$S/d.json"
done
