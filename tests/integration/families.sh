#!/bin/bash
# The families of src/core and src/engine, and their order (docs/design.md, "Families").
#
# Each folder under src/core and src/engine is one family; a family may use its own files and
# the families below it, never one above it nor one beside it (the same rank).  Checked twice,
# as tests/integration/core_pure.sh checks the layers: on what the sources include, and on what
# the compiled objects need (an undefined symbol of one family's object that another family's
# object defines).  The rooms' size is held too: no folder of more than 15 source files, and
# no source file of more than 1,200 lines.
#
# Every matcher is first run on a generated tree that breaks the rule, and must catch it.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
B=${HARKAQ_BUILD:-$PWD/build}
T=$(mktemp -d /tmp/harkaq-families.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The order, lowest first; families on one line share a rank and may not use each other.
# Changing it is a design decision: docs/design.md, "Families", says why each stands where it
# does.
CORE_ORDER='basic
formats
root policy
store
debian
evidence
attest sweep'
ENGINE_ORDER='common
store cage
build
debian
attest sweep'

MAX_FILES=15
MAX_LINES=1200

# violations ROOT LAYER ORDER BUILD: one line per use of a family by one not above it:
#   "FILE:LINE: FAMILY includes FAMILY2 (LAYER/FAMILY2/x.h)"  for a source's include, and
#   "OBJ: FAMILY needs SYMBOL of FAMILY2 (OBJ2)"               for an object's undefined symbol;
# plus "DIR: not a family of the order" for a folder the order does not place and
# "FILE: outside every family" for a source directly under src/LAYER.
violations() {
	python3 - "$@" <<'PY'
import glob, os, re, subprocess, sys
root, layer, order, build = sys.argv[1:5]
rank = {}
for i, line in enumerate(order.splitlines()):
    for fam in line.split():
        rank[fam] = i
base = os.path.join(root, 'src', layer)
out = []
for d in sorted(glob.glob(os.path.join(base, '*'))):
    name = os.path.basename(d)
    if os.path.isdir(d) and name not in rank:
        out.append(f'src/{layer}/{name}: not a family of the order')
    elif os.path.isfile(d) and d.endswith(('.c', '.h')):
        out.append(f'src/{layer}/{name}: outside every family')
inc = re.compile(r'\s*#\s*include\s*"' + layer + r'/([a-z_]+)/([^"]+)"')
def allowed(user, used):
    return used == user or (used in rank and user in rank and rank[used] < rank[user])
for f in sorted(glob.glob(os.path.join(base, '*', '*.[ch]'))):
    fam = f.split(os.sep)[-2]
    for n, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
        m = inc.match(line)
        if m and not allowed(fam, m.group(1)):
            rel = os.path.relpath(f, root)
            out.append(f'{rel}:{n}: {fam} includes {m.group(1)} ({layer}/{m.group(1)}/{m.group(2)})')
# The objects: who defines what, then who needs it.
defs, need = {}, {}
for o in sorted(glob.glob(os.path.join(build, 'obj', 'src', layer, '*', '*.o'))):
    fam = o.split(os.sep)[-2]
    src = os.path.join(base, fam, os.path.basename(o)[:-2] + '.c')
    if not os.path.exists(src):
        continue   # an object of a file that moved or went away
    text = subprocess.run(['nm', o], capture_output=True, text=True).stdout
    need[o] = set()
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            need[o].add(f[1])
        elif len(f) == 3 and f[1] in 'TDRB':
            defs[f[2]] = o
for o, syms in sorted(need.items()):
    fam = o.split(os.sep)[-2]
    for s in sorted(syms):
        d = defs.get(s)
        if d and not allowed(fam, d.split(os.sep)[-2]):
            out.append(f'{layer}/{fam}/{os.path.basename(o)}: {fam} needs {s} of '
                       f'{d.split(os.sep)[-2]} ({os.path.basename(d)})')
print('\n'.join(out))
PY
}

# ---- positive controls: a generated tree that breaks each rule ----
mkdir -p "$T/src/core/low" "$T/src/core/high" "$T/src/core/side" "$T/src/core/stray" \
	"$T/obj/src/core/low" "$T/obj/src/core/high"
printf 'int low_f(void);\n' >"$T/src/core/low/low.h"
printf '#include "core/high/high.h"\nint high_f(void);\nint low_f(void) { return high_f(); }\n' \
	>"$T/src/core/low/low.c"
printf 'int high_f(void);\n' >"$T/src/core/high/high.h"
printf '#include "core/low/low.h"\n#include "core/side/side.h"\nint high_f(void) { return low_f(); }\n' \
	>"$T/src/core/high/high.c"
printf 'int side_f(void);\n' >"$T/src/core/side/side.h"
printf 'int loose;\n' >"$T/src/core/loose.c"
ctrl_order='low
high side'
if cc -c -o "$T/obj/src/core/low/low.o" -x c "$T/src/core/low/low.c" -I"$T/src" 2>"$T/cc.err" &&
	cc -c -o "$T/obj/src/core/high/high.o" -x c "$T/src/core/high/high.c" -I"$T/src" 2>>"$T/cc.err"; then
	check_eq "control: a use of a family above, or beside, or unplaced, is caught in sources and objects" \
		"src/core/loose.c: outside every family|src/core/stray: not a family of the order|src/core/high/high.c:2: high includes side (core/side/side.h)|src/core/low/low.c:1: low includes high (core/high/high.h)|core/low/low.o: low needs high_f of high (high.o)" \
		"$(violations "$T" core "$ctrl_order" "$T" | paste -sd'|')"
else
	not_ok "control: compile the generated families" "$(cat "$T/cc.err")"
fi

# ---- the tree ----
for layer in core engine; do
	order=$CORE_ORDER
	[ "$layer" = engine ] && order=$ENGINE_ORDER
	nobj=$(ls "$B"/obj/src/$layer/*/*.o 2>/dev/null | wc -l)
	nsrc=$(ls src/$layer/*/*.c | wc -l)
	if [ "$nobj" -ge "$nsrc" ]; then ok "control: the objects of src/$layer are built ($nsrc files)"
	else not_ok "control: the objects of src/$layer are built" "$nobj objects for $nsrc sources (make first)"; fi
	check_eq "src/$layer: every family uses only its own files and the families below it" "" \
		"$(violations "$PWD" "$layer" "$order" "$B")"
done

# ---- the rooms' size ----
# long_files DIR: "FILE: N lines" for every source of DIR (.c, .h, at any depth) over MAX_LINES.
long_files() {
	find "$1" -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z |
		xargs -0 -r wc -l | awk -v max="$MAX_LINES" '$2 != "total" && $1 > max { print $2 ": " $1 " lines" }'
}
mkdir -p "$T/long/src/engine/x"
seq 1 $((MAX_LINES + 1)) | sed 's|^|/* line |; s|$| */|' >"$T/long/src/engine/x/long.c"
seq 1 "$MAX_LINES" | sed 's|^|/* line |; s|$| */|' >"$T/long/src/engine/x/at_limit.h"
check_eq "control: a generated source of $((MAX_LINES + 1)) lines is caught, one of $MAX_LINES is not" \
	"$T/long/src/engine/x/long.c: $((MAX_LINES + 1)) lines" "$(long_files "$T/long/src")"
check_eq "no source file of src is over $MAX_LINES lines" "" "$(long_files src)"

crowded=""
for d in src/*/ src/*/*/; do
	n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
	[ "$n" -gt "$MAX_FILES" ] && crowded+="$d: $n source files "
done
check_eq "no folder of src holds more than $MAX_FILES source files" "" "$crowded"
finish
