#!/bin/bash
# fanotify's watch for the converse (src/sys/openwatch.h) reports a file once: after its first
# report, opens of it raise no event (an ignore mark on its inode), which spares a build an
# event, a descriptor and a readlink per open of the same file.  A file with other links keeps
# raising events: opened under another name, that name must still be reported.  The positive
# controls are in the same run: the first open of each file is reported, a linked file is
# reported again, and its other name is reported.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
OW=$HELPERS/openwatch_once
[ -x "$OW" ] || { not_ok "tests/helpers/openwatch_once is built" "missing $OW (run make)"; finish; exit 1; }
D=$(mktemp -d /tmp/harkaq-openwatch.XXXXXX)
trap 'rmdir "$D" 2>/dev/null' EXIT
if ! out=$("$OW" "$D" 2>&1); then
	case "$out" in
	*fanotify*"Function not implemented"*|*fanotify*"Operation not permitted"*)
		skip "fanotify reports a file once" "no fanotify filesystem marks here: $out"; finish; exit 0 ;;
	esac
	not_ok "openwatch_once ran" "$out"; finish; exit 1
fi
line() { printf '%s\n' "$out" | awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }'; }
check_eq "the first open of a file is reported" "1 one" "$(line one-first)"
check_eq "later opens of a reported file raise no event" "0" "$(line one-again)"
check_eq "a file with other links is reported at its first open" "1 two" "$(line two-first)"
check_eq "... and again at the next (no ignore mark: its other names must be seen)" "1 two" \
	"$(line two-again)"
check_eq "its other name is reported" "1 two-link" "$(line two-link)"

# A build knows more than the link count: a store file's other links are in the store's views,
# outside the sandbox's overlay; when its verified trees name an inode once, the drain's caller
# says so and the file is marked as a single-linked one is.  Same run of the same files: the
# first open is still reported (the control), the next raise nothing, and — why the caller must
# be right — neither does the other name of the inode.
if ! out=$("$OW" "$D" --only-name 2>&1); then
	not_ok "openwatch_once --only-name ran" "$out"; finish; exit 1
fi
check_eq "--only-name: the first open of a linked file is reported" "1 two" "$(line two-first)"
check_eq "--only-name: its later opens raise no event" "0" "$(line two-again)"
check_eq "--only-name: nor does its other name (the mark is the inode's)" "0" "$(line two-link)"
check_eq "--only-name: a single-linked file as before" "1 one 0" "$(line one-first) $(line one-again)"
finish
