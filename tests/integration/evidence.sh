#!/bin/bash
# The evidence channel end to end (design.md §4, §6, §7): `harkaq run` with the real reader,
# the real cage and real Landlock denials, asserting on the --verdict-out JSON.  Every negative
# has its positive control in this same run; every fault injected must end in NoEvidence with
# its reason code and never in Hermetic.  Audit settings changed here (enabled, backlog_limit)
# are put back to the exact value read just before the change, within a second or two, even on
# failure (other suites share the machine).
. "$(dirname "$0")/lib.sh"
hk_require_runs

AUDIT_SET=$HELPERS/audit_set
EV_FLOOD=$HELPERS/ev_flood
EV_WHO=$HELPERS/ev_who
export LC_ALL=C   # cat's locale look-ups would be (real) debt

if [ "$(id -u)" -ne 0 ]; then
	skip "evidence channel" "needs root (the reader needs CAP_AUDIT_READ/CAP_AUDIT_CONTROL)"
	finish; exit
fi
for b in "$HARKAQ" "$HARKAQ_EXEC" "$HARKAQ_AUDIT" "$AUDIT_SET" "$EV_FLOOD" "$EV_WHO"; do
	if [ ! -x "$b" ]; then not_ok "binaries are built" "missing $b (run make)"; finish; exit; fi
done
if ! command -v python3 >/dev/null; then not_ok "python3 is installed"; finish; exit; fi

S=$(hk_scratch)
audit_field() { "$AUDIT_SET" | sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p"; }
ORIG_ENABLED=$(audit_field enabled)
ORIG_BACKLOG=$(audit_field backlog_limit)
if [ -z "$ORIG_ENABLED" ] || [ -z "$ORIG_BACKLOG" ]; then
	not_ok "read audit settings" "$("$AUDIT_SET" 2>&1)"; rm -rf "$S"; finish; exit
fi
# A pending restoration, run by the EXIT trap if the script dies inside a changed window.
RESTORE_ARGS=""
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	[ -n "$RESTORE_ARGS" ] && "$AUDIT_SET" $RESTORE_ARGS >/dev/null
	# Every harkaq run raises backlog_limit to the reader's floor and leaves it (readers
	# share the machine, docs/audit-reader.md); the suite leaves the machine as it found it.
	if [ "$ORIG_ENABLED" != 2 ]; then
		"$AUDIT_SET" backlog_limit="$ORIG_BACKLOG" enabled="$ORIG_ENABLED" >/dev/null
	fi
	rm -rf "$S"
}
trap cleanup EXIT

# ---- the scene: files every user can read (what DAC blocks never reaches Landlock) ----
echo "granted content 1f3a" >"$S/granted"
echo "not declared" >"$S/ungranted"
mkdir "$S/odd" "$S/out" "$S/conc"
# A space, a double quote, UTF-8 and a byte that is not UTF-8 at all: the kernel hex-encodes
# every one of them (kernel-facts.md §4); the verdict must give the bytes back exactly.
for n in 'with space' 'q"uote' 'été' $'bad\xffbyte'; do echo odd >"$S/odd/$n"; done
for i in 1 2 3 4 5 6 7 8; do echo "run $i" >"$S/conc/f$i"; done
chmod -R a+rX "$S"
chmod 777 "$S/out"

P=$S/policy
printf 'harkaq-policy 1\nro %s\nrw %s\n' "$S/granted" "$S/out" >"$P"
P_EXPECT=$S/policy-expect
{ cat "$P"; printf 'expect %s\n' "$S/ungranted"; } >"$P_EXPECT"
# sh runs sleep in the background; dash points a background job's stdin at /dev/null.
P_SH=$S/policy-sh
{ cat "$P"; printf 'ro /usr/bin/sleep\nrw /dev/null\n'; } >"$P_SH"

