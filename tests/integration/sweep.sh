#!/bin/bash
# harkaq sweep over the small mixed test catalogue tests/data/sweep (docs/sweep.md): exact
# counts per outcome, every broken recipe reported with its reason, the debt paths and their
# classification, the base-debt measure, --jobs 2 = --jobs 1, and shards 1/3..3/3 merged =
# the single-machine sweep, byte for byte.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1

FIXTURE=$(tests/fixtures/debstore.sh) || { not_ok "fixture store" "debstore.sh failed"; finish; exit 1; }
S=$(hk_scratch)
trap 'rm -rf "$S"' EXIT
# The sweep seals its artifacts into the store: a hard-linked copy keeps the shared fixture
# untouched (adds only create new files and rename a new index into place).
cp -al "$FIXTURE" "$S/store"
CAT=tests/data/sweep

# ---- one machine, one job ----
"$HARKAQ" sweep "$CAT" --store "$S/store" --out "$S/one" --html "$S/one/report.html" \
	>"$S/one.stdout" 2>"$S/one.stderr"
check_eq "sweep exits 0 when it completes (whatever the outcomes)" 0 $?
T=$(cat "$S/one/summary.txt")
J=$(cat "$S/one/summary.json")

field() { grep -m1 "\"$1\": " "$S/$2/summary.json" | sed 's/.*: //; s/,$//'; }
check_eq "8 recipes, none dropped" 8 "$(field recipes one)"
check_eq "Hermetic: 1" 1 "$(field hermetic one)"
check_eq "only declarable debt: 2" 2 "$(field declarable one)"
check_eq "irreducible debt: 1" 1 "$(field irreducible one)"
check_eq "no evidence: 0" 0 "$(field no_evidence one)"
check_eq "failed: 4" 4 "$(field failed one)"
check_eq "measured = hermetic + declarable + irreducible" 4 "$(field measured one)"
check_eq "irreducible rate 1/4" 0.25 "$(field irreducible_rate one)"
check_eq "two builds had a failed phase" 2 "$(field failed_builds one)"

row() { grep -E "^$1 " "$S/one/summary.txt"; }
# Positive and negative in the same catalogue: the recipe that declares everything is
# Hermetic, the one running an undeclared make is not.
check_contains "the hermetic recipe is Hermetic in every phase" "$(row sweep-hermetic)" \
	"Hermetic                 0     0  compile=Hermetic install=Hermetic"
check_seen "the hermetic recipe is Hermetic" "$(ls "$S/one/builds/"*hermetic*.json 2>/dev/null | head -1)"
check_contains "undeclared make: declarable debt, the build failed" "$(row sweep-declarable-make)" \
	"only declarable debt     1"
check_contains "a probe with a fallback: declarable debt, the build succeeded" \
	"$(row sweep-declarable-probe)" "configure=Impure compile=Hermetic install=Hermetic"
check_contains "a base file no package ships: irreducible" "$(row sweep-irreducible)" "irreducible debt"

# Every broken recipe is in the table with its reason.
check_contains "a recipe that does not load, with file:line:col" "$T" \
	"recipe: $CAT/broken-recipe/recipe.toml:1:1: missing required key 'version'"
check_contains "a dep the store lacks, with its position" "$T" \
	"deps: $CAT/broken-deps/recipe.toml:10:33: build dep 'libdoes-not-exist-dev' is not in the store"
check_contains "a source that cannot be fetched" "$(row sweep-broken-fetch)" \
	"fetch: fetching the source on the host"
check_contains "a compile error without debt: failed, with the phase" "$(row sweep-broken-compile)" \
	"phase: compile exited with status 1"

# The debt paths, counted per recipe, classified against the store.
check_contains "/usr/bin/make: 3 recipes, declarable, provider make, not in the base" "$T" \
	"3  declarable   no    /usr/bin/make  → declare dep: make"
check_contains "/etc/subuid: 1 recipe, irreducible, in the base" "$T" \
	"1  irreducible  yes   /etc/subuid  → nobody provides it"
check_contains "the JSON summary: make provides /usr/bin/make, 3 recipes" "$(echo "$J" | tr -d ' \n')" \
	'"debt_paths":[{"path":"/usr/bin/make","recipes":3,"class":"declarable","providers":["make"],"in_base":'

