#!/bin/bash
# tests/integration/verity.sh again, inside a QEMU guest booting Debian 12's own kernel (which
# has CONFIG_FS_VERITY), through tests/vm/verity-guest.sh (docs/sealing.md, "Running it in a
# guest"): the fs-verity half of the test runs even where the host kernel has no fs-verity.
# Each of the guest's tests is re-emitted here as "guest: NAME". A guest that cannot boot (or
# does not finish in time, or a missing prerequisite) is a failure with its reason, not a skip.
. "$(dirname "$0")/lib.sh"

VM=$(cd "$(dirname "$0")/.." && pwd)/vm/verity-guest.sh
OUT=$(mktemp /tmp/harkaq-vg.XXXXXX)
ERR=$(mktemp /tmp/harkaq-vg.XXXXXX)
trap 'rm -f "$OUT" "$ERR"' EXIT

"$VM" >"$OUT" 2>"$ERR"; rc=$?

name= why= state=
flush() {
	case "$state" in
	ok) ok "guest: $name" ;;
	skip) skip "guest: $name" "$why" ;;
	notok) not_ok "guest: $name" "${why:-failed in the guest}" ;;
	esac
	state= name= why=
}
n=0
while IFS= read -r line; do
	case "$line" in
	"not ok "*)
		flush; n=$((n + 1)); state=notok; name=$(sed -E 's/^not ok [0-9]+ - ?//' <<<"$line") ;;
	"ok "*"# SKIP "*)
		flush; n=$((n + 1)); state=skip
		name=$(sed -E 's/^ok [0-9]+ - ?//; s/ # SKIP .*//' <<<"$line"); why=${line##*# SKIP } ;;
	"ok "*)
		flush; n=$((n + 1)); state=ok; name=$(sed -E 's/^ok [0-9]+ - ?//' <<<"$line") ;;
	"#   "*)
		[ "$state" = notok ] && why=${why:+$why
}${line#\#   } ;;
	*) ;;
	esac
done <"$OUT"
flush

kernel=$(sed -n 's/^# guest-kernel: //p' "$OUT" | head -1)
if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
	ok "guest: booted ${kernel:-?} and ran verity.sh to its end ($n tests)"
else
	reason=$(sed -n 's/^# guest: //p' "$OUT" | tail -1)
	[ -n "$reason" ] || reason="tests/vm/verity-guest.sh exited $rc after $n test(s)"
	not_ok "guest: booted a kernel with fs-verity and ran verity.sh to its end" \
		"$reason
$(tail -n 25 "$ERR")"
fi
finish
