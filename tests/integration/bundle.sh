#!/bin/bash
# Store bundles (docs/store.md, "Bundles"): export a closure or the whole store as one stream,
# import it into another store verified and idempotently; every kind of damage refused with
# the place named and nothing of the damaged artifact left, next to the intact bundle that
# imports (the control).
. "$(dirname "$0")/lib.sh"
S=$(hk_scratch)
trap 'rm -rf "$S"' EXIT
hk() { local st=$1; shift; "$HARKAQ" store --store "$S/$st" "$@"; }

mkdir -p "$S/a/usr/bin" "$S/a/usr/share/a" "$S/b/usr/share/b" "$S/c/usr/share/c"
printf '#!/bin/sh\necho a\n' >"$S/a/usr/bin/tool-a"; chmod 755 "$S/a/usr/bin/tool-a"
ln -s tool-a "$S/a/usr/bin/ta"
echo "data of a" >"$S/a/usr/share/a/data"
seq 1 60000 >"$S/b/usr/share/b/blob"
echo "c" >"$S/c/usr/share/c/x"
hk hub add "$S/a" --name tool-a --version 1 >/dev/null &&
hk hub add "$S/b" --name tool-b --version 2 --dep tool-a >/dev/null &&
hk hub add "$S/c" --name tool-c --version 3 >/dev/null
check_eq "a hub store of three artifacts" 0 $?

# ---- export --------------------------------------------------------------------------------
hk hub export tool-b --out "$S/b.bundle" 2>"$S/export.err"
check_eq "export of tool-b's closure exits 0" 0 $?
check_contains "the closure: tool-b and tool-a" "$(cat "$S/export.err")" "exported 2 artifact(s), 3 file(s)"
check_eq "tool-c is not in it" 0 "$(grep -c '"name": "tool-c"' "$S/b.bundle")"
hk hub export tool-b >"$S/b2.bundle" 2>/dev/null
check "the same closure gives the same bytes (stdout = --out)" cmp "$S/b.bundle" "$S/b2.bundle"
hk hub export --all --out "$S/all.bundle" 2>/dev/null
check_eq "--all holds the three" 3 "$(grep -c '^artifact ' "$S/all.bundle")"
# Derived, machine-local files are never carried.
mkdir -p "$S/hub/.views/x" && touch "$S/hub/.meta/stray.stat"
hk hub export --all --out "$S/all2.bundle" 2>/dev/null
check "the index, views and caches are not carried (same bytes with them present)" cmp "$S/all.bundle" "$S/all2.bundle"
# A dep the store lacks: refused, unless the base root (its dpkg status) or --base has it.
mkdir -p "$S/d/usr/share/d" && echo d >"$S/d/usr/share/d/x"
hk hub2 add "$S/d" --name tool-d --version 1 --dep libc6 >/dev/null
out=$(hk hub2 export tool-d --out "$S/d.bundle" 2>&1)
check_eq "a closure with a dep nobody has: exit 65" 65 $?
check_contains "the missing dep is named" "$out" "libc6"
out=$(hk hub2 export tool-d --base-root / --out "$S/d.bundle" 2>&1)
check_eq "the host's dpkg status has libc6 (--base-root /)" 0 $?
check_contains "so the closure is tool-d alone" "$out" "exported 1 artifact(s)"
out=$(hk hub2 export tool-d --base libc6 --out "$S/d.bundle" 2>&1)
check_contains "--base libc6 does the same" "$out" "exported 1 artifact(s)"
out=$(hk hub export 2>&1)
check_eq "export without IDs or --all: exit 64" 64 $?
out=$(hk hub export tool-zzz --out "$S/z.bundle" 2>&1)
check_eq "export of an unknown ID: exit 65" 65 $?
check_contains "the unknown ID is named" "$out" "tool-zzz"

