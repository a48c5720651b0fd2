#!/bin/bash
# Rule installation: harkaq-exec with 1k / 10k / 100k per-file `ro` rules (real files of this
# machine, so every rule is opened and added), running /usr/bin/true.  Prints one JSON object
# per size: the whole run's wall time and peak RSS (min of 3), and the rules the cage reported.
#   bench/micro/rules.sh HARKAQ_EXEC SCRATCH_DIR
set -euo pipefail
X=$1; S=$2
mkdir -p "$S"
# The program and its loader/libc first, so every size can run it.
base=(/usr/bin/true /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 /usr/lib/x86_64-linux-gnu/libc.so.6)
LC_ALL=C find /usr /etc /var/lib -xdev -type f 2>/dev/null | LC_ALL=C grep -E '^[!-~]+$' |
	grep -v '\\' | LC_ALL=C sort -u >"$S/all"
for n in 1000 10000 100000; do
	{ echo "harkaq-policy 1"
	  { printf '%s\n' "${base[@]}"
	    awk -v want=$((n - ${#base[@]})) -v skip="${base[*]}" '
		BEGIN { split(skip, b, " "); for (i in b) s[b[i]] = 1 }
		!($0 in s) && c < want { print; c++ }' "$S/all"; } | LC_ALL=C sort -u | sed 's/^/ro /'
	} >"$S/p.$n"
	best_s=; best_k=
	for _ in 1 2 3; do
		/usr/bin/time -o "$S/time" -f '%e %M' "$X" --status-fd 3 --policy "$S/p.$n" -- \
			/usr/bin/true 3>"$S/status" >/dev/null 2>"$S/err" || { cat "$S/err" >&2; exit 1; }
		read -r s k < <(tail -n 1 "$S/time")
		if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then best_s=$s; fi
		if [ -z "$best_k" ] || [ "$k" -lt "$best_k" ]; then best_k=$k; fi
	done
	rules=$(grep '"event":"cage"' "$S/status" | jq '.rules')
	echo "{\"rules_requested\":$n,\"rules_installed\":$rules,\"wall_s\":$best_s,\"peak_rss_kib\":$best_k}"
done