# q FILE EXPR: evaluates a Python expression over a verdict file.  Names: d (the whole run
# report), v (the verdict), codes (reason codes), debt/expected (decoded denial paths, bytes),
# dec(x) (a JSON byte string: a string, or {"hex": …}).
cat >"$S/q.py" <<'EOF'
import json, os, sys
def dec(x):
    if isinstance(x, dict):
        return bytes.fromhex(x["hex"])
    return x.encode("utf-8")
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("unreadable verdict: %s" % e); sys.exit(0)
v = d["verdict"]
codes = [r["code"] for r in v["reasons"]]
debt = [dec(x["path"]) for x in v["denials"] if x["class"] == "debt" and x["path"] is not None]
expected = [dec(x["path"]) for x in v["denials"] if x["class"] == "expected" and x["path"] is not None]
r = eval(sys.argv[2])
print(r.decode("utf-8", "backslashreplace") if isinstance(r, bytes) else r)
EOF
q() { python3 "$S/q.py" "$1" "$2"; }

# hrun NAME HARKAQ-RUN-ARGS... -- CMD...: one run; its verdict is $S/NAME.json, stdout
# $S/NAME.out, stderr $S/NAME.err; sets RC.
hrun() {
	local name=$1; shift
	rm -f "$S/$name.json"
	"$HARKAQ" run --quiet --verdict-out "$S/$name.json" "$@" >"$S/$name.out" 2>"$S/$name.err"
	RC=$?
}
# The verdict state, and the state with the reason codes (for messages).
state() { q "$S/$1.json" 'v["state"]'; }
summary() { q "$S/$1.json" '(v["state"], codes, v["kernel"], [x["path"] for x in v["denials"]])'; }

# ---- 1. clean command: Hermetic, canary seen, kernel count == records received ----
hrun clean --policy "$P" -- cat "$S/granted"
check_eq "clean: exit 0 (Hermetic)" 0 "$RC"
check_eq "clean: cat GRANTED prints the file" "granted content 1f3a" "$(cat "$S/clean.out")"
check_eq "clean: Hermetic" Hermetic "$(state clean)"
check_eq "clean: canary seen, with its domain" "True True" \
	"$(q "$S/clean.json" 'v["canary"]["seen"], len(v["canary"]["domain"] or "") > 8' | tr -d '(),')"
check_eq "clean: kernel denials == records received == 1 (the canary)" "1 1 1" \
	"$(q "$S/clean.json" 'v["kernel"]["denials"], v["kernel"]["records_received"], v["kernel"]["canary_records"]' | tr -d '(),')"
check_eq "clean: no denial listed" "[]" "$(q "$S/clean.json" 'v["denials"]')"

# ---- 2. one undeclared file: Impure, exactly that path, its dev and ino ----
hrun undeclared --policy "$P" -- cat "$S/ungranted"
check_eq "undeclared: exit 1 (Impure)" 1 "$RC"
check_contains "undeclared: cat UNGRANTED fails with EACCES" "$(cat "$S/undeclared.err")" \
	"$S/ungranted: Permission denied"
check_eq "undeclared: Impure" Impure "$(state undeclared)"
check_eq "undeclared: exactly that path, as debt" "['$S/ungranted'] 0" \
	"$(q "$S/undeclared.json" 'repr([p.decode() for p in debt]) + " " + str(len(expected))')"
check_eq "undeclared: kernel denials == records received == 2" "2 2" \
	"$(q "$S/undeclared.json" 'v["kernel"]["denials"], v["kernel"]["records_received"]' | tr -d '(),')"
check_eq "undeclared: the inode stat gives" "$(stat -c %i "$S/ungranted")" \
	"$(q "$S/undeclared.json" 'v["denials"][0]["ino"]')"
check_eq "undeclared: blockers and who tried" "fs.read_file cat" \
	"$(q "$S/undeclared.json" 'v["denials"][0]["blockers"] + " " + v["denials"][0]["comm"]')"
