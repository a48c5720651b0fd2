#!/bin/bash
# Pinned bases end to end (docs/bases.md): a real Debian 12 essential root made with
# mmdebstrap (tests/fixtures/base.sh), real packages in the store (gcc-12, libc6-dev,
# zlib1g-dev), real builds under the cage.  Every negative result has its positive control in
# the same run: a denial the test expects has its declared twin that passes, a file the
# pinned base must not see is first seen by a host-base build.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE

FIX=$("$ROOT/tests/fixtures/debstore.sh" gcc-12 libc6-dev zlib1g-dev) ||
	{ not_ok "fixture store" "debstore.sh failed"; finish; exit 1; }
BASESTORE=$("$ROOT/tests/fixtures/base.sh") || { not_ok "base fixture"; finish; exit 1; }
W=$(hk_scratch)
PROBE=/usr/lib/bfd-plugins/harkaq-base-test-$$.so
cleanup() {
	rm -f "$PROBE"
	[ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }
	rm -rf "$W"
}
trap cleanup EXIT
S=$W/store
cp -a "$FIX" "$S"
NAME=debian-12-essential

# ---- the base as an artifact -------------------------------------------------------------
show=$("$HARKAQ" store --store "$S" base show $NAME)
BASE_ID=$(awk '$1 == "id" {print $2}' <<<"$show")
TREE=$(awk '$1 == "tree" {print $2}' <<<"$show")
check_contains "base show names the variant" "$show" "variant   essential"
check "the base id is a b3: id" grep -qE '^b3:[0-9a-f]{64}$' <<<"$BASE_ID"
npkg=$(awk '$1 == "packages" {print $2}' <<<"$show")
check "the base carries its package list (more than 50 packages)" test "${npkg:-0}" -gt 50
check_eq "base packages lists exactly that many" "$npkg" \
	"$("$HARKAQ" store --store "$S" base packages $NAME | wc -l)"
check_contains "base list shows it tagged" "$("$HARKAQ" store --store "$S" base list)" \
	"$BASE_ID $NAME"
check_eq "the tag file holds the id" "$BASE_ID" "$(cat "$S/.bases/$NAME")"
out=$("$HARKAQ" store --store "$S" base owner $NAME /usr/bin/getconf /usr/bin/ls /no/such)
rc=$?
check_eq "base owner: getconf is libc-bin's, ls coreutils', a missing path nobody's (exit 1)" \
	"/usr/bin/getconf libc-bin|/usr/bin/ls coreutils|/no/such -|1" "$(paste -sd'|' <<<"$out")|$rc"
check "the base's files are not in the store's path index (it is never a dep to declare)" \
	sh -c "! grep -q ' $(basename "$TREE")\$' '$S/.index/paths'"
check "control: the index does list the store's packages" grep -q -- '-zlib1g-dev$' "$S/.index/paths"
check "the host-specific files mmdebstrap copies are not in the base" \
	sh -c "test ! -e '$TREE/etc/resolv.conf' && test ! -e '$TREE/etc/hostname' && test -z \"\$(ls -A '$TREE/dev')\""
check "control: the base has its own /etc/passwd and dpkg database" \
	test -s "$TREE/etc/passwd" -a -s "$TREE/var/lib/dpkg/status"