# One classification: every debt path the sweep lists has the class the build's own report
# (its diagnosis) gave it.  Both classes must occur, or the comparison proves nothing.
agree=$(python3 - "$S/one" <<'PY'
import glob, json, sys
out = sys.argv[1]
report = {}
for f in glob.glob(out + "/builds/*.json"):
    for ph in json.load(open(f)).get("phases", []):
        for cls in ("declarable", "irreducible"):
            for it in (ph.get("report") or {}).get(cls, []):
                report[it["path"]] = cls
swept = {}
for it in json.load(open(out + "/result.json"))["recipes"]:
    for d in it["debt"]:
        swept[d["path"]] = d["class"]
diff = sorted(p for p in swept if report.get(p) != swept[p])
print(" ".join(sorted(set(swept.values()))), "|", " ".join(diff))
PY
)
check_eq "the sweep classifies every debt path as the build's report does (both classes seen)" \
	"declarable irreducible | " "$agree"

# Base debt: the paths exist in the recipes' base (the pinned debian-12-essential), as the
# oracle says: /etc/subuid does, make (not an essential package) does not.
tree=$("$HARKAQ" store --store "$S/store" base show debian-12-essential | awk '$1 == "tree" {print $2}')
check "control: the oracle reads the pinned base's tree" test -d "$tree/etc"
want_total=0; want_distinct=0
[ -e "$tree/usr/bin/make" ] && want_total=$((want_total + 3)) && want_distinct=$((want_distinct + 1))
[ -e "$tree/etc/subuid" ] && want_total=$((want_total + 1)) && want_distinct=$((want_distinct + 1))
check_eq "base-debt paths summed over recipes" "$want_total" "$(field paths_total one)"
check_eq "distinct base-debt paths" "$want_distinct" "$(field paths_distinct one)"

# Progress: not a tty here, so one line per completed recipe.
check_eq "a progress line per recipe" 8 "$(grep -c '^\[sweep\] [0-9]/8 ' "$S/one.stderr")"
check_contains "the table is on stdout" "$(cat "$S/one.stdout")" "irreducible rate: 1 of 4 measured"

# The HTML report is self-contained.
H=$(cat "$S/one/report.html")
check_contains "HTML has the inline SVG chart" "$H" "<svg"
check_contains "HTML names the base each recipe stood on" "$H" \
	"on debian-12-essential <code>$(jq -r '[.recipes[] | select(.base != null)][0].base.id' "$S/one/result.json" | cut -c1-14)…</code>"
check_eq "HTML loads nothing from outside" 0 "$(grep -ciE '<script|<link|<img|src=|href=|url\(|@import' "$S/one/report.html")"

# ---- two jobs: the same summary ----
"$HARKAQ" sweep "$CAT" --store "$S/store" --jobs 2 --out "$S/two" --quiet >/dev/null 2>"$S/two.stderr"
check_eq "--jobs 2 completes" 0 $?
if cmp -s "$S/one/summary.json" "$S/two/summary.json"; then
	ok "--jobs 2 gives the same summary.json as --jobs 1"
else
	not_ok "--jobs 2 gives the same summary.json as --jobs 1" "$(diff "$S/one/summary.json" "$S/two/summary.json" | head -20)"
fi
check_eq "--quiet: no progress" "" "$(grep '^\[sweep\]' "$S/two.stderr")"

# ---- three shards, merged ----
for i in 1 2 3; do
	"$HARKAQ" sweep "$CAT" --store "$S/store" --shard "$i/3" --out "$S/shard$i" --quiet >/dev/null 2>&1
	check_eq "shard $i/3 completes" 0 $?
done
# Shard I/N holds the positions p with p mod N = I-1 of the bytewise-sorted keys.
keys=$(find "$CAT" -name recipe.toml | LC_ALL=C sort)
for i in 1 2 3; do
	want=$(echo "$keys" | awk -v i="$i" 'NR % 3 == i % 3' | tr '\n' ' ')
	got=$(grep '"key": ' "$S/shard$i/summary.json" | sed 's/.*"key": "//; s/",$//' | tr '\n' ' ')
	check_eq "shard $i/3 holds exactly its slice" "$want" "$got"
	check_eq "--list --shard $i/3 names that slice, building nothing" "$want" \
		"$("$HARKAQ" sweep "$CAT" --list --shard "$i/3" 2>/dev/null | tr '\n' ' ')"
done
"$HARKAQ" sweep merge "$S/shard3/result.json" "$S/shard1" "$S/shard2/result.json" --out "$S/merged" \
	--store "$S/store" >"$S/merged.stdout" 2>&1
check_eq "merge exits 0" 0 $?
if cmp -s "$S/one/summary.json" "$S/merged/summary.json"; then
	ok "merged shards give the single-machine summary.json, byte for byte"
else
	not_ok "merged shards give the single-machine summary.json, byte for byte" "$(diff "$S/one/summary.json" "$S/merged/summary.json" | head -20)"