dev1=$(q "$S/undeclared.json" 'dec(v["denials"][0]["dev"]).decode()')
hrun undeclared2 --policy "$P" -- cat "$S/ungranted"
dev2=$(q "$S/undeclared2.json" 'dec(v["denials"][0]["dev"]).decode()')
if [ -n "$dev1" ] && [ "$dev1" = "$dev2" ]; then ok "undeclared: dev non-empty and equal across two runs ($dev1)"
else not_ok "undeclared: dev non-empty and equal across two runs" "run 1: '$dev1', run 2: '$dev2'"; fi
src=$(findmnt -no SOURCE -T "$S/ungranted" 2>/dev/null | head -1)
case "$src" in
/dev/*) check_eq "undeclared: dev is the superblock id (the block device findmnt names)" \
		"$(basename "$src")" "$dev1" ;;
*) skip "undeclared: dev against findmnt" "the scratch filesystem's source is '$src', not a block device" ;;
esac

# ---- 3. the same path expected: class expected, verdict stays Hermetic ----
hrun expected --policy "$P_EXPECT" -- cat "$S/ungranted"
check_eq "expected: Hermetic (exit 3: the command failed, the verdict is Hermetic)" "3 Hermetic" \
	"$RC $(state expected)"
check_seen "expected: Hermetic" "$S/expected.json" '.verdict'
check_eq "expected: the path is classified expected, nothing is debt" "['$S/ungranted'] 0" \
	"$(q "$S/expected.json" 'repr([p.decode() for p in expected]) + " " + str(len(debt))')"

# ---- 4. paths with a space, a double quote, UTF-8 and a non-UTF-8 byte: byte-exact ----
# The names come from the filesystem itself (os.listdir of bytes), so the shell's quoting
# cannot be what agrees with the verdict.
hrun odd --policy "$P" -- cat "$S/odd/"*
check_eq "odd paths: Impure" Impure "$(state odd)"
check_eq "odd paths: the four paths, byte-exact" True \
	"$(q "$S/odd.json" "sorted(debt) == sorted(os.path.join(b'$S/odd', n) for n in os.listdir(b'$S/odd'))")"
check_eq "odd paths: each with its own inode" True \
	"$(q "$S/odd.json" 'len(v["denials"]) == 4 and all(x["ino"] == os.stat(dec(x["path"])).st_ino for x in v["denials"])')"
check_eq "odd paths: the non-UTF-8 one in the hex form, the others as strings" "1 3" \
	"$(q "$S/odd.json" 'sum(isinstance(x["path"], dict) for x in v["denials"]), sum(isinstance(x["path"], str) for x in v["denials"])' | tr -d '(),')"

# ---- 5. the command unprivileged, the reader privileged ----
hrun who_root --policy "$P" -- "$EV_WHO"
check_eq "as root (control): uid 0 inside" "uid=0 euid=0" "$(cut -d' ' -f1,2 "$S/who_root.out")"
hrun who --user nobody --policy "$P" -- "$EV_WHO"
check_eq "--user nobody: the command runs as 65534, no groups" \
	"uid=65534 euid=65534 gid=65534 egid=65534 groups=0" "$(cat "$S/who.out")"
check_eq "--user nobody: Hermetic, the privileged reader saw the canary" "Hermetic True []" \
	"$(q "$S/who.json" 'v["state"] + " " + str(v["canary"]["seen"]) + " " + repr(codes)')"
check_seen "--user nobody: Hermetic" "$S/who.json" '.verdict'
hrun who_deny --user nobody --policy "$P" -- cat "$S/ungranted"
check_eq "--user nobody: an unprivileged denial reaches the reader (Impure, that path)" \
	"Impure ['$S/ungranted']" "$(q "$S/who_deny.json" 'v["state"] + " " + repr([p.decode() for p in debt])')"

# ---- 6. fault: LOG_NEW_EXEC_ON withheld (control: test 1) ----
hrun withhold --test-withhold-log-flag --policy "$P" -- cat "$S/granted"
check_eq "withheld log flag: NoEvidence, exit 2" "NoEvidence 2" "$(state withhold) $RC"
check_eq "withheld log flag: cage_incomplete and canary_not_seen" "True True" \
	"$(q "$S/withhold.json" '"cage_incomplete" in codes, "canary_not_seen" in codes' | tr -d '(),')"

# ---- 7. fault: audit off and not allowed on; --require-evidence refuses to run ----
# Another suite's reader may switch audit back on inside the window (readers are allowed to);
# the run's own audit.before says whether the window held, and the attempt is repeated once.
for attempt in 1 2; do
	was=$(audit_field enabled)
	[ "$was" = 2 ] && break
	RESTORE_ARGS="enabled=$was"
	"$AUDIT_SET" enabled=0 >/dev/null
	hrun audit_off --no-enable-audit --policy "$P" -- cat "$S/granted"
	RC_OFF=$RC
	rm -f "$S/out/marker"
	hrun require_off --require-evidence --no-enable-audit --policy "$P" -- touch "$S/out/marker"
	RC_REQ=$RC
	"$AUDIT_SET" enabled="$was" >/dev/null
	RESTORE_ARGS=""
	# Both runs must have found audit off (the second has no result when it refused to run,
	# which is what it should do).
	[ "$(q "$S/audit_off.json" 'd["audit"]["before"]["enabled"]')" = 0 ] &&
		[ "$RC_REQ" != 0 ] && break
done
if [ "$was" = 2 ]; then
	skip "audit off" "audit is locked (enabled=2): it cannot be switched off"
else
	check_eq "audit off: the window held (the reader found enabled=0)" 0 \
		"$(q "$S/audit_off.json" 'd["audit"]["before"]["enabled"]')"
	check_eq "audit off: NoEvidence, exit 2" "NoEvidence 2" "$(state audit_off) $RC_OFF"
	check_eq "audit off: audit_not_confirmed is the primary reason" audit_not_confirmed \
		"$(q "$S/audit_off.json" 'codes[0]')"
	check_eq "audit off + --require-evidence: exit 2, the command was not run" "2 absent" \
		"$RC_REQ $([ -e "$S/out/marker" ] && echo present || echo absent)"
	check_contains "audit off + --require-evidence: says why" "$(cat "$S/require_off.err")" \
		"the command was not run"
fi
check_eq "audit settings: enabled restored" "$ORIG_ENABLED" "$(audit_field enabled)"
rm -f "$S/out/marker"
hrun require_on --require-evidence --policy "$P" -- touch "$S/out/marker"
check_eq "--require-evidence with audit on (control): Hermetic, the command ran" "0 present" \
	"$RC $([ -e "$S/out/marker" ] && echo present || echo absent)"
check_seen "--require-evidence with audit on: Hermetic" "$S/require_on.json" '.verdict'
rm -f "$S/out/marker"
hrun require_abi --require-evidence --force-abi 6 --policy "$P" -- touch "$S/out/marker"
check_eq "--require-evidence with ABI 6 forced: exit 2, the command was not run" "2 absent" \
	"$RC $([ -e "$S/out/marker" ] && echo present || echo absent)"

# ---- 8. fault: seccomp refused by the kernel: the command is not run ----
rm -f "$S/out/marker"
hrun seccomp --test-break-seccomp --policy "$P" -- touch "$S/out/marker"
check_eq "broken seccomp: exit 70, the command was not run" "70 absent" \
	"$RC $([ -e "$S/out/marker" ] && echo present || echo absent)"
check_contains "broken seccomp: the cage says which layer" "$(cat "$S/seccomp.err")" "(layer: seccomp)"

# ---- 9. fault: the reader killed during the run ----
# Control: the same command, reader left alone.
hrun sleep_ok --policy "$P" -- sleep 1
check_eq "sleeping command, reader alive (control): Hermetic" "0 Hermetic" "$RC $(state sleep_ok)"
check_seen "sleeping command, reader alive: Hermetic" "$S/sleep_ok.json" '.verdict'
rm -f "$S/killed.json"
"$HARKAQ" run --quiet --verdict-out "$S/killed.json" --policy "$P" -- sleep 1 \
	>"$S/killed.out" 2>"$S/killed.err" &
HP=$!
RP=""
for ((i = 0; i < 100; i++)); do
	kids=$(ps -o pid= -o comm= --ppid "$HP" 2>/dev/null)
	# Once the command (sleep) runs, the reader has been ready for a while.  The command is
	# a child of the run's init (its pid namespace's pid 1, a child of harkaq run).
	init=$(awk '$2 == "harkaq" {print $1}' <<<"$kids")
	if [ -n "$init" ] && pgrep -x -P "$init" sleep >/dev/null; then
		RP=$(awk '$2 == "harkaq-audit" {print $1}' <<<"$kids"); break
	fi
	sleep 0.02
done
if [ -n "$RP" ]; then
	kill -KILL "$RP"
	wait "$HP"; RC=$?
	check_eq "reader killed: NoEvidence, exit 2" "NoEvidence 2" "$(state killed) $RC"
	check_eq "reader killed: reader_failed" True "$(q "$S/killed.json" '"reader_failed" in codes')"
	# The reader's orphaned status sentinel is not the command's leftover.
	check_eq "reader killed: no leftover of the command reported" 0 \
		"$(q "$S/killed.json" 'd["command"]["leftovers_killed"]')"
else
	wait "$HP"
	not_ok "reader killed" "no harkaq-audit child of harkaq run $HP found while the command ran"
fi

# ---- 10. fault: records lost (a tiny backlog, a flood) ----
# Control first: the same flood with the reader's default backlog floor loses nothing.  A
# neighbour flooding the log at the same moment can cost records; one retry before concluding.
for attempt in 1 2; do
	hrun flood_ok --policy "$P" -- "$EV_FLOOD" "$S/ungranted" 3000
	[ "$(state flood_ok)" = Impure ] && break
done
check_eq "flood, raised backlog (control): Impure, every record received" "Impure 3001 3001 3000" \
	"$(q "$S/flood_ok.json" 'v["state"], v["kernel"]["denials"], v["kernel"]["records_received"], v["denials"][0]["count"]' | tr -d "(),'")"
# lossy_flood NAME: 5000 denials from a run of its own (verdict $S/NAME.json) under an audit
# backlog of 2, which the reader leaves alone (--backlog-floor 0): the kernel drops records.
# The backlog read before ($was) is put back at once, and by the EXIT trap if the script dies.
lossy_flood() {
	was=$(audit_field backlog_limit)
	RESTORE_ARGS="backlog_limit=$was"
	"$AUDIT_SET" backlog_limit=2 >/dev/null
	hrun "$1" --backlog-floor 0 --policy "$P" -- "$EV_FLOOD" "$S/ungranted" 5000
	"$AUDIT_SET" backlog_limit="$was" >/dev/null
	RESTORE_ARGS=""
}
lossy_flood flood_lost
check_eq "flood, backlog_limit 2: the reader left it alone" 2 \
	"$(q "$S/flood_lost.json" 'd["audit"]["before"]["backlog_limit"]')"
check_eq "flood, backlog_limit 2: the flood ran (5000 EACCES)" "denied=5000 other=0" \
	"$(cut -d' ' -f1,2 "$S/flood_lost.out")"
check_eq "flood, backlog_limit 2: NoEvidence, exit 2" "NoEvidence 2" "$(state flood_lost) $RC"
check_eq "flood, backlog_limit 2: a loss reason (records_lost / lost counter / overrun)" True \
	"$(q "$S/flood_lost.json" 'bool({"records_lost", "kernel_lost_counter_rose", "receive_overrun"} & set(codes))')"
# The kernel's count and the records received must disagree whenever both the canary and the
# deallocation record got through (either may itself be dropped by a backlog of 2).
check_eq "flood, backlog_limit 2: records_lost whenever canary and count arrived" True \
	"$(q "$S/flood_lost.json" 'not (v["canary"]["seen"] and v["kernel"]["denials"] is not None) or "records_lost" in codes')"
check_eq "audit settings: backlog_limit restored" "$was" "$(audit_field backlog_limit)"

# ---- 11. a background child left running: bounded, killed, reported, verdict computed ----
hrun sh_ok --policy "$P_SH" -- sh -c 'exit 0'
check_eq "sh exits alone (control): Hermetic, no leftover" "Hermetic 0" \
	"$(q "$S/sh_ok.json" 'v["state"], d["command"]["leftovers_killed"]' | tr -d "(),'")"
check_seen "sh exits alone: Hermetic" "$S/sh_ok.json" '.verdict'
secs=$((300 + RANDOM % 600))
t0=$(date +%s%N)
hrun sh_bg --policy "$P_SH" -- sh -c "sleep $secs & exit 0"
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
if [ "$ms" -lt 10000 ]; then ok "background child: the run ended in ${ms} ms (bounded)"
else not_ok "background child: the run ended in bounded time" "${ms} ms"; fi
check_eq "background child: verdict computed (Hermetic), the leftover killed and reported" \
	"Hermetic 1" "$(q "$S/sh_bg.json" 'v["state"], d["command"]["leftovers_killed"]' | tr -d "(),'")"
check_seen "background child: Hermetic" "$S/sh_bg.json" '.verdict'
check_eq "background child: no 'sleep $secs' survives" "" "$(pgrep -f "^sleep $secs\$")"

# ---- 12. concurrency: 8 runs at once, each sees its own file and no other ----
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"$HARKAQ" run --quiet --verdict-out "$S/conc$i.json" --policy "$P" -- cat "$S/conc/f$i" \
		>/dev/null 2>"$S/conc$i.err" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
bad=""
for i in 1 2 3 4 5 6 7 8; do
	got=$(q "$S/conc$i.json" '(v["state"], [p.decode() for p in debt], v["kernel"]["denials"] == v["kernel"]["records_received"])')
	want="('Impure', ['$S/conc/f$i'], True)"
	[ "$got" = "$want" ] || bad+="run $i: $got (want $want)"$'\n'
done
check_eq "8 concurrent runs: each verdict lists exactly its own file" "" "$bad"
check_eq "8 concurrent runs: 8 distinct domains" 8 \
	"$(for i in 1 2 3 4 5 6 7 8; do q "$S/conc$i.json" 'v["canary"]["domain"]'; done | sort -u | wc -l)"

# ---- 13. a build's phases: each phase's evidence closes on its own accounting ----
# configure runs and ends; compile waits (sh builtins only, bounded) for a file the test puts
# in /src.  Once configure's records are complete its reader must stop — only compile's stays
# — and only then are records lost (a flood under a backlog of 2, the same as section 10):
# the loss is inside compile's window and outside configure's.  When the phases' readers all
# stopped after the last phase, both windows ended together: configure's evidence carried
# compile's loss, and was voided by it unless its own count was complete ("Loss").
mkdir -p "$S/win/src" "$S/win/store"
printf '%s\n' 'name = "window"' 'version = "1"' 'base = "host"' '[source]' 'dir = "src"' '[phases]' \
	'configure = "true"' \
	'compile = "i=0; while [ ! -e /src/go ] && [ $i -lt 20000000 ]; do i=$((i + 1)); done; [ -e /src/go ]"' \
	>"$S/win/recipe.toml"
chmod -R a+rX "$S/win"
"$HARKAQ" build --store "$S/win/store" --result-out "$S/win.json" "$S/win/recipe.toml" \
	>"$S/win.out" 2>"$S/win.err" &
BP=$!
work=""
for ((i = 0; i < 300 && ${#work} == 0; i++)); do
	grep -q '^\[compile\] running' "$S/win.err" 2>/dev/null && work=$(sed -n 's/^\[work\] //p' "$S/win.err")
	[ -z "$work" ] && sleep 0.05
done
# Readers of this build still running (a reaped or exiting one is not).
live_readers() { ps -o stat=,comm= --ppid "$BP" 2>/dev/null | awk '$1 !~ /^Z/ && $2 == "harkaq-audit"' | wc -l; }
for ((i = 0; i < 100; i++)); do [ "$(live_readers)" -le 1 ] && break; sleep 0.05; done
check_eq "while compile runs, configure's reader has stopped: one reader left" 1 "$(live_readers)"
lossy_flood win_flood
[ -n "$work" ] && touch "$work/src/go"
wait "$BP"
check_eq "control: the flood lost records (the kernel's lost counter rose during it)" True \
	"$(q "$S/win_flood.json" 'd["audit"]["after"]["lost"] > d["audit"]["before"]["lost"]')"
winq() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
k = {p["phase"]: p["verdict"]["kernel"] for p in d["phases"]}
s = {p["phase"]: p["verdict"]["state"] for p in d["phases"]}
r = eval(sys.argv[2])
print(" ".join(map(str, r)) if isinstance(r, tuple) else r)' "$S/win.json" "$1" 2>&1; }
check_eq "control: compile's own window saw the loss" True \
	"$(winq 'k["compile"]["lost_after"] > k["compile"]["lost_before"]')"
check_eq "configure's window closed before it: its lost counter did not move" True \
	"$(winq 'k["configure"]["lost_after"] == k["configure"]["lost_before"] and k["configure"]["lost_after"] < k["compile"]["lost_after"]')"
check_eq "configure stands: Hermetic, its kernel count equal to its records" "Hermetic True" \
	"$(winq 's["configure"], k["configure"]["denials"] == k["configure"]["records_received"]')"

# ---- the machine as it was found ----
cleanup
trap - EXIT
check_eq "audit settings restored exactly" "enabled=$ORIG_ENABLED backlog_limit=$ORIG_BACKLOG" \
	"enabled=$(audit_field enabled) backlog_limit=$(audit_field backlog_limit)"
finish