# ---- import: verified, idempotent ----------------------------------------------------------
out=$(hk w1 import "$S/b.bundle" 2>&1)
check_eq "import into a new store exits 0" 0 $?
check_contains "tool-a added" "$out" "added b3:$(hk hub show tool-a | jq -r .id | cut -c4-) tool-a 1"
check_contains "tool-b added" "$out" "added b3:$(hk hub show tool-b | jq -r .id | cut -c4-) tool-b 2"
check_contains "the summary says verified" "$out" "imported 2 artifact(s) (2 added, 0 present), 3 file(s), verified"
check "the imported store verifies" hk w1 verify
check_eq "the same ids as the hub" "$(hk hub list | grep -v tool-c)" "$(hk w1 list)"
check_eq "the path index is rebuilt: /usr/bin/ta is provided" "/usr/bin/ta tool-a" \
	"$(hk w1 which /usr/bin/ta | awk '{print $1, $2}')"
snap() { (cd "$S/$1" && find . -path ./.lock -prune -o -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %s %Y' ); }
before=$(snap w1)
out=$(hk w1 import - <"$S/b.bundle" 2>&1)
check_eq "importing again (from stdin) exits 0" 0 $?
check_contains "everything is present" "$out" "imported 2 artifact(s) (0 added, 2 present)"
check_eq "and the store is unchanged" "$before" "$(snap w1)"

# ---- damage --------------------------------------------------------------------------------
damaged() { # NAME FILE EXPECTED-MESSAGE: refused (65), named, nothing of it left
	local out rc
	rm -rf "$S/wd"
	out=$(hk wd import "$2" 2>&1); rc=$?
	check_eq "$1: exit 65" 65 "$rc"
	check_contains "$1: the problem is named" "$out" "$3"
	check_eq "$1: no temporary directory left" "" "$(ls -a "$S/wd" | grep '^\.tmp-')"
}
python3 - "$S" <<'PY'
import sys
s = sys.argv[1]
d = open(s + "/b.bundle", "rb").read()
# A byte of the last file of the second artifact (the bundle's order is by directory name).
k = d.rindex(b"end\ndone") - 2
open(s + "/content.bundle", "wb").write(d[:k] + bytes([d[k] ^ 1]) + d[k + 1:])
i = d.index(b"data of a")
open(s + "/meta.bundle", "wb").write(d.replace(b'"version": "2"', b'"version": "9"'))  # identity
open(s + "/trunc.bundle", "wb").write(d[: len(d) - 40])                       # truncated
# An entry through a symlink of the same artifact: usr/bin/ta -> tool-a, then usr/bin/ta/x.
j = d.index(b"\nend\n", i)
open(s + "/escape.bundle", "wb").write(d[:j] + b"\nf " + b"0" * 64 + b" 1 usr/bin/ta/x\nX" + d[j:])
open(s + "/tail.bundle", "wb").write(d + b"more")
PY
damaged "an altered file" "$S/content.bundle" "does not hash to its entry's hash: the bundle was altered"
check_eq "an altered file: the artifact before it is committed, that one is not" 1 "$(hk wd list | wc -l)"
check "an altered file: what was committed verifies" hk wd verify
damaged "altered metadata" "$S/meta.bundle" "its identity hashes to"
check_eq "altered metadata: nothing of that artifact" "" "$(hk wd list 2>/dev/null | grep tool-b)"
damaged "a truncated bundle" "$S/trunc.bundle" "the bundle is truncated"
damaged "an entry beneath a symlink" "$S/escape.bundle" "'usr/bin/ta/x' comes before its directory"
damaged "bytes after the end" "$S/tail.bundle" "bytes after 'done': not one bundle"
damaged "not a bundle" "$S/export.err" "not a harkaq bundle"
# The control: the intact bundle imports into the same fresh store.
rm -rf "$S/wd"
check "the intact bundle imports where the damaged ones did not" hk wd import "$S/b.bundle"

# An artifact altered in the hub is never exported.
chmod u+w "$S"/hub/*-tool-c/usr/share/c/x && echo "changed" >"$S"/hub/*-tool-c/usr/share/c/x
out=$(hk hub export tool-c --out "$S/c.bundle" 2>&1)
check_eq "export of an altered artifact: exit 65" 65 $?
check_contains "the altered file is named" "$out" "usr/share/c/x: content differs from the artifact's manifest"
check_eq "no bundle is left under its name" no "$([ -e "$S/c.bundle" ] && echo yes || echo no)"
check_eq "nor a temporary one" "" "$(ls "$S" | grep 'c.bundle.tmp')"

finish