fi
check_eq "merged table = single-machine table" "$(cat "$S/one/summary.txt")" "$(cat "$S/merged/summary.txt")"

# The merge classifies: it takes the complete store explicitly, never a default one.
out=$(env -u HARKAQ_STORE "$HARKAQ" sweep merge "$S/shard1" "$S/shard2" "$S/shard3" 2>&1)
check_eq "a merge without --store: exit 64" 64 $?
check_contains "a merge without --store says why" "$out" "give the complete store with --store DIR"

# A missing or repeated shard is refused, never a silently smaller catalogue.
export HARKAQ_STORE=$S/store
out=$("$HARKAQ" sweep merge "$S/shard1" "$S/shard2" 2>&1)
check_eq "a missing shard: exit 65" 65 $?
check_contains "a missing shard is named" "$out" "shard(s) 3/3 missing: every recipe must be accounted for"
out=$("$HARKAQ" sweep merge "$S/shard1" "$S/shard1" "$S/shard2" 2>&1)
check_eq "a repeated shard: exit 65" 65 $?
check_contains "a repeated shard is named" "$out" "shard 1/3 is given twice"

# Recipes on an unpinned base are counted apart: the catalogue above stands on the pinned base
# (none unpinned); a one-recipe catalogue on base = "host" has one (the control).
check_eq "every recipe of the catalogue stood on the pinned base: 0 unpinned" 0 "$(field unpinned one)"
check_eq "  and every result names that base" "debian-12-essential true" \
	"$(jq -r '[.recipes[] | select(.base != null) | "\(.base.name) \(.base.pinned)"] | unique | join(",")' "$S/one/result.json")"
mkdir -p "$S/hostcat/h"
cat >"$S/hostcat/h/recipe.toml" <<'EOT'
name = "on-host"
version = "1"
base = "host"
[source]
dir = "."
[phases]
compile = "true"
EOT
"$HARKAQ" sweep "$S/hostcat" --store "$S/store" --out "$S/hostout" >/dev/null 2>&1
check_eq "control: a recipe on base = host is counted unpinned" 1 "$(field unpinned hostout)"
check_contains "  and the table says what that means" "$(cat "$S/hostout/summary.txt")" \
	"unpinned: 1 recipe(s) (1 measured) stood on an unpinned base"

# An earlier result in --out never stands for a sweep that has started: it is removed before
# the first build (a sweep killed outright writes nothing, and a merge must then see nothing).
mkdir -p "$S/stale"
cp "$S/shard3/result.json" "$S/shard3/summary.json" "$S/stale/"
"$HARKAQ" sweep tests/data/cluster/slow --store "$S/store" --out "$S/stale" --quiet >/dev/null 2>&1 &
sweep_pid=$!
for _ in $(seq 300); do ls "$S/stale/logs/"*slow* >/dev/null 2>&1 && break; sleep 0.1; done
check "the sweep has started its build" ls "$S/stale/logs/"
check_eq "the earlier result and summary are gone once it builds" "" "$(ls "$S/stale" | grep -E '^(result|summary)')"
wait "$sweep_pid"
check_eq "...and it completes: exit 0 (the control for the interrupted sweep below)" 0 $?
check_eq "the new sweep's result is its own" "tests/data/cluster/slow/recipe.toml" \
	"$(jq -r '.recipes[].key' "$S/stale/result.json")"
# An item's result path an earlier run left and that cannot be cleared (a directory here) is
# never read as its result: the item fails at setup, said why.
mkdir -p "$S/blocked/builds/0000-tests_data_cluster_slow_recipe.toml.json"
"$HARKAQ" sweep tests/data/cluster/slow --store "$S/store" --out "$S/blocked" --quiet >/dev/null 2>&1
check_eq "an item whose result path cannot be cleared: the sweep completes" 0 $?
check_eq "...the item failed at setup, its reason named in OUT" "failed setup" \
	"$(jq -r '.recipes[0] | "\(.outcome) \(.failure.code)"' "$S/blocked/result.json")"
check_eq "...said why" \
	"removing the earlier OUT/builds/0000-tests_data_cluster_slow_recipe.toml.json: Is a directory" \
	"$(jq -r '.recipes[0].failure.reason' "$S/blocked/result.json")"

# A signal stops the sweep cleanly: its result written and saying so, the reason on stderr, and
# 128 + the signal (the one table, engine/common/status.c).  Three recipes, one at a time: a-fails
# fails, b-slow is stopped while it builds, c-later never starts.  The two the signal kept
# from a result are not built — not failed — and the shares are of the one built; the same
# sweep run again builds them (the control: nothing is left not built).
for r in a-fails:"exit 3" b-slow:"sleep 6.5" c-later:"true"; do
	mkdir -p "$S/intr/${r%%:*}"
	printf 'name = "%s"\nversion = "1"\nbase = "host"\n[source]\ndir = "."\n[phases]\ncompile = "%s"\n' \
		"${r%%:*}" "${r#*:}" >"$S/intr/${r%%:*}/recipe.toml"