# ---- bad input -----------------------------------------------------------------------------
out=$("$HARKAQ" store --store "$S" base create 'bad name' 2>&1); rc=$?
check_eq "base create refuses a bad name (64)" 64 "$rc"
out=$("$HARKAQ" store --store "$S" base create x --variant huge 2>&1); rc=$?
check_eq "base create refuses an unknown variant (64)" 64 "$rc"
check_contains "  and names the variants" "$out" "essential, minbase, apt or buildd"
out=$("$HARKAQ" store --store "$S" base show nope 2>&1); rc=$?
check_eq "base show of an unknown base: 65" 65 "$rc"
check_contains "  saying how to make it" "$out" "harkaq store base create nope"
E=$W/empty
before=$(ls -A "$S" | paste -sd,)
out=$("$HARKAQ" store --store "$S" base create failing --mirror file:///nonexistent/mirror 2>&1); rc=$?
check_eq "a base creation that fails exits 70" 70 "$rc"
check_eq "  and leaves nothing in the store (no temporary tree, no tag)" "$before|absent" \
	"$(ls -A "$S" | paste -sd,)|$(test -e "$S/.bases/failing" && echo present || echo absent)"
check_eq "  control: the store still lists one base" 1 \
	"$("$HARKAQ" store --store "$S" base list | wc -l)"
# Interrupted (Ctrl-C reaches the whole process group: harkaq and mmdebstrap): nothing stays.
setsid "$HARKAQ" store --store "$S" base create interrupted >"$W/int.out" 2>&1 &
ipid=$!
for _ in $(seq 100); do grep -q 'making interrupted' "$W/int.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT -- -"$ipid" 2>/dev/null
wait "$ipid"; rc=$?
check_eq "an interrupted base creation exits 128+SIGINT" 130 "$rc"
check_contains "  and says nothing was added" "$(cat "$W/int.out")" "interrupted: nothing was added to the store"
check_eq "  and leaves nothing in the store (no temporary tree, no tag)" "$before|absent" \
	"$(ls -A "$S" | paste -sd,)|$(test -e "$S/.bases/interrupted" && echo present || echo absent)"

# ---- importing what the base lacks ------------------------------------------------------------
IS=$W/imports
"$HARKAQ" store --store "$IS" base import $NAME --from "$BASESTORE" >/dev/null
out=$("$HARKAQ" store --store "$IS" import-apt --with-deps make 2>&1); rc=$?
check_eq "import-apt --with-deps in a store with a base: exit 0" 0 "$rc"
check_contains "  it reads the store's pinned base" "$out" "base $NAME (its packages are not imported again)"
check_contains "  and leaves to it what it holds (libc6)" "$out" "base libc6 (needed by make"
check_eq "  the store gains make and not libc6" "make|" \
	"$("$HARKAQ" store --store "$IS" list | awk '{print $2}' | grep -E '^(make|libc6)$' | paste -sd'|')|"
out=$("$HARKAQ" store --store "$IS" import-apt --with-deps --base nope make 2>&1); rc=$?
check_eq "import-apt --base naming a base the store lacks: 65" 65 "$rc"
check_contains "  saying how to make it" "$out" "no base 'nope'"

# ---- builds on the pinned base -------------------------------------------------------------
mkdir -p "$W/z/src"
cat >"$W/z/src/z.c" <<'EOF'
#include <stdio.h>
#include <zlib.h>
int main(void) { printf("zlib %s\n", zlibVersion()); return 0; }
EOF
zrecipe() { # DEPS [BASE-LINE]
	printf 'name = "zuser"\nversion = "1"\n%s\n[source]\ndir = "src"\n[deps]\nbuild = [%s]\n' \
		"${2:-}" "$1"
	printf '[phases]\ncompile = ["x86_64-linux-gnu-gcc-12 -O2 -o z z.c -lz", "./z"]\n'
}
zrecipe '"gcc-12", "libc6-dev"' >"$W/z/undeclared.toml"
zrecipe '"gcc-12", "libc6-dev", "zlib1g-dev"' >"$W/z/declared.toml"
"$HARKAQ" build --store "$S" --result-out "$W/u.json" "$W/z/undeclared.toml" >"$W/u.log" 2>&1
rc=$?
check_eq "an undeclared header visible through the store view: Impure (1)" 1 "$rc"
check_eq "  the denial names /usr/include/zlib.h, read by cc1" \
	"/usr/include/zlib.h fs.read_file" \
	"$(jq -r '.phases[0].verdict.denials[] | select(.path == "/usr/include/zlib.h") | "\(.path) \(.blockers)"' "$W/u.json" | head -1)"
check_contains "  and says what to declare" "$(cat "$W/u.log")" \
	"/usr/include/zlib.h → declare dep: zlib1g-dev"
"$HARKAQ" build --store "$S" --result-out "$W/d.json" "$W/z/declared.toml" >"$W/d.log" 2>&1
rc=$?
check_eq "control: the same build declaring zlib1g-dev is Hermetic (0)" 0 "$rc"
check_seen "  its verdict" "$W/d.json"
check_contains "  and the program ran against the declared zlib" "$(cat "$W/d.log")" "zlib 1.2.13"
check_eq "the evidence names the pinned base: its id, name, pinned, packages" \
	"$BASE_ID $NAME true $npkg" \
	"$(jq -r '.phases[0].verdict.base | "\(.id) \(.name) \(.pinned) \(.packages)"' "$W/d.json")"
view=$(jq -r '.phases[0].verdict.base.view' "$W/d.json")
check "the evidence names the store view by its snapshot id" grep -qE '^b3:[0-9a-f]{64}$' <<<"$view"
check "  and that view is on disk" test -d "$S/.views/${view#b3:}/tree/usr"
pol=$("$HARKAQ" policy --store "$S" "$W/z/declared.toml")
check_contains "the policy states its base" "$pol" "base $BASE_ID"
sed "s|^name = \"zuser\"|name = \"zuser\"\nbase = \"$BASE_ID\"|" "$W/z/declared.toml" >"$W/z/byid.toml"
check "a recipe naming the base by id derives the very policy of its (default) name" \
	diff <("$HARKAQ" policy --store "$S" "$W/z/declared.toml" | grep -v '^#') \
	<("$HARKAQ" policy --store "$S" "$W/z/byid.toml" | grep -v '^#')
zrecipe '"gcc-12"' 'base = "nope"' >"$W/z/nobase.toml"
out=$("$HARKAQ" build --store "$S" "$W/z/nobase.toml" 2>&1); rc=$?
check_eq "a recipe naming a base the store lacks: 65" 65 "$rc"
check_contains "  naming the recipe's line and how to make it" "$out" \
	"nobase.toml:3:8: base: no base 'nope'"
check_contains "  (the command to run)" "$out" "harkaq store base create nope"

# ---- symlinks of undeclared artifacts, base packages by name ---------------------------------
mkdir -p "$W/l/src"
cat >"$W/l/trap.toml" <<'EOF'
name = "links"
version = "1"
[source]
dir = "src"
[deps]
build = ["zlib1g"]
[phases]
compile = ["cat /usr/lib/x86_64-linux-gnu/libz.so.1 > /dev/null", "if cat /usr/lib/x86_64-linux-gnu/libz.so > /dev/null; then echo followed; else echo refused; fi"]
EOF
"$HARKAQ" build --store "$S" --result-out "$W/t.json" "$W/l/trap.toml" >"$W/t.log" 2>&1
rc=$?
check_eq "following an undeclared package's symlink to a declared file: Impure (1)" 1 "$rc"
check_contains "  the link was refused" "$(cat "$W/t.log")" "refused"
check_contains "  and the diagnosis names the link and its package" "$(cat "$W/t.log")" \
	"declare dep: zlib1g-dev (the build followed its symlink /usr/lib/x86_64-linux-gnu/libz.so)"
check_eq "  control: the declared base package's own file was read (one denial only)" 1 \
	"$(jq '.phases[0].verdict.denials | length' "$W/t.json")"
"$HARKAQ" build --no-cage --store "$S" "$W/l/trap.toml" >"$W/tn.log" 2>&1
check_contains "without the cage the same link leads to its target (the plain links)" \
	"$(cat "$W/tn.log")" "followed"

# Linking with -lz, zlib1g declared and zlib1g-dev not: ld looks for libz.so, which only
# zlib1g-dev ships — a link to the declared zlib1g's library.  Reading a link is not a Landlock
# access, so without the view's trap the build would link through it silently, Hermetic.  The
# program names zlibVersion itself: no header of zlib1g-dev is needed, only the link.
printf '%s\n' '#include <stdio.h>' 'const char *zlibVersion(void);' \
	'int main(void) { printf("zlib %s\n", zlibVersion()); return 0; }' >"$W/l/src/lz.c"
lzrecipe() { # DEPS
	printf 'name = "lz"\nversion = "1"\n[source]\ndir = "src"\n[deps]\nbuild = [%s]\n' "$1"
	printf '[phases]\ncompile = ["x86_64-linux-gnu-gcc-12 -O2 -o lz lz.c -lz", "./lz"]\n'
}
lzrecipe '"gcc-12", "libc6-dev", "zlib1g"' >"$W/l/lz.toml"
lzrecipe '"gcc-12", "libc6-dev", "zlib1g", "zlib1g-dev"' >"$W/l/lz-dev.toml"
chmod -R a+rX "$W/l"
"$HARKAQ" build --store "$S" --result-out "$W/lz.json" "$W/l/lz.toml" >"$W/lz.log" 2>&1
check_eq "-lz with zlib1g declared and zlib1g-dev not: Impure (1), not Hermetic" "1 Impure" \
	"$? $(jq -r '.phases[0].verdict.state' "$W/lz.json")"
check_contains "  naming zlib1g-dev, whose link libz.so the linker followed" "$(cat "$W/lz.log")" \
	"declare dep: zlib1g-dev (the build followed its symlink /usr/lib/x86_64-linux-gnu/libz.so)"
"$HARKAQ" build --store "$S" --result-out "$W/lz-dev.json" "$W/l/lz-dev.toml" >"$W/lz-dev.log" 2>&1
check_eq "control: declaring zlib1g-dev, the same link is Hermetic (0)" 0 "$?"
check_seen "  its verdict" "$W/lz-dev.json"
check_contains "  and the program ran against the declared zlib" "$(cat "$W/lz-dev.log")" "zlib 1.2.13"

cat >"$W/l/getconf.toml" <<'EOF'
name = "getconf"
version = "1"
[source]
dir = "src"
[phases]
compile = "cat /usr/bin/getconf > /dev/null || true"
EOF
"$HARKAQ" build --store "$S" --result-out "$W/g.json" "$W/l/getconf.toml" >"$W/g.log" 2>&1
check_contains "a denied file of the base names its package" "$(cat "$W/g.log")" \
	"/usr/bin/getconf → declare dep: libc-bin (/usr/bin/getconf is in the base, from libc-bin)"
check_eq "  its provider's origin is the base" "base" \
	"$(jq -r '.phases[0].report.declarable[0].providers[0].origin' "$W/g.json")"
sed 's/^\[phases\]/[deps]\nbuild = ["libc-bin"]\n[phases]/' "$W/l/getconf.toml" >"$W/l/getconf2.toml"
"$HARKAQ" build --store "$S" --result-out "$W/g2.json" "$W/l/getconf2.toml" >"$W/g2.log" 2>&1
rc=$?
check_eq "control: declaring the base package libc-bin makes it Hermetic" 0 "$rc"
check_seen "  its verdict" "$W/g2.json"

# ---- nothing of the host -------------------------------------------------------------------
cat >"$W/l/probe.toml" <<EOF
name = "probe"
version = "1"
[source]
dir = "src"
[phases]
compile = "cat $PROBE > /dev/null 2>&1 || true"
EOF
sed 's/^version = "1"/version = "1"\nbase = "host"/' "$W/l/probe.toml" >"$W/l/probe-host.toml"
verdict_core() { jq -c '[.phases[].verdict | {state, denials: [.denials[] | {path, blockers}], base: .base.id, policy_id}]' "$1"; }
"$HARKAQ" build --store "$S" --result-out "$W/p0.json" "$W/l/probe.toml" >/dev/null 2>&1
"$HARKAQ" build --store "$S" --result-out "$W/h0.json" "$W/l/probe-host.toml" >/dev/null 2>&1
h0=$?
mkdir -p "$(dirname "$PROBE")"
echo "a host plugin" >"$PROBE"
chmod 644 "$PROBE"
"$HARKAQ" build --store "$S" --result-out "$W/h1.json" "$W/l/probe-host.toml" >/dev/null 2>&1
h1=$?
"$HARKAQ" build --store "$S" --result-out "$W/p1.json" "$W/l/probe.toml" >/dev/null 2>&1
p1=$?
rm -f "$PROBE"
check_eq "control: on base = \"host\", a file added to the host's bfd-plugins changes the verdict" \
	"0 1" "$h0 $h1"
check_contains "  naming the file" "$(jq -r '.phases[0].verdict.denials[].path' "$W/h1.json")" "$PROBE"
check_eq "  and the host base's evidence says it is unpinned" "host false" \
	"$(jq -r '.phases[0].verdict.base | "\(.name) \(.pinned)"' "$W/h1.json")"
check_eq "on the pinned base the same file changes nothing: Hermetic both times" "0" "$p1"
check_eq "  same verdict, denials, base and policy as without the file" \
	"$(verdict_core "$W/p0.json")" "$(verdict_core "$W/p1.json")"
check_seen "  its verdict" "$W/p1.json"

# ---- verification: warm, and tampering caught ----------------------------------------------
"$HARKAQ" build --store "$S" "$W/z/declared.toml" >"$W/w.log" 2>&1
check "a warm build checks its closure and base by their stat caches" \
	grep -qE 'verified .* ([1-9][0-9]*) unchanged since the last full check' "$W/w.log"
f=$TREE/usr/share/doc/dash/copyright
m=$(stat -c %Y "$f")
cp "$f" "$W/orig"
chmod u+w "$f"
printf 'X' | dd of="$f" bs=1 seek=10 conv=notrunc 2>/dev/null
touch -d "@$m" "$f"
chmod 444 "$f"
out=$("$HARKAQ" build --store "$S" "$W/z/declared.toml" 2>&1); rc=$?
check_eq "a changed byte in the base, its mtime put back: the build refuses (65)" 65 "$rc"
check_contains "  naming the base and the file" "$out" \
	"base $BASE_ID does not verify: artifact $NAME $BASE_ID was altered: /usr/share/doc/dash/copyright: content differs"
chmod u+w "$f"
cp "$W/orig" "$f"
touch -d "@$m" "$f"
chmod 444 "$f"
"$HARKAQ" build --store "$S" "$W/z/declared.toml" >/dev/null 2>&1
check_eq "control: the byte put back, the same build is Hermetic again" 0 "$?"
finish
