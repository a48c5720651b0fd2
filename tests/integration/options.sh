#!/bin/bash
# Options before and after operands, in every command (README, "Using it"): each command is run
# with its options first and again with its options after its operands (and, for commands with
# subcommands, before the subcommand); both must succeed with the same output.  `harkaq run` is
# the one exception, by design: everything after its command is the command's own.
. "$(dirname "$0")/lib.sh"
hk_require_runs; hk_require_builds
unset HARKAQ_STORE
W=$(hk_scratch)
trap 'rm -rf "$W"' EXIT

# same NAME WANT_RC CMD_A -- CMD_B: both commands exit WANT_RC with the same stdout.  The
# first is the positive control: it shows the command works at all.
same() {
	local name=$1 want=$2 a=() b=() rca rcb
	shift 2
	while [ "$1" != "--" ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	"${a[@]}" >"$W/a.out" 2>"$W/a.err"; rca=$?
	"${b[@]}" >"$W/b.out" 2>"$W/b.err"; rcb=$?
	# Run-specific bytes (timings, nonces, ids of fresh evidence) are not the point here.
	sed -i -E 's/"(ms|[a-z_]*_ms|elapsed_ms|total|command|reader_start|status_drain|dealloc_wait|reader_stop|command_cpu)":[0-9]+/"\1":0/g' "$W/a.out" "$W/b.out"
	if [ "$rca" -ne "$want" ]; then
		not_ok "$name (control: options first)" "exit $rca, wanted $want: $(head -c 400 "$W/a.err")"
		return
	fi
	if [ "$rcb" -ne "$want" ]; then
		not_ok "$name" "exit $rcb, wanted $want: $(head -c 400 "$W/b.err")"
		return
	fi
	if cmp -s "$W/a.out" "$W/b.out"; then ok "$name"
	else not_ok "$name" "outputs differ: $(diff "$W/a.out" "$W/b.out" | head -5)"; fi
}

S=$W/store
mkdir -p "$W/tree/usr/share/t" "$W/proj/src"
echo t >"$W/tree/usr/share/t/file"
"$HARKAQ" store --store "$S" add "$W/tree" --name tdata --version 1 >/dev/null || not_ok "store add"
echo x >"$W/proj/src/x"
cat >"$W/proj/recipe.toml" <<'EOF'
name = "opts"
version = "1"
base = "host"
[source]
dir = "src"
[deps]
build = ["tdata"]
[phases]
install = ["mkdir -p /out/usr/share/opts", "cat /usr/share/t/file > /out/usr/share/opts/f"]
EOF
chmod -R a+rX "$W"
R=$W/proj/recipe.toml

# ---- store and its subcommands ---------------------------------------------------------
same "store list: --json --store after the subcommand" 0 \
	"$HARKAQ" store --store "$S" list --json -- "$HARKAQ" store list --json --store "$S"
same "store show: --store after the ID" 0 \
	"$HARKAQ" store --store "$S" show tdata -- "$HARKAQ" store show tdata --store "$S"
same "store files: --store after the ID" 0 \
	"$HARKAQ" store --store "$S" files tdata -- "$HARKAQ" store files tdata --store "$S"
same "store which: --store after the PATH" 0 \
	"$HARKAQ" store --store "$S" which /usr/share/t/file -- "$HARKAQ" store which /usr/share/t/file --store "$S"
same "store closure: --store after the ID" 0 \
	"$HARKAQ" store --store "$S" closure tdata -- "$HARKAQ" store closure tdata --store "$S"
same "store verify: --store after the ID" 0 \
	"$HARKAQ" store --store "$S" verify tdata -- "$HARKAQ" store verify tdata --store "$S"
same "store add: --name --version --store after the DIR (present the second time)" 0 \
	"$HARKAQ" store --store "$S" add --name tdata --version 1 "$W/tree" -- \
	"$HARKAQ" store add "$W/tree" --name tdata --version 1 --store "$S"
same "store base list: --json --store after the subcommand" 0 \
	"$HARKAQ" store --store "$S" base list --json -- "$HARKAQ" store base list --json --store "$S"

# ---- policy -------------------------------------------------------------------------------
same "policy: --store --json after the RECIPE" 0 \
	"$HARKAQ" policy --store "$S" --json "$R" -- "$HARKAQ" policy "$R" --store "$S" --json

# ---- build --------------------------------------------------------------------------------
"$HARKAQ" build --store "$S" --quiet --json "$R" >"$W/b1.json" 2>"$W/b1.err"; rc1=$?
"$HARKAQ" build "$R" --store "$S" --quiet --json >"$W/b2.json" 2>"$W/b2.err"; rc2=$?
check_eq "build: options first (control): Hermetic" "0 Hermetic" \
	"$rc1 $(jq -r '.phases[0].verdict.state' "$W/b1.json" 2>/dev/null)"
check_eq "build: --store --quiet --json after the RECIPE: Hermetic, the same artifact" \
	"0 Hermetic $(jq -r .artifact "$W/b1.json" 2>/dev/null)" \
	"$rc2 $(jq -r '.phases[0].verdict.state' "$W/b2.json" 2>/dev/null) $(jq -r .artifact "$W/b2.json" 2>/dev/null)"
check_seen "build with its options after the recipe" "$W/b2.json"
EV=$(jq -r '.phases[0].report.evidence' "$W/b2.json")

# ---- declare --------------------------------------------------------------------------------
# The recipe declares all it uses: one build each way, Hermetic, nothing to change.
"$HARKAQ" declare --store "$S" --quiet --dry-run --json "$R" >"$W/d1.json" 2>"$W/d1.err"; rc1=$?
"$HARKAQ" declare "$R" --store "$S" --quiet --dry-run --json >"$W/d2.json" 2>"$W/d2.err"; rc2=$?
check_eq "declare: options first (control): Hermetic, one build" "0 hermetic 1" \
	"$rc1 $(jq -r '"\(.stop) \(.builds | length)"' "$W/d1.json" 2>/dev/null)"
check_eq "declare: --store --quiet --dry-run --json after the RECIPE: the same" \
	"0 hermetic 1 $(jq -r '.builds[0].artifact' "$W/d1.json" 2>/dev/null)" \
	"$rc2 $(jq -r '"\(.stop) \(.builds | length) \(.builds[0].artifact)"' "$W/d2.json" 2>/dev/null)"

# ---- explain and evidence ------------------------------------------------------------------
same "explain: --store --json after the EVIDENCE" 0 \
	"$HARKAQ" explain --store "$S" --json "$EV" -- "$HARKAQ" explain "$EV" --store "$S" --json
same "evidence verify: --store after the subcommand and its EVIDENCE" 0 \
	"$HARKAQ" evidence --store "$S" verify "$EV" -- "$HARKAQ" evidence verify "$EV" --store "$S"
same "evidence list: --json --store after the subcommand" 0 \
	"$HARKAQ" evidence --store "$S" --json list -- "$HARKAQ" evidence list --json --store "$S"
same "evidence show: --store after the EVIDENCE" 0 \
	"$HARKAQ" evidence --store "$S" show "$EV" -- "$HARKAQ" evidence show "$EV" --store "$S"

# ---- sweep and sweep merge -------------------------------------------------------------------
"$HARKAQ" sweep --store "$S" --shard 1/1 --out "$W/sw1" --json --quiet "$W/proj" >"$W/sw1.json" 2>&1
rc1=$?
"$HARKAQ" sweep "$W/proj" --store "$S" --shard 1/1 --out "$W/sw2" --json --quiet >"$W/sw2.json" 2>&1
rc2=$?
check_eq "sweep: options first (control): one Hermetic recipe" "0 1" \
	"$rc1 $(jq -r '.summary.hermetic' "$W/sw1.json" 2>/dev/null)"
# summary.json is the deterministic part of a sweep (docs/sweep.md).
if [ "$rc2" -eq 0 ] && cmp -s "$W/sw1/summary.json" "$W/sw2/summary.json"; then
	ok "sweep: --store --shard --out --json --quiet after the DIR: the same summary"
else
	not_ok "sweep: --store --shard --out --json --quiet after the DIR: the same summary" \
		"exit $rc2: $(head -c 300 "$W/sw2.json")"
fi
same "sweep merge: --json before the subcommand, and after its RESULT" 0 \
	"$HARKAQ" sweep --json --store "$S" merge "$W/sw1" -- "$HARKAQ" sweep merge "$W/sw1" --json --store "$S"

# ---- attest -------------------------------------------------------------------------------
"$HARKAQ" attest keygen "$W/k" >/dev/null 2>&1 || not_ok "attest keygen"
"$HARKAQ" build "$R" --key "$W/k.key" --store "$S" --quiet >/dev/null 2>&1
A=$(ls -d "$S"/.attestations/*-opts 2>/dev/null | head -1)
same "attest verify: --pub --store after the ENVELOPE" 0 \
	"$HARKAQ" attest verify --pub "$W/k.pub" --store "$S" "$A/provenance.dsse.json" -- \
	"$HARKAQ" attest verify "$A/provenance.dsse.json" --pub "$W/k.pub" --store "$S"

# ---- probe --------------------------------------------------------------------------------
"$HARKAQ" probe --json >"$W/probe.json" 2>/dev/null
check_eq "probe --json: one JSON object" object "$(jq -r type "$W/probe.json" 2>/dev/null)"

# ---- run: its command's arguments are the command's -----------------------------------------
printf 'harkaq-policy 1\n' >"$W/policy"
chmod 644 "$W/policy"
"$HARKAQ" run --quiet --policy "$W/policy" --no-evidence -- /bin/echo --json --quiet >"$W/run.out" 2>"$W/run.err"
check_eq "run: words after the command go to the command, options among them too" \
	"--json --quiet" "$(cat "$W/run.out")"
finish
