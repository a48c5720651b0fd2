#!/bin/bash
# harkaq declare (docs/diagnosis.md, "harkaq declare"): the closed loop of design.md §8 walked
# by harkaq, on real Debian packages on the pinned base debian-12-essential:
#   - the catalogue's zlib with three of its deps taken out (its comments and layout kept):
#     three builds, each declaring what the last one's report named, end Hermetic; the file is
#     the catalogue's but for the deps' order, every comment kept; the artifact is the one
#     the catalogue's own recipe makes (the control: built here); each build's evidence
#     objects verify;
#   - a recipe whose debt nobody provides: make declared, then a stop naming the path, exit
#     1, the recipe left with make; the control: the path classified as [expect] ends Hermetic;
#   - --dry-run: one build, the edit printed, the file untouched; --json: the chain;
#   - a recipe changed while the loop runs: nothing written, exit 65, the change kept;
#   - an already Hermetic recipe: one build, unchanged.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/demo/lib.sh"

D=$(hk_scratch)
trap 'rm -rf "$D"' EXIT
STORE=$D/store
if ! demo_store "$STORE"; then
	not_ok "the demo store (the pinned base and the toolchain fixture) could be prepared"
	finish
	exit 1
fi

# declare RECIPE OUT [options]: the chain on OUT, the builds' reports on OUT.err, RC.  A run
# that stops on NoEvidence (records lost while other tests flood the audit log) is run again:
# it goes on from the recipe as left, at most twice more.
declare_run() {
	local recipe=$1 out=$2 try
	shift 2
	for try in 1 2 3; do
		RC=0
		"$HARKAQ" declare --store "$STORE" "$@" "$recipe" >"$out" 2>"$out.err" || RC=$?
		[ "$RC" -ne 2 ] && break
	done
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---- the catalogue's zlib, three deps taken out ------------------------------------------------
mkdir -p "$D/zlib"
grep -v '^  "make",$\|^  "coreutils",  #\|^  "libc6-dev",$' "$ROOT/catalogue/zlib/recipe.toml" \
	>"$D/zlib/recipe.toml"
check_eq "the de-declared copy lacks exactly three lines of the catalogue's" 3 \
	"$(diff "$ROOT/catalogue/zlib/recipe.toml" "$D/zlib/recipe.toml" | grep -c '^<')"
declare_run "$D/zlib/recipe.toml" "$D/zlib.json" --json
check_eq "zlib: harkaq declare ends Hermetic (exit 0)" 0 "$RC"
check_eq "zlib: three builds, the last Hermetic" "Impure Impure Hermetic" \
	"$(jq -r '[.builds[].outcome] | join(" ")' "$D/zlib.json")"
check_eq "zlib: what each build's report named, declared after it" \
	"coreutils,libc6-dev|make|" \
	"$(jq -r '[.builds[].next.specs | join(",")] | join("|")' "$D/zlib.json")"
check_eq "zlib: each for the path its denial named" \
	"/usr/bin/tee,/usr/include/stdc-predef.h|/usr/bin/make|" \
	"$(jq -r '[.builds[].next.paths | join(",")] | join("|")' "$D/zlib.json")"
check_eq "zlib: stopped Hermetic, the three deps declared and written" \
	"hermetic coreutils libc6-dev make true" \
	"$(jq -r '"\(.stop) \(.declared | join(" ")) \(.written)"' "$D/zlib.json")"
# The file: the catalogue's, every comment and line kept, the three deps back (appended).
check_eq "zlib: every comment of the file kept" \
	"$(grep '#' "$ROOT/catalogue/zlib/recipe.toml" | grep -v '"coreutils"')" \
	"$(grep '#' "$D/zlib/recipe.toml")"
check_eq "zlib: the deps appended after the one left" \
	'build = [|  "gcc-12",     # x86_64-linux-gnu-gcc-12, and through its closure binutils (ar, ranlib)|  "coreutils",|  "libc6-dev",|  "make",|]' \
	"$(sed -n '/^build = \[/,/^\]/p' "$D/zlib/recipe.toml" | paste -sd'|')"
check_eq "zlib: the rest of the file is the catalogue's, line for line" \
	"$(grep -v '^  "[a-z0-9-]*",' "$ROOT/catalogue/zlib/recipe.toml")" \
	"$(grep -v '^  "[a-z0-9-]*",' "$D/zlib/recipe.toml")"
check_eq "zlib: the diff printed is the file's change" \
	"$(printf '+  "coreutils",\n+  "libc6-dev",\n+  "make",')" \
	"$(jq -r '.diff' "$D/zlib.json" | grep '^+ ')"
# The chain of evidence: each build's phases name their objects, which verify.
ids=$(jq -r '.builds[].phases[].evidence' "$D/zlib.json")
check_eq "zlib: every phase of every build names its evidence object" \
	"$(jq '[.builds[].phases[]] | length' "$D/zlib.json")" "$(grep -c '^b3:[0-9a-f]\{64\}$' <<<"$ids")"
check "zlib: the chain's evidence objects verify" "$HARKAQ" evidence --store "$STORE" verify $ids
ART=$(jq -r '.builds[-1].artifact' "$D/zlib.json")
# The control: the catalogue's own recipe, built as it is, makes the same artifact.
"$HARKAQ" build --store "$STORE" --result-out "$D/cat.json" "$ROOT/catalogue/zlib/recipe.toml" \
	>/dev/null 2>&1
check_eq "control: the catalogue's zlib builds Hermetic" "configure=Hermetic compile=Hermetic install=Hermetic" \
	"$(jq -r '[.phases[] | "\(.phase)=\(.verdict.state)"] | join(" ")' "$D/cat.json")"
check_seen "control: the catalogue's zlib" "$D/cat.json"
check_eq "zlib: the artifact is the catalogue recipe's (the deps' order changed nothing)" \
	"$(jq -r .artifact "$D/cat.json")" "$ART"
# The human chain, from a second run: already Hermetic, one build, nothing to change.
declare_run "$D/zlib/recipe.toml" "$D/zlib2.txt"
check_eq "zlib again: Hermetic at once (exit 0)" 0 "$RC"
check_contains "zlib again: one build, the file unchanged" "$(cat "$D/zlib2.txt")" \
	"stop: hermetic — every phase is Hermetic
recipe.toml: unchanged"
check_not_contains "zlib again: no second build" "$(cat "$D/zlib2.txt")" "build 2 "

# ---- irreducible debt: a stop that names the path ---------------------------------------------
mkdir -p "$D/probe/src"
echo x >"$D/probe/src/x"
probe_recipe() { # [EXPECT-LINE]
	cat <<EOT
# a probe: make is the store's, /etc/subuid nobody's (the base's maintainer scripts made it)
name = "probe"
version = "1"

[source]
dir = "src"

# how it is built
[phases]
compile = ["make --version >/dev/null 2>&1 || true", "cat /etc/subuid >/dev/null 2>&1 || true"]
install = "mkdir -p /out/share && echo probe > /out/share/probe"
${1:-}
EOT
}
probe_recipe >"$D/probe/recipe.toml"
# --dry-run first: one build, the edit shown, the file untouched.
before=$(sha "$D/probe/recipe.toml")
declare_run "$D/probe/recipe.toml" "$D/dry.txt" --dry-run
check_eq "--dry-run: the build's status (Impure)" 1 "$RC"
check_eq "--dry-run: the file untouched" "$before" "$(sha "$D/probe/recipe.toml")"
check_contains "--dry-run: the edit printed as a diff" "$(cat "$D/dry.txt")" \
	"dry run: nothing written; the edit the first step would make:
--- a/recipe.toml
+++ b/recipe.toml"
check_contains "--dry-run: a [deps] table before [phases] and its comment" "$(cat "$D/dry.txt")" \
	"+[deps]
+build = [\"make\"]
+
 # how it is built"
check_contains "--dry-run: what it would declare, and for what" "$(cat "$D/dry.txt")" \
	"would declare dep: make  (/usr/bin/make)"
declare_run "$D/probe/recipe.toml" "$D/irr.txt"
check_eq "irreducible: exit 1 (Impure)" 1 "$RC"
check_contains "irreducible: make declared, then the stop, naming the path" "$(cat "$D/irr.txt")" \
	"  → declare dep: make  (/usr/bin/make)"
check_contains "irreducible: the stop says why, and what to do" "$(cat "$D/irr.txt")" \
	"stop: irreducible — irreducible debt: nobody provides 1 path the build used (write a recipe for it, or, if the build does without it, classify it in [expect])
  nobody provides /etc/subuid"
check_contains "irreducible: the recipe keeps the edit that worked" "$(cat "$D/probe/recipe.toml")" \
	"[deps]
build = [\"make\"]

# how it is built
[phases]"
check_contains "irreducible: and says so" "$(cat "$D/irr.txt")" "recipe.toml: declared make (written)"
# The control: the same recipe with the path classified as expected ends Hermetic.
probe_recipe $'[expect]\npaths = ["/etc/subuid"]' >"$D/probe/recipe.toml"
declare_run "$D/probe/recipe.toml" "$D/irr2.txt"
check_eq "control: with /etc/subuid expected, Hermetic (exit 0)" 0 "$RC"
check_contains "control: after declaring make" "$(cat "$D/irr2.txt")" "recipe.toml: declared make (written)"

# ---- the file changed under the loop: nothing written ------------------------------------------
# Its first build sleeps: the file is changed while it runs; the loop would write after the
# second build, and finds the file is not what it read.
mkdir -p "$D/race/src"
echo x >"$D/race/src/x"
printf 'name = "race"\nversion = "1"\n[source]\ndir = "src"\n[phases]\ncompile = ["sleep 3", "make --version >/dev/null 2>&1 || true"]\n' \
	>"$D/race/recipe.toml"
"$HARKAQ" declare --store "$STORE" "$D/race/recipe.toml" >"$D/race.txt" 2>"$D/race.err" &
pid=$!
for _ in $(seq 300); do grep -q '^\[declare\] build 1 ' "$D/race.err" 2>/dev/null && break; sleep 0.1; done
echo '# changed by hand' >>"$D/race/recipe.toml"
wait "$pid"
rc=$?
check_eq "changed under the loop: exit 65" 65 "$rc"
check_contains "changed under the loop: said" "$(cat "$D/race.err")" \
	"recipe.toml changed while harkaq declare ran: nothing written"
check_eq "changed under the loop: the file is the hand's" \
	"$(printf 'name = "race"\nversion = "1"\n[source]\ndir = "src"\n[phases]\ncompile = ["sleep 3", "make --version >/dev/null 2>&1 || true"]\n# changed by hand')" \
	"$(cat "$D/race/recipe.toml")"
check_contains "changed under the loop: the control, the second build did run (it was Hermetic)" \
	"$(cat "$D/race.txt")" "build 2  Hermetic"

# ---- usage ---------------------------------------------------------------------------------------
"$HARKAQ" declare >/dev/null 2>&1
check_eq "no RECIPE: exit 64" 64 $?
"$HARKAQ" declare --store "$STORE" "$D/no-such.toml" >/dev/null 2>"$D/nosuch.err"
check_eq "a missing recipe: exit 65" 65 $?
check_contains "a missing recipe: named" "$(cat "$D/nosuch.err")" "cannot open recipe $D/no-such.toml"
finish
