#!/bin/bash
# Diagnosis on real Debian packages (design.md §8, §10; docs/diagnosis.md), on the pinned base
# debian-12-essential (docs/bases.md): the closed loop of the demo step by step with
# assertions, declarable vs irreducible debt, a symlink alias resolved to its provider, several
# providers, an undeclared package's symlink followed (a trap of the store view), a probe
# classified as expected (the verdict changes, the artifact does not), a policy bug kept apart
# from debt, and evidence objects that verify (and stop verifying when a byte changes).
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

# A build whose verdict is NoEvidence (records dropped while other tests flood the audit log)
# says nothing about debt: run it again, at most twice.
build() { # RECIPE OUT.json [options] -> RC
	local try
	for try in 1 2 3; do
		RC=0
		build_json "$@" 2>"$2.stderr" >/dev/null || RC=$?
		[ "$RC" -ne 2 ] && break
	done
}
# build_json's argument order is RECIPE STORE OUT; keep the store fixed here.
build_json() { local r=$1 o=$2; shift 2; "$HARKAQ" build --store "$STORE" --result-out "$o" "$@" "$r"; }
lines() { printf '%s\n' "$@" | sort -u; }

# ---- aliases, several providers, a trap, a probe, a policy bug, on real files ----
mkdir -p "$D/probe/src"
echo x >"$D/probe/src/x"
probe_recipe() { # [EXPECT-ARRAY-BODY]
	cat <<EOT
name = "probe"
version = "1"
[source]
dir = "src"
[phases]
compile = ["/usr/bin/x86_64-linux-gnu-ranlib --version >/dev/null 2>&1 || true",
           "ranlib --version >/dev/null 2>&1 || true",
           "cat /.harkaq/policy >/dev/null 2>&1 || true",
           "cat /etc/subuid >/dev/null 2>&1 || true",
           "cat /usr/bin/dd >/dev/null 2>&1 || true",
           "dd if=/dev/null of=/dev/null 2>/dev/null || true"]
install = "mkdir -p /out/share && echo probe > /out/share/probe"
EOT
	[ -n "${1:-}" ] && printf '[expect]\npaths = [%s]\n' "$1"
	return 0
}
probe_recipe >"$D/probe/recipe.toml"
before=$(ls "$STORE/.evidence" 2>/dev/null | wc -l)
build "$D/probe/recipe.toml" "$D/nocage.json" --no-cage
check_eq "a --no-cage build succeeds" 0 "$RC"
check_eq "a run without the cage leaves no evidence object" "$before" \
	"$(ls "$STORE/.evidence" 2>/dev/null | wc -l)"
H0=$(q recipe-hash <"$D/nocage.json")

build "$D/probe/recipe.toml" "$D/probe.json"
check_eq "probe recipe: Impure" 1 "$RC"
# x86_64-linux-gnu-ranlib is a file of one package (binutils-x86-64-linux-gnu) and another
# (binutils) reaches it through its link /usr/bin/ranlib: both provide it, the file's first.
prov=$(q providers /usr/bin/x86_64-linux-gnu-ranlib <"$D/probe.json")
check_eq "several providers, the file's before the alias's" \
	"binutils-x86-64-linux-gnu	file	-
binutils	alias	/usr/bin/ranlib" "$prov"
check_contains "the suggestion names the best provider" "$(q declare <"$D/probe.json")" \
	"binutils-x86-64-linux-gnu	/usr/bin/x86_64-linux-gnu-ranlib"
# `ranlib` is binutils' link, visible through the store view but not declared: following it
# reaches the view's trap, and the denial names the link's own package.
check_contains "following an undeclared package's link names that package" \
	"$(cat "$D/probe.json.stderr")" "declare dep: binutils (the build followed its symlink /usr/bin/ranlib)"
