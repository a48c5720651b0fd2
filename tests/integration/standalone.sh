#!/bin/bash
# The tree stands alone: a clone, by itself in an empty folder, builds, tests and explains
# itself.  Fails when a tracked file refers to something the repository does not contain:
#   - a sibling checkout beside the repository (a "shared" directory one level up);
#   - a requirements or kernel-facts document kept outside the tree (the project's own are
#     docs/design.md and docs/kernel-facts.md, cited as "design §N" and "kernel-facts §N");
#   - an absolute path outside the tree that is not a system path: under a personal or site
#     location (/home, /root, /mnt, /media, /work, …) or under any top-level directory of this
#     machine that is not part of the standard hierarchy.
# The matcher is first run on a generated file holding one reference of each kind, and on one
# holding none of them, so a matcher that cannot fail fails here.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
T=$(mktemp -d /tmp/harkaq-standalone.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The patterns are assembled from pieces so that this file does not match itself.
S=SPEC; K=KERNEL; D=..
SYSTEM_ROOTS='usr|dev|tmp|bin|sbin|etc|proc|sys|var|opt|lib|lib32|lib64|libx32|run|srv|boot'
# Not system paths, wherever the test runs.
SITE_ROOTS='home|root|mnt|media|work|scratch|nfs|data|Users|old_root'
# Top-level directories of this machine outside the standard hierarchy (a build farm's mounts).
HOST_ROOTS=$(find / -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null |
	grep -vxE "$SYSTEM_ROOTS|lost\+found|$SITE_ROOTS" | grep -E '^[A-Za-z0-9._+-]+$' |
	sed 's/[.+]/\\&/g' | paste -sd'|')
ROOTS=$SITE_ROOTS${HOST_ROOTS:+|$HOST_ROOTS}
PATTERN="\\$D/shared([^A-Za-z0-9_-]|\$)|$S ?§|$S\\.md|$K-FACTS|(^|[^A-Za-z0-9_.~/\$})>-])/($ROOTS)/[A-Za-z0-9._-]"

# matches FILE...: "FILE:LINE:TEXT" for every reference outside the tree.
matches() { grep -HInE "$PATTERN" "$@"; }

# ---- positive and negative controls ----
{
	echo "vectors in $D/shared/testdata"
	echo "as $S §3 says"
	echo "see $S.md"
	echo "($K-FACTS §5)"
	echo "export DATA=/""work/shared/x"
	echo "cp \$HOME/y /""home/user/y"
} >"$T/bad.txt"
got=$(matches "$T/bad.txt" | cut -d: -f2 | paste -sd,)
check_eq "control: every kind of reference outside the tree is caught (one per line)" \
	"1,2,3,4,5,6" "$got"
{
	echo "dir = \"$D/shared-src\"        # a sibling inside the tree"
	echo "as design.md §3 and kernel-facts.md §5 say; a SPECIAL case"
	echo "/usr/include/zlib.h /tmp/x /var/tmp/y /src /out /.harkaq/canary /proc/self/fd"
	echo "/work/ in .gitignore, /home alone, \$ROOT/work/x, build/work/x"
} >"$T/good.txt"
check_eq "control: system paths, the sandbox's paths and the project's citations are not caught" \
	"" "$(matches "$T/good.txt")"
if [ -n "$HOST_ROOTS" ]; then
	first=${HOST_ROOTS%%|*}; first=${first//\\/}
	echo "/$first/anything" >"$T/host.txt"
	check_eq "control: a path under this machine's own top-level /$first is caught" \
		"1" "$(matches "$T/host.txt" | cut -d: -f2)"
fi

# ---- the tree ----
if [ ! -e .git ]; then
	skip "tracked files refer to nothing outside the tree" "not a git checkout"
	finish; exit
fi
mapfile -d '' files < <(git ls-files -z)
if [ "${#files[@]}" -lt 100 ]; then
	not_ok "control: the tree's tracked files are listed" "only ${#files[@]}"
else
	ok "control: ${#files[@]} tracked files are scanned"
fi
found=$(matches "${files[@]}")
check_eq "no tracked file refers to a path or document outside the tree" "" "$found"
for doc in docs/design.md docs/kernel-facts.md tests/data/blake3/test_vectors.json; do
	check "the tree holds $doc, which its citations and tests need" test -s "$doc"
done

# cited FILE...: every "design.md §N[.M]" and "kernel-facts.md §N" (and the sections listed
# after it: "§2, §6", "§3.1–3.7") that names no section of the document: "FILE:LINE: CITATION".
cited() {
	python3 - "$@" <<'EOF'
import re, sys

def sections(doc):
    """{N: set of item numbers M} from '## N. Title' headings and 'M. ' list items."""
    out, cur = {}, None
    for line in open(doc, encoding='utf-8'):
        m = re.match(r'## (\d+)\. ', line)
        if m:
            cur = int(m.group(1)); out[cur] = set(); continue
        m = re.match(r'(\d+)\. ', line)
        if m and cur is not None:
            out[cur].add(int(m.group(1)))
    return out

docs = {'design.md': sections('docs/design.md'), 'kernel-facts.md': sections('docs/kernel-facts.md')}
cite = re.compile(r'(design\.md|kernel-facts\.md) (§[0-9.]+(?:(?:, | and |; |–|-)§?[0-9.]+)*)')
for path in sys.argv[1:]:
    try:
        lines = open(path, encoding='utf-8').read().splitlines()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for no, line in enumerate(lines, 1):
        for m in cite.finditer(line):
            secs = docs[m.group(1)]
            for ref in re.findall(r'[0-9]+(?:\.[0-9]+)?', m.group(2)):
                n, _, item = ref.partition('.')
                n = int(n)
                if n not in secs or (item and int(item) not in secs[n]):
                    print(f'{path}:{no}: {m.group(1)} §{ref}')
EOF
}
printf '%s\n' 'as design.md §3.8 and §13 say' 'kernel-facts.md §5, §9' >"$T/cites-good.txt"
# (Written in pieces, so that this file's own citations all exist.)
printf '%s\n' 'see design.md §1''4' 'design.md §3.4''2' 'kernel-facts.md §5, §9''9' >"$T/cites-bad.txt"
check_eq "control: citations of sections that exist pass" "" "$(cited "$T/cites-good.txt")"
check_eq "control: citations of sections that do not exist are caught" \
	"design.md §1""4,design.md §3.4""2,kernel-facts.md §9""9" \
	"$(cited "$T/cites-bad.txt" | sed 's/^[^ ]* //' | paste -sd,)"
ncites=$(git grep -ohE '(design|kernel-facts)\.md §' | wc -l)
if [ "$ncites" -gt 0 ]; then
	ok "control: the tree cites design.md and kernel-facts.md by section ($ncites citations)"
else
	not_ok "control: the tree cites design.md and kernel-facts.md by section" "no citation found"
fi
check_eq "every design.md and kernel-facts.md citation names a section that exists" "" \
	"$(cited "${files[@]}")"
finish
