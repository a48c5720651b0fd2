#!/bin/bash
# What a build needs of the machine (docs/store.md, "What a build needs of the machine"):
# bubblewrap runs as the build user (nobody), so the store, harkaq-exec and the directory where
# work directories are made must be reachable by it.  Each case: a directory that stops nobody
# gives exit 65 and one sentence naming the directory, its mode and owner and what to do,
# before bubblewrap runs and with nothing left behind; its control, in the same run, is the
# same command succeeding once the directory is opened as the message says.
# A small store made here (one artifact added by hand) and recipes on base = "host": no
# fixture to download.
. "$(dirname "$0")/lib.sh"
unset HARKAQ_STORE HARKAQ_LIBEXEC

# As `mktemp -d` makes it: mode 0700, owned by root.  The case this suite is about.
D=$(mktemp -d /tmp/harkaq-it-reach.XXXXXX)
L=$(mktemp -d /tmp/harkaq-it-reach-libexec.XXXXXX)
V=$(mktemp -d /tmp/harkaq-it-reach-vartmp.XXXXXX)
# harkaq run where /var/tmp is replaced: a copy outside it, where this tree may be.
PRIV=$(hk_private_bin) || { not_ok "a copy of harkaq outside /var/tmp"; finish; exit 1; }
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $D $L $V $PRIV"; return; }; rm -rf "$D" "$L" "$V" "$PRIV"; }
trap cleanup EXIT

S=$D/store
mkdir -p "$D/tree/usr/include" "$D/proj/src"
echo '#define HKREACH 1' >"$D/tree/usr/include/hkreach.h"
"$HARKAQ" store --store "$S" add "$D/tree" --name hkreach --version 1 >/dev/null ||
	not_ok "add hkreach to the store"
echo 'int main(void) { return 0; }' >"$D/proj/src/main.c"
printf '%s\n' 'name = "reach"' 'version = "1"' 'base = "host"' '[source]' 'dir = "src"' \
	'[deps]' 'build = ["hkreach"]' '[phases]' 'compile = "cat /usr/include/hkreach.h"' \
	'install = "echo built >/out/marker"' >"$D/proj/recipe.toml"
R=$D/proj/recipe.toml

# Everything under the store, with modes and times: a refused build must not change it
# (no evidence object, no view, no artifact, no temporary).
snap() { find "$1" -printf '%p %M %u:%g %s %T@\n' | sort; }
work_of() { sed -n 's/^\[work\] //p' "$1"; }

# built NAME LOG JSON: the control's checks: exit 0, every phase Hermetic with its canary seen.
built() {
	check_eq "$1: exit 0" 0 "$2"
	check_eq "$1: every phase Hermetic" "Hermetic Hermetic" \
		"$(jq -r '[.phases[].verdict.state] | join(" ")' "$3")"
	check_seen "$1" "$3"
}

# --- a store under a directory of mode 0700 --------------------------------------------------
check_eq "mktemp -d made its directory 0700, owned by root" "700 root" "$(stat -c '%a %U' "$D")"
before=$(snap "$S")
out=$("$HARKAQ" build --store "$S" "$R" 2>&1); rc=$?
check_eq "a store under a 0700 directory: exit 65 (bad input)" 65 "$rc"
check_contains "a store under a 0700 directory: the directory, its mode and owner, what to do" \
	"$out" "harkaq build: the build user nobody cannot reach $S (the store): $D is mode 0700 owned by root:root; run 'chmod o+x $D', or choose another --store"
check_not_contains "a store under a 0700 directory: refused before bubblewrap" "$out" "bwrap:"
check_not_contains "a store under a 0700 directory: no work directory was made" "$out" "[work]"
check_eq "a store under a 0700 directory: the store is as it was (no evidence, no view)" \
	"$before" "$(snap "$S")"
chmod o+x "$D"
"$HARKAQ" build --store "$S" "$R" --json >"$D/ok.json" 2>"$D/ok.log"; rc=$?
built "control: after chmod o+x of that directory, the same build" "$rc" "$D/ok.json"
check_eq "control: its artifact is sealed" true "$(jq -r .artifact_stored "$D/ok.json")"

# The class that applies to the user is the one named: nobody's own group.
chown root:nogroup "$D" && chmod 0740 "$D"
out=$("$HARKAQ" build --store "$S" "$R" 2>&1); rc=$?
check_eq "a directory of nobody's group without x for it: exit 65" 65 "$rc"
check_contains "a directory of nobody's group: 'g+x' is what to do" "$out" \
	"$D is mode 0740 owned by root:nogroup; run 'chmod g+x $D', or choose another --store"
chmod 0750 "$D"
"$HARKAQ" build --store "$S" "$R" --json >"$D/g.json" 2>"$D/g.log"; rc=$?
built "control: after chmod g+x, the same build" "$rc" "$D/g.json"
chown root:root "$D" && chmod 0711 "$D"

# The store itself 0700 (as root makes it under umask 077).
chmod 0700 "$S"
before=$(snap "$S")
out=$("$HARKAQ" build --store "$S" "$R" 2>&1); rc=$?
check_eq "a store of mode 0700: exit 65" 65 "$rc"
check_contains "a store of mode 0700: the store itself is named" "$out" \
	"cannot reach $S (the store): $S is mode 0700 owned by root:root; run 'chmod o+x $S', or choose another --store"
check_eq "a store of mode 0700: the store is as it was" "$before" "$(snap "$S")"
chmod 0755 "$S"
"$HARKAQ" build --store "$S" "$R" --json >"$D/s.json" 2>"$D/s.log"; rc=$?
built "control: after chmod o+x of the store, the same build" "$rc" "$D/s.json"