# dd, a program of the base's coreutils, read by cat and then run: two denials of one path
# under two sets of rights.  The verdict keeps both (the evidence is the kernel's record); the
# report has one entry for the path, with the rights of both, and counts it once.
check_eq "a path read and then run: two denials in the verdict (control)" \
	"fs.execute,fs.read_file fs.read_file" \
	"$(jq -r '[.phases[].verdict.denials[] | select(.path == "/usr/bin/dd") | .blockers] | sort | join(" ")' "$D/probe.json")"
check_eq "  one entry in the JSON report, the rights merged, the records summed" \
	"1 fs.read_file,fs.execute 3" \
	"$(jq -r '[.phases[].report.declarable[] | select(.path == "/usr/bin/dd")] | "\(length) \(.[0].blockers) \(.[0].count)"' "$D/probe.json")"
check_eq "  the JSON report counts paths (3 declarable: two ranlibs and dd)" 3 \
	"$(jq -r '[.phases[].report.declarable[]] | length' "$D/probe.json")"
check_contains "  one line in the human report, counted once" "$(cat "$D/probe.json.stderr")" \
	"declarable (3): /usr/bin/x86_64-linux-gnu-ranlib"
check_eq "  and dd named on one line only" 1 \
	"$(grep -c '/usr/bin/dd → declare dep: coreutils' "$D/probe.json.stderr")"
# /etc/subuid is the base's, made by a maintainer script: no package ships it.
check_contains "a base file no package ships is irreducible" "$(q irreducible <"$D/probe.json")" \
	"/etc/subuid"
check_contains "  and the report says it is the base's" \
	"$(jq -r '.phases[].report.irreducible[]? | select(.path == "/etc/subuid") | .reason' "$D/probe.json")" \
	"/etc/subuid is in the base, made by its maintainer scripts"
# Reading harkaq's own /.harkaq/policy: a denial on a contract surface of the sandbox.
check_eq "/.harkaq/policy is a policy bug" "/.harkaq/policy" "$(q policy-bugs <"$D/probe.json")"
check_not_contains "a policy bug is not debt (irreducible)" "$(q irreducible <"$D/probe.json")" "/.harkaq"
check_not_contains "a policy bug is not debt (declarable)" "$(q declare <"$D/probe.json")" "/.harkaq/policy"
check_contains "the human report says so" "$(cat "$D/probe.json.stderr")" \
	"policy bug (1), not debt: /.harkaq/policy"
check_eq "the recipe hash is the same after a build that produced evidence" "$H0" \
	"$(q recipe-hash <"$D/probe.json")"