done
"$HARKAQ" sweep "$S/intr" --store "$S/store" --out "$S/term" --quiet >/dev/null 2>"$S/term.err" &
sweep_pid=$!
for _ in $(seq 300); do pgrep -f '^sleep 6\.5$' >/dev/null && break; sleep 0.1; done
check "b-slow's build reached its phase (the control for the interruption)" pgrep -f '^sleep 6\.5$'
kill -TERM "$sweep_pid"
wait "$sweep_pid"
check_eq "a sweep stopped by SIGTERM: exit 143" 143 $?
check_eq "...its result says so" 15 "$(jq -r .interrupted "$S/term/result.json")"
check_contains "...and so does stderr" "$(cat "$S/term.err")" \
	"harkaq sweep: interrupted by signal 15 (Terminated): 2 of 3 item(s) stopped or not built, in the result as not built (interrupted)"
outcome() { jq -r --arg k "$2" '.recipes[] | select(.key | endswith($k)) | "\(.outcome) \(.failure.code)"' "$S/$1/result.json"; }
check_eq "a-fails really failed: failed, code phase" "failed phase" "$(outcome term a-fails/recipe.toml)"
check_eq "b-slow, stopped while it built: not built" "not_built interrupted" "$(outcome term b-slow/recipe.toml)"
check_contains "...said so" "$(jq -r '.recipes[1].failure.reason' "$S/term/result.json")" \
	"while this item was being built"
check_eq "c-later, never started: not built" "not_built interrupted" "$(outcome term c-later/recipe.toml)"
check_eq "the counts: 3 items, 1 failed, 2 not built, nothing measured" "3 1 2 0 null" \
	"$(jq -r '.summary | "\(.recipes) \(.failed) \(.not_built) \(.measured) \(.irreducible_rate)"' "$S/term/summary.json")"
check_contains "the table takes the shares over the one built" "$(cat "$S/term/summary.txt")" \
	"(1 built: the shares are of those)"
check_contains "...failed: 1 of 1, not 1 of 3" "$(cat "$S/term/summary.txt")" "  failed                      1  100.0 %"
check_contains "...the 2 not built apart, without a share" "$(cat "$S/term/summary.txt")" \
	"  not built (interrupted)     2"
"$HARKAQ" sweep "$S/intr" --store "$S/store" --out "$S/term" --quiet >/dev/null 2>"$S/term2.err"
check_eq "the same sweep run again completes" 0 $?
check_eq "...nothing left not built, the failure still the one failure, the others built" "3 1 0 2" \
	"$(jq -r '.summary | "\(.recipes) \(.failed) \(.not_built) \(.hermetic)"' "$S/term/summary.json")"
check_eq "...a-fails taken from its record, the two others built" "true false false" \
	"$(jq -r '[.recipes[].run.resumed] | join(" ")' "$S/term/result.json")"
check_not_contains "...and the table says nothing of an interruption" "$(cat "$S/term/summary.txt")" "not built"

# The records are the code's: with the cage's helper harkaq-exec changed (the same program,
# one byte of its GNU build id flipped, as a rebuild changes it), no item is taken from its
# record.  The control is the same run with the helpers copied unchanged: every item is.
L="$S/libexec"
mkdir -p "$L"
cp "$(dirname "$HARKAQ")/harkaq-exec" "$(dirname "$HARKAQ")/harkaq-audit" "$L/"
chmod 755 "$L"
HARKAQ_LIBEXEC="$L" "$HARKAQ" sweep "$S/intr" --store "$S/store" --out "$S/term" --quiet \
	>/dev/null 2>"$S/term3.err"
check_eq "the helpers copied unchanged: every item taken from its record" "true true true" \
	"$(jq -r '[.recipes[].run.resumed] | join(" ")' "$S/term/result.json")"
id=$(readelf -n "$L/harkaq-exec" | awk '/Build ID/ { print $3 }')
python3 - "$L/harkaq-exec" "$id" <<'PY'
import sys
path, old = sys.argv[1], bytes.fromhex(sys.argv[2])
new = old[:-1] + bytes([old[-1] ^ 1])
data = open(path, "rb").read()
assert data.count(old) == 1, "the build id is not once in the file"
open(path, "wb").write(data.replace(old, new))
PY
check "harkaq-exec's build id changed" test "$(readelf -n "$L/harkaq-exec" | awk '/Build ID/ { print $3 }')" != "$id"
HARKAQ_LIBEXEC="$L" "$HARKAQ" sweep "$S/intr" --store "$S/store" --out "$S/term" --quiet \
	>/dev/null 2>"$S/term4.err"
