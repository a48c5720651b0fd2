#!/bin/bash
# harkaq sweep over Debian source packages (docs/sweep.md, "Debian source packages"), on the
# debian-12-buildd base, with packages made here (dpkg-source -b), --out given relative:
#   - hkcalc (Build-Depends: bison, calls yacc): builds, downloading its closure; hkyacc (the
#     same without Build-Depends, after hkcalc brought bison into the store): missing
#     Build-Depends bison, with its evidence; hknope=1.0 (a pin no archive has): fetch failed,
#     with apt's reason; hkslow=1.0 (a pin whose source is already in the sweep's cache):
#     built through the pin, its closure from the store;
#   - while a build runs its work directories are under its item's directory in --out, and
#     none is left anywhere once the sweep ends, however the build ended;
#   - interrupted with SIGINT while hkslow builds: the sweep says so, hkslow not built (not
#     failed); run again, hkcalc and hkyacc are taken from their records (their logs and
#     records untouched), the others built, none left not built;
#   - hkhang (its build sleeps past --item-timeout): timed out, its processes gone (its sleep
#     seen while it ran), nothing of it left (no work directory, no artifact, no result);
#   - hkcrash, whose build process is killed with SIGSEGV: failed (crash), and the sweep goes on;
#   - sweep merge of the result = the sweep's own summary, byte for byte;
#   - --decide-probes: hkcalc and hkyacc built again (an item done without it is not taken
#     from its record); hkinfl, which ships what it found of bison, is an undeclared influence
#     (in the JSON, the table and the HTML), hkinert, which only reads it, inert; --confirm
#     built with too, then the same sweep again resumes every item;
#   - the HTML report opened in headless Chromium: the screenshot is not blank (a blank page's
#     is, the control).
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE

BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd) || { not_ok "buildd base fixture"; finish; exit 1; }
W=$(hk_scratch)
SWEEP_PID=
cleanup() {
	[ -n "$SWEEP_PID" ] && kill -TERM "$SWEEP_PID" 2>/dev/null && wait "$SWEEP_PID" 2>/dev/null
	[ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }
	rm -rf "$W"
}
trap cleanup EXIT
sec() { echo "# [${SECONDS}s] $*"; }
S=$W/store
"$HARKAQ" store --store "$S" base import debian-12-buildd --from "$BASESTORE" >/dev/null ||
	not_ok "import the buildd base"

# make_pkg DIR NAME BUILD-DEPENDS SLEEP: a source package NAME 1.0 (a calculator from a yacc
# grammar, as in dsc.sh) whose build first sleeps SLEEP seconds.
make_pkg() {
	"$ROOT/tests/fixtures/testpkg.sh" "$@" >/dev/null || not_ok "make the test package $2"
}

# A long directory: the report must show its paths whole.
LONG=$W/pkgs/a-directory-with-a-rather-long-name-so-that-the-report-has-to-wrap-it
mkdir -p "$LONG/calc" "$W/pkgs/yacc" "$W/hang" "$W/crash" "$W/sources/hkslow_1.0"
make_pkg "$LONG/calc" hkcalc bison 0
make_pkg "$W/pkgs/yacc" hkyacc "" 0
make_pkg "$W/hang" hkhang bison 3137
make_pkg "$W/crash" hkcrash bison 4242
# hkslow=1.0 as a pin already fetched: the sweep's cache holds its source, marked complete.
make_pkg "$W/sources/hkslow_1.0" hkslow bison 12
touch "$W/sources/hkslow_1.0/.complete"
printf '# pins\nhknope=1.0    a source no archive has\nhkslow=1.0\n' >"$W/list.txt"
O=$W/out
# Run in the background, as `sweep … &`: exec, so that $! is the sweep itself (a signal to
# a background subshell would stop there, SIGINT ignored).  --out is relative, from $W: the
# sweep hands its children absolute paths (a relative TMPDIR breaks dpkg-source).
sweep() {
	cd "$W" || exit 1
	exec "$HARKAQ" sweep --store "$S" --out out --sources "$W/sources" --dsc-list "$W/list.txt" \
		--item-timeout 60 --html "$O/report.html" "$@"
}
j() { jq -r "$1" "$O/result.json"; }
item() { jq -r --arg k "$1" ".recipes[] | select(.key | endswith(\$k)) | $2" "$O/result.json"; }
# Work directories of this test's builds anywhere under /var/tmp, where a build makes them when
# nobody says otherwise (by their sources: package names no other test uses), beyond those
# there before it started (another run of this test, on other code, may have left some).
ours='hk(yacc|slow|hang|crash|infl|inert)-1\.0'
stray_all() {
	find /var/tmp -maxdepth 4 \( -path '/var/tmp/harkaq-build-*/src/*' -o \
		-path '/var/tmp/harkaq-dsc-*/recipe/src/*' \) -prune 2>/dev/null | grep -E "/$ours\$" | sort
}
stray_before=$(stray_all)
stray() { comm -13 <(echo "$stray_before") <(stray_all) | grep .; }
# work_of ITEM: its work directories while it builds (the engine's and the front end's).
work_of() { ls -d "$O"/work/*"$1"*/harkaq-build-* "$O"/work/*"$1"*/harkaq-dsc-* 2>/dev/null; }