pid=$(q evidence <"$D/probe.json" | head -1)
check_eq "the evidence object carries the recipe hash" "$H0" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recipe_hash"])' \
		"$STORE/.evidence/${pid#b3:}.json")"
# The probe classified as expected: the verdict changes, the artifact does not.
A0=$(q artifact <"$D/probe.json")
probe_recipe '"/etc/subuid"' >"$D/probe/recipe.toml"
build "$D/probe/recipe.toml" "$D/probe2.json"
check_not_contains "an [expect]ed probe is no longer debt" "$(q irreducible <"$D/probe2.json")" \
	"/etc/subuid"
check_contains "  it is reported as expected" "$(cat "$D/probe2.json.stderr")" "expected (1): /etc/subuid"
check_eq "classifying changed the verdict, not the artifact" "$A0" "$(q artifact <"$D/probe2.json")"
check "  (and there was an artifact to compare)" grep -qE '^b3:[0-9a-f]{64}$' <<<"$A0"
if [ "$(q recipe-hash <"$D/probe.json")" != "$(q recipe-hash <"$D/probe2.json")" ]; then
	ok "an [expect] line is a recipe input (the recipe hash changed)"
else not_ok "an [expect] line is a recipe input (the recipe hash changed)"; fi

# ---- what enters the store: only a Hermetic build's output, unless asked ----
# The store is where the diagnosis looks for providers: an Impure build's output sealed there
# would be suggested to the next build as a dep to declare.
check_eq "an Impure build's artifact is hashed, not stored" "false absent" \
	"$(jq -r .artifact_stored "$D/probe.json") $(test -e "$STORE/${A0#b3:}-probe" && echo present || echo absent)"
check_contains "  and the build says why" "$(cat "$D/probe.json.stderr")" \
	"$A0  not stored: compile is Impure (--seal-impure stores it)"
build "$D/probe/recipe.toml" "$D/probe3.json" --seal-impure
check_eq "  --seal-impure stores it, under the same id" "1 true present $A0" \
	"$RC $(jq -r .artifact_stored "$D/probe3.json") $(test -d "$STORE/${A0#b3:}-probe" && echo present || echo absent) $(q artifact <"$D/probe3.json")"
mkdir -p "$D/ownmake/src"
echo x >"$D/ownmake/src/x"
cat >"$D/ownmake/recipe.toml" <<'EOT'
name = "aaa-make"
version = "1"
[source]
dir = "src"
[deps]
build = ["make"]
[phases]
install = ["mkdir -p /out/usr/bin", "cp /usr/bin/make /out/usr/bin/make"]
EOT
build "$D/ownmake/recipe.toml" "$D/ownmake0.json" --no-seal
OWN=$(q artifact <"$D/ownmake0.json")
check_eq "--no-seal: a Hermetic build's artifact is hashed, not stored" "0 false absent" \
	"$RC $(jq -r .artifact_stored "$D/ownmake0.json") $(test -e "$STORE/${OWN#b3:}-aaa-make" && echo present || echo absent)"
check_seen "--no-seal: the build itself is Hermetic" "$D/ownmake0.json"
build "$D/ownmake/recipe.toml" "$D/ownmake.json"
check_eq "control: the same Hermetic build stores its artifact, the same id" "0 true present $OWN" \
	"$RC $(jq -r .artifact_stored "$D/ownmake.json") $(test -d "$STORE/${OWN#b3:}-aaa-make" && echo present || echo absent) $(q artifact <"$D/ownmake.json")"
# Now the store holds two providers of /usr/bin/make: Debian's make and that build's output,
# whose name sorts first.  The package is suggested, and each provider says where it came from.
mkdir -p "$D/usemake/src"
echo x >"$D/usemake/src/x"
printf 'name = "usemake"\nversion = "1"\n[source]\ndir = "src"\n[phases]\ncompile = "make --version >/dev/null 2>&1 || true"\n' \
	>"$D/usemake/recipe.toml"
build "$D/usemake/recipe.toml" "$D/usemake.json"
check_eq "a Debian package ranks before a local build's output of the same file" \
	"make deb
aaa-make build" \
	"$(jq -r '.phases[].report.declarable[] | select(.path == "/usr/bin/make") | .providers[] | "\(.name) \(.origin)"' "$D/usemake.json")"
check_contains "  the human report names each provider's origin" "$(cat "$D/usemake.json.stderr")" \
	"/usr/bin/make → declare dep: make [Debian package]  (or: aaa-make [local build])"

# ---- a failed phase says so on its own line ----
# A phase that exits non-zero without any denial is Hermetic (the kernel saw nothing
# undeclared) and still failed: its report line must not read as a success.
mkdir -p "$D/fails/src"
echo x >"$D/fails/src/x"
printf 'name = "fails"\nversion = "1"\n[source]\ndir = "src"\n[phases]\nconfigure = "true"\ncompile = "exit 3"\n' \
	>"$D/fails/recipe.toml"
build "$D/fails/recipe.toml" "$D/fails.json"
check_eq "a failing phase without debt: exit 3, Hermetic verdicts" "3 configure=Hermetic compile=Hermetic" \
	"$RC $(q states <"$D/fails.json")"
check_seen "  its verdicts" "$D/fails.json"
check_eq "  its line says it failed, with its exit status" 1 \
	"$(grep -cxF 'compile    Hermetic, failed (exit 3)' "$D/fails.json.stderr")"
check_eq "  control: the phase that succeeded reads Hermetic alone" 1 \
	"$(grep -c '^configure  Hermetic    expected (0): none   debt: none$' "$D/fails.json.stderr")"
check_eq "  the JSON report says it failed, and how" "configure false 0|compile true 3" \
	"$(jq -r '[.phases[].report | "\(.phase) \(.failed) \(.exit_code)"] | join("|")' "$D/fails.json")"
fid=$(jq -r '.phases[1].report.evidence' "$D/fails.json")
check_eq "  explain re-renders the failure from the evidence object" \
	"compile    Hermetic, failed (exit 3)" "$("$HARKAQ" explain --store "$STORE" "$fid" | head -1)"
check_contains "  and evidence list shows it" "$("$HARKAQ" evidence --store "$STORE" list)" \
	"$fid compile    Hermetic, failed (exit 3)"

# ---- the closed loop (design.md §8) on zlib from Debian's source package ----
zlib_recipe "$D/r1/recipe.toml" "gcc-12" ""
build "$D/r1/recipe.toml" "$D/r1.json"
check_eq "round 1 (only gcc-12 declared): Impure" 1 "$RC"
decl1=$(q declare <"$D/r1.json")
check_contains "tee is declarable: coreutils, a package of the base" "$decl1" "coreutils	/usr/bin/tee"
check_contains "the C library's headers are declarable: libc6-dev" "$decl1" \
	"libc6-dev	/usr/include/stdc-predef.h"
# The host's zone files and LTO plugins are not in the sandbox: no probe of them.
check_eq "on the pinned base nothing in round 1 is irreducible" "" "$(q irreducible <"$D/r1.json")"

zlib_recipe "$D/r2/recipe.toml" "gcc-12 coreutils libc6-dev" ""
build "$D/r2/recipe.toml" "$D/r2.json"
check_eq "round 2 (+coreutils libc6-dev): still Impure" 1 "$RC"
decl2=$(q declare <"$D/r2.json")
check_not_contains "declaring coreutils removed the tee debt" "$decl2$(q irreducible <"$D/r2.json")" "/usr/bin/tee"
check_not_contains "declaring libc6-dev removed the header debt" "$decl2" "/usr/include/"
check_eq "the next debt is revealed: make" "make	/usr/bin/make" "$decl2"

zlib_recipe "$D/r4/recipe.toml" "gcc-12 coreutils libc6-dev make" ""
build "$D/r4/recipe.toml" "$D/r4.json"
check_eq "round 3 (+make): Hermetic" 0 "$RC"
check_eq "round 3: Hermetic in all three phases" \
	"configure=Hermetic compile=Hermetic install=Hermetic" "$(q states <"$D/r4.json")"
check_seen "round 3: Hermetic in all three phases" "$D/r4.json"

# ---- evidence objects ----
ids=$(q evidence <"$D/r4.json")
check_eq "one evidence object per phase" 3 "$(echo "$ids" | wc -l)"
check "every object verifies" "$HARKAQ" evidence --store "$STORE" verify $ids
first=$(echo "$ids" | head -1)
explained=$("$HARKAQ" explain --store "$STORE" "$first")
missing=$(printf '%s\n' "$explained" | grep -vxF -f "$D/r4.json.stderr" || true)
check_eq "explain re-renders exactly what the build printed" "" "$missing"
check_contains "explain names the object" "$explained" "evidence $first"
mkdir -p "$D/tamper"
obj=$STORE/.evidence/${first#b3:}.json
cp "$obj" "$D/tamper/"
sed -i 's/"Hermetic"/"Hermetid"/' "$D/tamper/${first#b3:}.json"
out=$("$HARKAQ" evidence verify "$D/tamper/${first#b3:}.json"); rc=$?
check_eq "a flipped byte fails verification (exit 65)" 65 "$rc"
check_contains "and says why" "$out" "the object was changed"
check "the original still verifies" "$HARKAQ" evidence verify "$obj"
listed=$("$HARKAQ" evidence --store "$STORE" list)
check_contains "evidence list shows the objects" "$listed" "$first"
finish