check_eq "another harkaq-exec is other code: no item taken from its record" "false false false" \
	"$(jq -r '[.recipes[].run.resumed] | join(" ")' "$S/term/result.json")"

# A Debian item's work is made under --out (OUT/work): an --out the build user cannot reach is
# said once, before anything is built; the same --out made reachable builds (the control: a
# .dsc that does not parse, failed by its build, which read it).
mkdir -p "$S/locked" "$S/fakedsc"
chmod 700 "$S/locked"
echo "not a .dsc" >"$S/fakedsc/hkfake_1.0.dsc"
out=$("$HARKAQ" sweep "$S/fakedsc" --store "$S/store" --out "$S/locked/out" --quiet 2>&1 >/dev/null)
check_eq "an --out the build user cannot reach: exit 65" 65 $?
check_contains "...said with what to do" "$out" \
	"the build user nobody cannot reach $S/locked/out/work (where the Debian items' work directories are made): $S/locked is mode 0700 owned by root:root; run 'chmod o+x $S/locked', or choose another --out"
check_eq "...nothing built" "" "$(ls -A "$S/locked/out/logs" 2>/dev/null)"
chmod 755 "$S/locked"
"$HARKAQ" sweep "$S/fakedsc" --store "$S/store" --out "$S/locked/out" --quiet >/dev/null 2>&1
check_eq "the same --out, reachable: the sweep completes" 0 $?
check_eq "...its item built and failed on its .dsc" "failed setup true" \
	"$(jq -r '.recipes[0] | "\(.outcome) \(.failure.code) \(.failure.reason | test("hkfake_1.0.dsc"))"' "$S/locked/out/result.json")"
check_eq "...no work left in OUT/work" "" "$(ls -A "$S/locked/out/work" 2>/dev/null)"
# A --user that names nobody: a usage error before anything is made, --out included; the
# control is the run above, the same items with the default user, which completed.
out=$("$HARKAQ" sweep "$S/fakedsc" --store "$S/store" --out "$S/nouser" --user no-such-user-hk 2>&1)
check_eq "an unknown --user: exit 64" 64 $?
check_contains "...named" "$out" "harkaq sweep: unknown user 'no-such-user-hk' (give a name from /etc/passwd or a uid)"
check_eq "...no --out made" "absent" "$([ -e "$S/nouser" ] && echo present || echo absent)"
# Debian items without a store to take their base from: a usage error, nothing built.
out=$(env -u HARKAQ_STORE "$HARKAQ" sweep "$S/fakedsc" --out "$S/nostore" 2>&1)
check_eq "Debian items without --store: exit 64" 64 $?
check_contains "...said with what to do" "$out" \
	"harkaq sweep: Debian source packages need the store that holds their base (debian-12-buildd): give --store DIR or \$HARKAQ_STORE"
# An --out that cannot be made is the machine's refusal (70), whatever its errno (ENOTDIR here,
# which alone would read as bad input).
: >"$S/afile"
out=$("$HARKAQ" sweep "$CAT" --store "$S/store" --out "$S/afile/out" 2>&1)
check_eq "an --out that cannot be made: exit 70" 70 $?
check_contains "...named" "$out" "harkaq sweep: creating $S/afile/out: Not a directory"
# A --dsc-list line that is not a pin is bad input, named FILE:LINE.
printf '# pins\nsl=5.02-1\nnot-a-pin\n' >"$S/pins.txt"
out=$("$HARKAQ" sweep --dsc-list "$S/pins.txt" --store "$S/store" 2>&1)
check_eq "a --dsc-list line that is not NAME=VERSION: exit 65" 65 $?
check_contains "...named FILE:LINE" "$out" "harkaq sweep: $S/pins.txt:3: 'not-a-pin' is not NAME=VERSION"

# Usage errors.
out=$("$HARKAQ" sweep "$CAT" --shard 4/3 2>&1)
check_eq "--shard 4/3: exit 64" 64 $?
check_contains "--shard 4/3 explained" "$out" "--shard wants I/N with 1 <= I <= N"
out=$("$HARKAQ" sweep "$S/store/.meta" 2>&1)
check_eq "a directory without recipes: exit 65" 65 $?
check_contains "a directory without recipes is named" "$out" "no recipe.toml and no .dsc in this directory or below"

finish