# ---- run 1: interrupted while hkslow builds --------------------------------------------------
sec "run 1, interrupted"
sweep "$W/pkgs" --jobs 1 >"$W/run1.out" 2>"$W/run1.err" &
SWEEP_PID=$!
# hkcalc, hkyacc and hknope come first (keys in byte order: paths, then pins); interrupt once
# hkslow's build is in its phases (its sleep runs).
for _ in $(seq 1 300); do
	pgrep -f '^sleep 12$' >/dev/null && break
	kill -0 "$SWEEP_PID" 2>/dev/null || break
	sleep 0.5
done
pgrep -f '^sleep 12$' >/dev/null && ok "hkslow's build reached its phases (the control for the interruption)" ||
	not_ok "hkslow's build reached its phases" "$(tail -5 "$W/run1.err")"
slow_work=$(work_of hkslow)
check_eq "while it builds, its work directories (the engine's, the front end's) are in its item's directory" \
	"harkaq-build- harkaq-dsc-" "$(for d in $slow_work; do basename "$d" | grep -oE '^harkaq-(build|dsc)-'; done | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "...and none of this test's anywhere in /var/tmp" "" "$(stray)"
kill -INT "$SWEEP_PID"
wait "$SWEEP_PID"; rc=$?
SWEEP_PID=
check_eq "an interrupted sweep exits 130" 130 "$rc"
check_eq "...and its result says so" 2 "$(j .interrupted)"
check_eq "four items, none dropped" 4 "$(j '.recipes | length')"
check_eq "hkcalc built (every phase exited 0)" "0 0 0" "$(item hkcalc_1.0.dsc '[.phases[].exit_code] | join(" ")')"
check_contains "hkcalc: Hermetic or probes only" "hermetic probes_only" "$(item hkcalc_1.0.dsc .outcome)"
check_eq "hkyacc: missing Build-Depends" missing_build_depends "$(item hkyacc_1.0.dsc .outcome)"
check_eq "hkyacc: the missing package is bison" bison "$(item hkyacc_1.0.dsc '[.debian.missing[].package] | join(" ")')"
check_eq "hkyacc: ...with the evidence object of the phase that was denied it" true \
	"$(item hkyacc_1.0.dsc '.debian.missing[0] as $m | ($m.evidence | startswith("b3:")) and ([.phases[] | select(.phase == $m.phase) | .evidence] == [$m.evidence])')"
ev=$(item hkyacc_1.0.dsc '.debian.missing[0].evidence')
path=$(item hkyacc_1.0.dsc '.debian.missing[0].path')
check_contains "...which holds the denied path" "$("$HARKAQ" evidence --store "$S" show "$ev" 2>&1)" "$path"
check_eq "hknope=1.0: fetch failed" fetch_failed "$(item hknope=1.0 .outcome)"
check_contains "...with apt's reason" "$(item hknope=1.0 .failure.reason)" "apt-get source --download-only hknope=1.0 failed"
check_eq "hkslow=1.0: interrupted, not a result: not built" "not_built interrupted" \
	"$(item hkslow=1.0 '"\(.outcome) \(.failure.code)"')"