# --- what only the sandbox binds: checked on bubblewrap's own argv ---------------------------
# The store view's directory, made by harkaq inside the store: reached through the store, so
# only the check of the bind sources finds it.
chmod 0700 "$S/.views"
n_ev=$(ls "$S/.evidence" | wc -l)
n_art=$("$HARKAQ" store --store "$S" list | wc -l)
"$HARKAQ" build --store "$S" "$R" --result-out "$D/v.result" >/dev/null 2>"$D/v.log"; rc=$?
check_eq "a bind source out of reach: exit 65" 65 "$rc"
check_contains "a bind source out of reach: named with where the sandbox binds it" \
	"$(cat "$D/v.log")" "(bound at /.harkaq/links in the sandbox): $S/.views is mode 0700 owned by root:root; run 'chmod o+x $S/.views', or choose another --store"
check_not_contains "a bind source out of reach: refused before bubblewrap" "$(cat "$D/v.log")" "bwrap:"
w=$(work_of "$D/v.log")
check "a bind source out of reach: the work directory was made (the late check)" test -n "$w"
check "a bind source out of reach: ...and removed" test ! -e "${w:-/nonexistent}"
check_eq "a bind source out of reach: no phase ran, the result says where it stopped" "0 setup" \
	"$(jq -r '"\(.phases | length) \(.failure.stage)"' "$D/v.result")"
check_eq "a bind source out of reach: no evidence object" "$n_ev" "$(ls "$S/.evidence" | wc -l)"
check_eq "a bind source out of reach: no artifact" "$n_art" \
	"$("$HARKAQ" store --store "$S" list | wc -l)"
chmod 0755 "$S/.views"
"$HARKAQ" build --store "$S" "$R" --json >"$D/v.json" 2>"$D/v2.log"; rc=$?
built "control: after chmod o+x of the view's directory, the same build" "$rc" "$D/v.json"

# --- where work directories are made --------------------------------------------------------
# /var/tmp is shared with the machine: a 0700 directory is mounted over it in a private mount
# namespace of this test's own.
chmod 0700 "$V"
out=$(unshare -m --propagation private sh -c 'mount --bind "$1" /var/tmp && shift && exec "$@"' \
	sh "$V" "$PRIV/harkaq" build --store "$S" "$R" 2>&1); rc=$?
check_eq "/var/tmp of mode 0700: exit 65" 65 "$rc"
check_contains "/var/tmp of mode 0700: named as where work directories are made" "$out" \
	"the build user nobody cannot reach /var/tmp (where work directories are made): /var/tmp is mode 0700 owned by root:root; run 'chmod o+x /var/tmp'"
check_eq "/var/tmp of mode 0700: no work directory left in it" "" "$(ls -A "$V")"
chmod 1777 "$V"
unshare -m --propagation private sh -c 'mount --bind "$1" /var/tmp && shift && exec "$@"' \
	sh "$V" "$PRIV/harkaq" build --store "$S" "$R" --json >"$D/t.json" 2>"$D/t.log"; rc=$?
built "control: /var/tmp of mode 1777, the same build" "$rc" "$D/t.json"
check_eq "control: no work directory left in it either" "" "$(ls -A "$V")"

# --- harkaq-exec out of reach ---------------------------------------------------------------
cp "$HARKAQ_EXEC" "$HARKAQ_AUDIT" "$L/"
check_eq "the helpers' copy is under a 0700 directory" 700 "$(stat -c %a "$L")"
out=$(HARKAQ_LIBEXEC=$L "$HARKAQ" build --store "$S" "$R" 2>&1); rc=$?
check_eq "harkaq-exec out of reach: exit 65" 65 "$rc"
check_contains "harkaq-exec out of reach: named, and where harkaq may be installed instead" "$out" \
	"cannot reach $L/harkaq-exec (harkaq-exec): $L is mode 0700 owned by root:root; run 'chmod o+x $L', or install harkaq where the build user can reach it (HARKAQ_LIBEXEC names the directory of harkaq-exec)"
printf 'harkaq-policy 1\nro %s\n' "$D/tree/usr/include/hkreach.h" >"$D/p"
chmod 0644 "$D/p"
out=$(HARKAQ_LIBEXEC=$L "$HARKAQ" run --user nobody --policy "$D/p" -- \
	/bin/cat "$D/tree/usr/include/hkreach.h" 2>&1); rc=$?
check_eq "harkaq run --user nobody, harkaq-exec out of reach: exit 65" 65 "$rc"
check_contains "harkaq run --user nobody: named for that user" "$out" \
	"harkaq run: the user nobody cannot reach $L/harkaq-exec (harkaq-exec): $L is mode 0700"
check_not_contains "harkaq run --user nobody: the command did not run" "$out" "HKREACH"
chmod o+x "$L"
HARKAQ_LIBEXEC=$L "$HARKAQ" build --store "$S" "$R" --json >"$D/x.json" 2>"$D/x.log"; rc=$?
built "control: after chmod o+x, the same build with that harkaq-exec" "$rc" "$D/x.json"
out=$(HARKAQ_LIBEXEC=$L "$HARKAQ" run --user nobody --policy "$D/p" -- \
	/bin/cat "$D/tree/usr/include/hkreach.h" 2>&1); rc=$?
check_contains "control: after chmod o+x, harkaq run --user nobody runs the command" "$out" \
	"#define HKREACH 1"
check_not_contains "control: ...and refuses nothing" "$out" "cannot reach"

finish
