#!/bin/bash
# Every citation in the tree resolves (docs/design.md, first paragraph): design.md §N and §N.M,
# kernel-facts.md §N, and docs/NAME.md, "Title" name a section, an item or a heading that
# exists.  The checker is first run on made-up documents and must catch each broken kind.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$ROOT/tests/integration/citations.py
T=$(mktemp -d /tmp/harkaq-citations.XXXXXX)
trap 'rm -rf "$T"' EXIT

mkdir -p "$T/docs"
printf '# design\n\n## 3. The cage\n\n1. one\n2. two\n\n## 4. The canary\n' >"$T/docs/design.md"
printf '# facts\n\n## 5. Audit netlink\n' >"$T/docs/kernel-facts.md"
printf '# cage\n\n## Entry points: installed for, and reachable\n' >"$T/docs/cage.md"
{
	echo "design.md §3 design.md §3.2 kernel-facts.md §5 docs/cage.md, \"Entry points\""
	echo "design.md §9"
	echo "design.md §3.7"
	echo "kernel-facts.md §12"
	echo "docs/cage.md, \"No such heading\""
	echo "docs/elsewhere.md, \"Anything\" (not a document of this tree)"
} >"$T/src.c"
check_eq "control: each broken kind of citation is caught, the good ones are not" \
	"src.c:2: design.md §9|src.c:3: design.md §3.7|src.c:4: kernel-facts.md §12|src.c:5: docs/cage.md, \"No such heading\"" \
	"$(python3 "$CHECK" "$T" src.c | paste -sd'|')"

bad=$(python3 "$CHECK" "$ROOT")
check_eq "every citation in the tree resolves" "" "$bad"
n=$(cd "$ROOT" && git ls-files | grep -v '^tests/data/' | xargs grep -ohE '(design|kernel-facts)\.md §[0-9]+|[a-z-]+\.md, "[^"]+"' 2>/dev/null | wc -l)
if [ "$n" -ge 100 ]; then ok "the tree's citations were read ($n)"
else not_ok "the tree's citations were read" "only $n found"; fi
finish