check_contains "...said so" "$(item hkslow=1.0 .failure.reason)" "while this item was being built"
check_eq "the counts: 4 items, 1 not built, 0 failed (none did), 1 fetch failed" "4 1 0 1" \
	"$(jq -r '.summary | "\(.recipes) \(.not_built) \(.failed) \(.fetch_failed)"' "$O/summary.json")"
check_eq "...the Debian classes alike" "1 0" \
	"$(jq -r '.summary.debian.classes | "\(.not_built) \(.failed)"' "$O/summary.json")"
check_contains "the table takes the shares over the 3 built" "$(cat "$O/summary.txt")" \
	"(3 built: the shares are of those)"
check_contains "...and so does the HTML" "$(cat "$O/report.html")" \
	"1 of 4 item(s) not built (the same sweep run again builds them)"
check_eq "two records: hkcalc and hkyacc (not the fetch failure, not the interrupted)" 2 "$(ls "$O/done" | wc -l)"
check_eq "the interrupted build's work directories are gone with its item's directory" \
	"" "$(ls -A "$O/work" 2>/dev/null; for d in $slow_work; do [ -e "$d" ] && echo "$d"; done)"
check "the relative --out: every log is named by its absolute path" \
	jq -e "[.recipes[].run.log | select(. != null) | startswith(\"$O/logs/\")] | (length == 4 and all)" "$O/result.json"
check_eq "hkcalc downloaded its closure (the store had only the base)" true \
	"$(item hkcalc_1.0.dsc '.run.closure_downloaded > 0 and .debian.closure > 0')"
