#!/bin/bash
# The README's usage list names every command of `harkaq` (src/cli/main.c's command table),
# and the quick start works without sudo (a fresh Debian 12 root has none).  The matcher is
# first run on a generated table and README where one command is missing.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
T=$(mktemp -d /tmp/harkaq-readme.XXXXXX)
trap 'rm -rf "$T"' EXIT

# verbs MAIN_C: the commands of the table, one a line ({ "name", "summary", cmd_…[, true] }).
verbs() { sed -nE 's/^[[:space:]]*\{ "([a-z-]+)", ".*", cmd_[a-z_]+(, (true|false))? \},?$/\1/p' "$1"; }
# unlisted MAIN_C README: the commands the README's indented usage lines never show.
unlisted() {
	local v
	for v in $(verbs "$1"); do
		grep -qE "^    harkaq $v( |$)" "$2" || echo "$v"
	done
}

printf '%s\n' '	{ "run", "run it", cmd_run },' '	{ "evidence", "objects", cmd_evidence },' >"$T/main.c"
printf '%s\n' '    harkaq run --policy P -- CMD' 'the evidence verb, only in prose: harkaq evidence' >"$T/README.md"
check_eq "control: a command missing from a README's usage lines is caught" "evidence" \
	"$(unlisted "$T/main.c" "$T/README.md")"

n=$(verbs src/cli/main.c | wc -l)
if [ "$n" -ge 8 ]; then ok "control: main.c's command table is read ($n commands)"
else not_ok "control: main.c's command table is read" "only $n commands: $(verbs src/cli/main.c | paste -sd' ')"; fi
check_eq "README's usage lists every command of main.c" "" "$(unlisted src/cli/main.c README.md)"

# The quick start: run as root, no sudo needed; setup's refusal names both forms.
check_not_contains "README's commands need no sudo (indented command lines)" \
	"$(grep -E '^    sudo ' README.md)" "sudo"
if id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	out=$(runuser -u nobody -- ./setup --deps-only 2>&1); rc=$?
	check_eq "setup refuses a non-root user (exit 1)" 1 "$rc"
	check_contains "setup's refusal names both forms" "$out" "./setup in a root shell, or sudo ./setup"
else
	skip "setup refuses a non-root user" "needs root and the user nobody"
fi
finish