calc_log=$(item hkcalc_1.0.dsc .run.log)
records=$(ls "$O"/done/*.json)
stamp() { stat -c '%n %y' "$@"; }
# shellcheck disable=SC2086
before=$(stamp "$calc_log" $records)

# ---- run 2: resumed, with hkhang past the limit ----------------------------------------------
sec "run 2, resumed"
sleep 1.1   # a file rewritten now would have another mtime
sweep "$W/pkgs" "$W/hang" "$W/crash" --jobs 2 >"$W/run2.out" 2>"$W/run2.err" &
SWEEP_PID=$!
hang_seen=0 crash_seen=0 crashed= hang_work=
while kill -0 "$SWEEP_PID" 2>/dev/null; do
	if pgrep -f '^sleep 3137$' >/dev/null; then
		hang_seen=1
		[ -n "$hang_work" ] || hang_work=$(work_of hkhang)
	fi
	# hkcrash's build in its phases: its process (the sweep's child that is an ancestor of
	# the sleep) dies of SIGSEGV, as a build that crashes.
	if [ -z "$crashed" ] && s=$(pgrep -f '^sleep 4242$'); then
		crash_seen=1
		p=$s
		while [ -n "$p" ] && [ "$p" -gt 1 ]; do
			pp=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)
			if [ "$pp" = "$SWEEP_PID" ]; then
				kill -SEGV "$p" && crashed=$p
				break
			fi
			p=$pp
		done
	fi
	sleep 0.5
done
wait "$SWEEP_PID"; rc=$?
SWEEP_PID=
check_eq "the resumed sweep completes" 0 "$rc"
check_eq "...not interrupted" null "$(j .interrupted)"
check_eq "...none left not built (the control for run 1's), hkcrash the one failed" "0 1" \
	"$(jq -r '.summary | "\(.not_built) \(.failed)"' "$O/summary.json")"
check_eq "six items" 6 "$(j '.recipes | length')"
check_eq "hkcalc and hkyacc taken from their records" "true true" \
	"$(echo $(item hkcalc_1.0.dsc .run.resumed) $(item hkyacc_1.0.dsc .run.resumed))"
# shellcheck disable=SC2086
check_eq "...not built again: their log and records untouched" "$before" "$(stamp "$calc_log" $records)"
check_eq "...with the same classes" "missing_build_depends" "$(item hkyacc_1.0.dsc .outcome)"
check_eq "hkslow=1.0 built this time (the control: the resumed run builds)" "false 0 0 0" \
	"$(item hkslow=1.0 '"\(.run.resumed) \([.phases[].exit_code] | join(" "))"')"
check_contains "...as a Debian item of class Hermetic or probes only" "hermetic probes_only" "$(item hkslow=1.0 .outcome)"
check_eq "...its closure (hkcalc's) from the store: nothing downloaded" "true 0" \
	"$(item hkslow=1.0 '"\(.debian.closure > 0) \(.run.closure_downloaded)"')"
check_eq "hknope=1.0 tried again (a fetch failure is not recorded)" "false fetch_failed" \
	"$(item hknope=1.0 '"\(.run.resumed) \(.outcome)"')"
check_contains "progress on stderr: done/total and the rate" "$(cat "$W/run2.err")" "6/6 done (2 resumed)"
check_contains "...and the time left" "$(cat "$W/run2.err")" " left"

sec "a build that crashed"
check_eq "hkcrash's build ran, and its process was killed with SIGSEGV" "1 yes" "$crash_seen ${crashed:+yes}"
check_eq "hkcrash: failed, code crash" "failed crash" "$(item hkcrash_1.0.dsc '"\(.outcome) \(.failure.code)"')"
check_contains "...saying so" "$(item hkcrash_1.0.dsc .failure.reason)" "killed by signal 11"
check_eq "...its processes gone" "" "$(pgrep -af '^sleep 4242$')"
check_eq "...not recorded: a resumed sweep builds it again" "" \
	"$(grep -l hkcrash "$O"/done/*.json)"

sec "the item past its limit"
check_eq "hkhang's sleep ran (the control for 'its processes gone')" 1 "$hang_seen"
check_eq "hkhang: timed out" timed_out "$(item hkhang_1.0.dsc .outcome)"
check_contains "...saying why" "$(item hkhang_1.0.dsc .failure.reason)" "limit of 60 s per item (--item-timeout)"
check_eq "...its processes gone" "" "$(pgrep -af '^sleep 3137$')"
check "while it ran, its work directories were in its item's directory (the control)" \
	test -n "$hang_work"
check_eq "...no work directory left: not in its item's directory, not anywhere" "" \
	"$(ls -A "$O/work" 2>/dev/null; for d in $hang_work; do [ -e "$d" ] && echo "$d"; done; stray)"
w=$(grep -h '^\[work\] ' "$O"/logs/*.log | sed 's/^\[work\] //')
check "control: the builds' logs say where their work directories were" test -n "$w"
check_eq "every build of the sweep made its work directory in its item's ($(wc -l <<<"$w") of them)" "" \
	"$(grep -vE "^$O/work/[0-9]{4}-[^/]+/harkaq-build-[0-9a-f]+\$" <<<"$w")"
arts=$("$HARKAQ" store --store "$S" list 2>/dev/null)
check_contains "the built packages' .debs are in the store (the control)" "$arts" "hkslow_debs"
check_not_contains "...hkhang's are not" "$arts" "hkhang"
check_eq "...and no temporary in the store" 0 "$(find "$S" -maxdepth 1 -name '.tmp-*' | wc -l)"

sec "summary and merge"
classes='[.hermetic, .declarable, .irreducible, .no_evidence, .failed, .missing_build_depends, .influence, .unattributed, .probes_only, .inert_probes, .fetch_failed, .timed_out, .not_built] | add'
check_eq "the classes add up" 6 "$(jq ".summary | $classes" "$O/summary.json")"
check_eq "...the Debian items' own too" 6 "$(jq ".summary.debian.classes | $classes" "$O/summary.json")"
check_eq "each item's outcome is the build's own class where the build gave one" "" \
	"$(jq -r '.recipes[] | select(.debian.class != null) | select(.outcome != ({"missing": "missing_build_depends", "probes": "probes_only"}[.debian.class] // .debian.class)) | .key' "$O/result.json")"
check_eq "bison is named by one source package, as missing" "1 1" "$(jq -r '.summary.debian.named[] | select(.package == "bison") | "\(.sources) \(.missing)"' "$O/summary.json")"
check "time per item in the run data" jq -e '.run.item_ms.items == 6 and .run.item_ms.median > 0' "$O/result.json"
"$HARKAQ" sweep merge "$O" --store "$S" --out "$W/merged" >/dev/null 2>"$W/merge.err"
check_eq "sweep merge reads the Debian items back" 0 $?
check "...its summary.json is the sweep's, byte for byte" cmp "$O/summary.json" "$W/merged/summary.json"

# ---- run 3: --decide-probes --------------------------------------------------------------------
# make_probe_pkg NAME LINE: a package without Build-Depends whose build runs LINE instead of
# yacc (bison is visible in the store, imported for hkcalc, and undeclared: reading it is a
# probe) and ships the file "features" LINE writes.
make_probe_pkg() {
	local name=$1 line=$2 d=$W/$1
	"$ROOT/tests/fixtures/testpkg.sh" "$d" "$name" "" 0 >/dev/null || not_ok "make the test package $name"
	(cd "$d" && dpkg-source -x "${name}_1.0.dsc" "$name-1.0" >/dev/null 2>&1) || not_ok "unpack $name"
	awk -v b="$line" -v n="$name" '
		/^\tyacc -o calc.c calc.y$/ { print "\t" b; print "\tprintf '"'"'int main(void) { return 0; }\\n'"'"' >calc.c"; next }
		/^\tdpkg-gencontrol/ { print "\tinstall -D -m 644 features debian/tmp/usr/share/" n "/features" }
		{ print }' "$d/$name-1.0/debian/rules" >"$d/rules" && mv "$d/rules" "$d/$name-1.0/debian/rules"
	chmod 755 "$d/$name-1.0/debian/rules"
	rm -f "$d/${name}"_1.0.*
	(cd "$d" && dpkg-source -b "$name-1.0" >/dev/null 2>&1) || not_ok "dpkg-source -b $name"
	rm -rf "$d/$name-1.0"
}
make_probe_pkg hkinfl 'if cat /usr/bin/bison >/dev/null 2>&1; then echo bison; else echo plain; fi >features'
make_probe_pkg hkinert 'cat /usr/bin/bison >/dev/null 2>&1 || true; echo plain >features'
# The options of run 2, with --decide-probes: for hkcalc and hkyacc only that differs.
decide() (
	cd "$W" || exit 1
	exec "$HARKAQ" sweep --store "$S" --out out --sources "$W/sources" --item-timeout 60 \
		--html "$O/report.html" --jobs 2 --decide-probes "$@"
)
sec "run 3, --decide-probes"
decide "$W/pkgs" "$W/hkinfl" "$W/hkinert" >"$W/run3.out" 2>"$W/run3.err"
check_eq "the sweep with --decide-probes completes" 0 $?
check_eq "hkcalc and hkyacc built again: done without --decide-probes, their records do not stand" \
	"false false" "$(echo $(item hkcalc_1.0.dsc .run.resumed) $(item hkyacc_1.0.dsc .run.resumed))"
check_eq "...and their builds were asked to decide" "true true" \
	"$(echo $(item hkcalc_1.0.dsc '.debian.decide != null') $(item hkyacc_1.0.dsc '.debian.decide != null'))"
check_eq "hkinfl: an undeclared influence, the build's own class" "influence influence" \
	"$(item hkinfl_1.0.dsc '"\(.outcome) \(.debian.class)"')"
check_eq "...its probe bison decided an influence" "bison influence" \
	"$(item hkinfl_1.0.dsc '.debian.probes[] | "\(.package) \(.decision.class)"')"
check_contains "...the .deb member that differs, named" \
	"$(item hkinfl_1.0.dsc '.debian.probes[0].decision.differences | join(" | ")')" "usr/share/hkinfl/features"
check_contains "...and the rule that said so" "$(item hkinfl_1.0.dsc '.debian.probes[0].decision.why')" \
	"the .debs differ"
check_eq "hkinert: the same probe, decided inert (the control): inert probes only" \
	"inert_probes bison inert" \
	"$(item hkinert_1.0.dsc '"\(.outcome) \(.debian.probes[] | "\(.package) \(.decision.class)")"')"
check_eq "the summary lists the one influence" "bison hkinfl 1" \
	"$(jq -r '.summary.debian.influences[] | "\(.package) \(.source) \(.n_differences > 0 | if . then 1 else 0 end)"' "$O/summary.json")"
check_eq "...and counts it" "1 1" \
	"$(jq -r '"\(.summary.influence) \(.summary.debian.named[] | select(.package == "bison") | .influences)"' "$O/summary.json")"
T3=$(cat "$O/summary.txt")
check_contains "the table says the decision" "$T3" "probes: bison (influence: "
check_contains "...and lists the influence" "$T3" "  bison changes hkinfl: "
check_contains "...the control's decision too" "$T3" "probes: bison (inert)"
check_eq "every Debian item's work directory gone" "" "$(ls -A "$O/work" 2>/dev/null; stray)"

sec "run 4, with --confirm too, and run 5, the same again"
decide "$W/pkgs" --confirm >"$W/run4.out" 2>"$W/run4.err"
check_eq "the sweep with --confirm completes" 0 $?
check_eq "hkyacc built again with --confirm: its missing bison confirmed a need" "false still_fails" \
	"$(item hkyacc_1.0.dsc '"\(.run.resumed) \(.debian.confirm)"')"
check_contains "...said in the table" "$(cat "$O/summary.txt")" "(--confirm: still_fails)"
decide "$W/pkgs" --confirm >"$W/run5.out" 2>"$W/run5.err"
check_eq "the same sweep again: every item taken from its record (the control: options that did not change)" \
	"true true" "$(echo $(item hkcalc_1.0.dsc .run.resumed) $(item hkyacc_1.0.dsc .run.resumed))"

# The report of run 3, with the influences.
decide "$W/pkgs" "$W/hkinfl" "$W/hkinert" >"$W/run6.out" 2>"$W/run6.err"
check_eq "run 3 again: resumed whole" 4 "$(jq '[.recipes[] | select(.run.resumed)] | length' "$O/result.json")"
ev=$(item hkyacc_1.0.dsc '.debian.missing[0].evidence')
iev=$(item hkinfl_1.0.dsc '.debian.probes[0].evidence')
sec "the HTML report"
H=$(cat "$O/report.html")
check_contains "the report has the Debian section" "$H" "Packages named most often as undeclared"
check_contains "...the undeclared influences" "$H" "<h2>Undeclared influences (1)</h2>"
check_contains "...with the differing file" "$H" "usr/share/hkinfl/features"
check_contains "...and the evidence of the probe" "$H" "/.evidence/${iev#b3:}.json"
check_contains "...the missing package with its evidence link" "$H" "/.evidence/${ev#b3:}.json"
check_contains "...the long path whole" "$H" "a-directory-with-a-rather-long-name-so-that-the-report-has-to-wrap-it/calc/hkcalc_1.0.dsc"
check_not_contains "...no SVG label clipped at the left" "$H" 'text-anchor="end"'

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	skip "the report in headless Chromium" "chromium is not installed (apt-get install chromium)"
else
	# shot HTML PNG: a screenshot in a fresh profile, nothing fetched from the network.
	shot() {
		local prof
		prof=$(mktemp -d "$W/chrome.XXXXXX")
		timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$prof" --window-size=1280,1600 --screenshot="$2" "file://$1" \
			>"$W/chrome.log" 2>&1
	}
	# spread PNG: the standard deviation of its grey levels (0..1), decoded here (zlib and the
	# PNG filters; 8-bit RGB or RGBA, as Chromium writes) so that nothing else is needed.
	spread() {
		python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} colour type {ctype}"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, total, sq, count = bytearray(stride), 0.0, 0.0, 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 4):        # every 4th pixel: enough for a spread
        g = (line[x] * 299 + line[x + 1] * 587 + line[x + 2] * 114) / 255000.0
        total += g; sq += g * g; count += 1
    prev = line
mean = total / count
print(f"{max(sq / count - mean * mean, 0) ** 0.5:.4f}")
PY
	}
	printf '<!DOCTYPE html><html><body style="background:#fff"></body></html>\n' >"$W/blank.html"
	if shot "$O/report.html" "$W/report.png" && shot "$W/blank.html" "$W/blank.png"; then
		r=$(spread "$W/report.png" 2>&1); b=$(spread "$W/blank.png" 2>&1)
		echo "# screenshot grey-level standard deviation: report $r, blank page $b"
		check "the report's screenshot is not blank (σ $r > 0.05)" \
			bash -c "[[ '$r' =~ ^[0-9]+\.[0-9]+\$ ]] && awk -v v='$r' 'BEGIN { exit !(v > 0.05) }'"
		check "...a blank page's is (the control: σ $b < 0.01)" \
			bash -c "[[ '$b' =~ ^[0-9]+\.[0-9]+\$ ]] && awk -v v='$b' 'BEGIN { exit !(v < 0.01) }'"
	else
		not_ok "headless Chromium took the screenshots" "$(tail -5 "$W/chrome.log")"
	fi
fi
finish
