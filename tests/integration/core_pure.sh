#!/bin/bash
# The dependency law (docs/design.md §2): src/core is pure, it never talks to the kernel's
# Landlock, seccomp, audit, mount, namespace or capability interfaces, nor makes a raw
# syscall; those live in src/sys.  Checked twice, on what the core says and on what it links:
#   1. its sources (comments and string literals blanked) include no kernel-interface header
#      and call no raw syscall or kernel-interface function;
#   2. its compiled objects reference no such symbol (nm -u), whatever macro hid the call.
# The programs on top (src/cli, src/engine, src/audit, src/exec) go through src/sys too for the
# interfaces src/sys wraps: no raw syscall, prctl, capabilities, mounts, namespaces, pidfds,
# Landlock or seccomp calls (the kernel boundary, checked the same two ways).
# Each matcher is first run on generated files that break the rule, and must catch them.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
B=${HARKAQ_BUILD:-$PWD/build}
T=$(mktemp -d /tmp/harkaq-core-pure.XXXXXX)
trap 'rm -rf "$T"' EXIT

# Known exceptions, each "FILE<TAB>WHAT" exactly as the matchers print it.  An entry is
# allowed only while it is still found (a stale entry fails), so the list can only shrink.
# rootpath.c resolves paths inside a base root with openat2(RESOLVE_IN_ROOT), which glibc
# 2.36 does not wrap; the call belongs in src/sys.
ALLOWED=$(printf '%s\n' \
	$'src/core/rootpath.c\tinclude <linux/openat2.h>' \
	$'src/core/rootpath.c\tinclude <sys/syscall.h>' \
	$'src/core/rootpath.c\tcall syscall(' \
	$'src/core/rootpath.c\tcall SYS_openat2' \
	$'rootpath.o\tsymbol syscall')

# scan_sources FILE...: one "FILE<TAB>WHAT" line per violation.
scan_sources() {
	python3 - "$@" <<'EOF'
import re, sys

HEADERS = re.compile(r'''^(linux|asm|asm-generic)/|^(sys/)?syscall\.h$|^seccomp\.h$|^libaudit\.h$|
    ^sys/(mount|prctl|capability|ptrace|socket|pidfd|personality|fsuid|ioctl|fanotify|quota)\.h$|
    ^sched\.h$|^libmount\.h$''', re.X)
CALLS = re.compile(r'''(?<![\w.>])(syscall|prctl|mount|umount2?|unshare|setns|clone3?|capset|capget|
    pivot_root|chroot|ptrace|ioctl|socket|keyctl|bpf|personality|
    landlock_\w+|seccomp_\w+|pidfd_\w+|audit_\w+)\s*\(|(?<!\w)(SYS_\w+|__NR_\w+)''', re.X)

def blank(text, strings):
    """Comments (and, if strings, string and character literals) replaced by spaces; newlines
    are kept so that line numbers stay right."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif c in '"\'' and strings:
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1]); i = j + 1
            continue
        else:
            out.append(c); i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
    return ''.join(out)

for path in sys.argv[1:]:
    text = open(path, encoding='utf-8', errors='replace').read()
    seen = set()
    for line in blank(text, strings=False).splitlines():
        m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
        if m and HEADERS.search(m.group(1)):
            seen.add(f'include <{m.group(1)}>')
    for m in CALLS.finditer(blank(text, strings=True)):
        seen.add(f'call {m.group(1)}(' if m.group(1) else f'call {m.group(2)}')
    for what in sorted(seen):
        print(f'{path}\t{what}')
EOF
}

# scan_objects OBJ...: one "OBJ<TAB>symbol NAME" line per kernel-interface symbol referenced.
FORBIDDEN_SYMBOLS='^(syscall|prctl|mount|umount2?|unshare|setns|clone3?|capset|capget|pivot_root|chroot|ptrace|ioctl|socket|bind|sendmsg|recvmsg|keyctl|personality|landlock_.*|seccomp_.*|pidfd_.*|audit_.*)$'
scan_objects() {
	local o s
	for o in "$@"; do
		nm -u "$o" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$FORBIDDEN_SYMBOLS" |
			sort -u | while read -r s; do printf '%s\tsymbol %s\n' "$(basename "$o")" "$s"; done
	done
}

# ---- positive controls: the matchers catch what breaks the rule ----
mkdir -p "$T/src/core"
cat >"$T/src/core/bad.c" <<'EOF'
#include <linux/landlock.h>
#  include <sys/syscall.h>
#include <sys/mount.h>
#include <seccomp.h>
#include <stdio.h>
static long f(void) { return syscall(SYS_landlock_create_ruleset, 0, 0, 1); }
static int g(void) { return prctl(38, 1, 0, 0, 0) + unshare(0); }
EOF
cat >"$T/src/core/good.c" <<'EOF'
/* Only prose speaks of them: #include <linux/audit.h>, syscall(SYS_bpf), prctl(...). */
#include <stdio.h>
// mount(2) and unshare(2) are the sandbox's business.
struct hk_x { int (*mount)(void); };
static const char *msg = "cannot mount( here, nor syscall(SYS_x)";
static int hk_audit_syscall_parse(void) { return 0; }
static int h(struct hk_x *x) { return x->mount() + hk_audit_syscall_parse(); }
EOF
bad=$(scan_sources "$T/src/core/bad.c" | cut -f2 | tr '\n' ',')
check_eq "control: the source matcher catches kernel headers and raw syscalls in a generated file" \
	"call SYS_landlock_create_ruleset,call prctl(,call syscall(,call unshare(,include <linux/landlock.h>,include <seccomp.h>,include <sys/mount.h>,include <sys/syscall.h>," \
	"$bad"
check_eq "control: comments, strings, members and hk_ names are not violations" "" \
	"$(scan_sources "$T/src/core/good.c")"

cat >"$T/bad_obj.c" <<'EOF'
#include <sys/prctl.h>
#include <unistd.h>
int seccomp_load(void *ctx);
long bad_obj(void) { return syscall(1) + prctl(38, 1, 0, 0, 0) + seccomp_load(0); }
EOF
if cc -c -o "$T/bad_obj.o" "$T/bad_obj.c" 2>"$T/cc.err"; then
	check_eq "control: the object matcher catches syscall, prctl and seccomp_* references" \
		"prctl,seccomp_load,syscall," "$(scan_objects "$T/bad_obj.o" | sed 's/.*symbol //' | tr '\n' ',')"
else
	not_ok "control: compile the object matcher's generated file" "$(cat "$T/cc.err")"
fi

# ---- the kernel boundary: the programs on top of src/sys ----
# What src/sys wraps (caps.c, proc.c, mountns.c, landlock.c, seccomp.c, auditnl.c, verity.c):
# a program naming one of these directly has stepped around it.
BOUNDARY_SOURCE='^call (syscall|prctl|mount|umount2?|unshare|setns|capset|capget|pidfd_[a-z_]+|landlock_[a-z_]+|seccomp_[a-z_]+)\(|^call (SYS_|__NR_)|^include <(sys/)?(syscall|prctl|mount)\.h>$'
BOUNDARY_SYMBOLS='^(syscall|prctl|mount|umount2?|unshare|setns|capset|capget|pidfd_.*|landlock_.*|seccomp_.*)$'
scan_boundary() { # FILE...: the violations of the boundary among scan_sources' findings
	scan_sources "$@" | awk -F'\t' -v re="$BOUNDARY_SOURCE" '$2 ~ re'
}
scan_boundary_objects() { # OBJ...: "OBJ<TAB>symbol NAME" per wrapped interface referenced
	local o s
	for o in "$@"; do
		nm -u "$o" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$BOUNDARY_SYMBOLS" |
			sort -u | while read -r s; do printf '%s\tsymbol %s\n' "$(basename "$o")" "$s"; done
	done
}
mkdir -p "$T/src/cli"
cat >"$T/src/cli/bad.c" <<'EOF'
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/socket.h>
static int f(void) { return (int)syscall(SYS_pidfd_open, 1, 0) + prctl(38, 1, 0, 0, 0); }
static int g(void) { return unshare(0) + capget(0, 0) + socket(16, 3, 9); }
EOF
cat >"$T/src/cli/good.c" <<'EOF'
/* prctl(PR_SET_NO_NEW_PRIVS) and unshare(2) are src/sys's: hk_sys_unshare_mounts(). */
static const char *const bwrap[] = { "--unshare-all", "mount(", 0 };
static int h(void) { return hk_sys_pidfd_open(1) + hk_sys_unshare_mounts(0) + hk_caps_get(0); }
EOF
check_eq "control: the boundary matcher catches raw syscalls, prctl, unshare, capget and their headers" \
	"call SYS_pidfd_open,call capget(,call prctl(,call syscall(,call unshare(,include <sys/prctl.h>,include <sys/syscall.h>," \
	"$(scan_boundary "$T/src/cli/bad.c" | cut -f2 | tr '\n' ',')"
check_eq "control: src/sys's wrappers, strings and comments are not boundary violations" "" \
	"$(scan_boundary "$T/src/cli/good.c")"
if [ -f "$T/bad_obj.o" ]; then
	check_eq "control: the boundary object matcher catches syscall, prctl and seccomp_* references" \
		"prctl,seccomp_load,syscall," \
		"$(scan_boundary_objects "$T/bad_obj.o" | sed 's/.*symbol //' | tr '\n' ',')"
fi
mapfile -t top_sources < <(ls src/cli/*.[ch] src/engine/*.[ch] src/audit/*.[ch] src/exec/*.[ch])
# The objects of the sources there are now (a build directory may keep objects of files that
# moved or went away).
objects_of() { local f; for f in "$@"; do [ -f "$B/obj/${f%.c}.o" ] && echo "$B/obj/${f%.c}.o"; done; }
mapfile -t top_objects < <(objects_of src/cli/*.c src/engine/*.c src/audit/*.c src/exec/*.c)
ntop=$(ls src/cli/*.c src/engine/*.c src/audit/*.c src/exec/*.c | wc -l)
check_eq "control: every program source file is scanned ($ntop .c files, their objects built)" \
	"$ntop" "${#top_objects[@]}"
check_eq "src/cli, src/engine, src/audit and src/exec reach those kernel interfaces only through src/sys" "" \
	"$( { scan_boundary "${top_sources[@]}"; scan_boundary_objects "${top_objects[@]}"; } | sort -u)"

# ---- the engine never reaches up into the command line ----
# src/engine is called by src/cli (docs/design.md, "Layers"): an include of a cli header, or a
# reference to a symbol only src/cli defines, would run an arrow back up.
up=$(grep -n '#include "cli/' src/engine/*.[ch] || true)
check_eq "src/engine includes no header of src/cli" "" "$up"
cli_syms=$(nm -g --defined-only $(objects_of src/cli/*.c) 2>/dev/null | awk '$2 ~ /[TDBR]/ {print $3}' | sort -u)
engine_undef=$(nm -u $(objects_of src/engine/*.c) 2>/dev/null | awk '{print $2}' | sort -u)
check_eq "src/engine's objects need no symbol that only src/cli defines" "" \
	"$(comm -12 <(echo "$cli_syms") <(echo "$engine_undef"))"
# The control: the same check sees the command line's own need of the engine.
cli_undef=$(nm -u $(objects_of src/cli/*.c) 2>/dev/null | awk '{print $2}' | sort -u)
engine_syms=$(nm -g --defined-only $(objects_of src/engine/*.c) 2>/dev/null | awk '$2 ~ /[TDBR]/ {print $3}' | sort -u)
if [ -n "$(comm -12 <(echo "$engine_syms") <(echo "$cli_undef"))" ]; then
	ok "control: the symbol check sees src/cli calling into src/engine"
else
	not_ok "control: the symbol check sees src/cli calling into src/engine" "no shared symbol found"
fi

# ---- the core itself ----
mapfile -t sources < <(ls src/core/*.[ch])
mapfile -t objects < <(ls "$B"/obj/src/core/*.o 2>/dev/null)
ncore=$(ls src/core/*.c | wc -l)
check_eq "control: every core source file is scanned ($ncore .c files, their objects built)" \
	"$ncore" "${#objects[@]}"
[ "${#sources[@]}" -gt "$ncore" ] && ok "control: the core's headers are scanned too (${#sources[@]} files)" ||
	not_ok "control: the core's headers are scanned too" "only ${#sources[@]} files"

found=$( { scan_sources "${sources[@]}"; scan_objects "${objects[@]}"; } | sort -u)
violations=$(comm -23 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$ALLOWED" | sort -u))
stale=$(comm -13 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$ALLOWED" | sort -u))
check_eq "src/core includes no kernel-interface header, calls no raw syscall, links no such symbol" \
	"" "$violations"
check_eq "every known exception is still there (remove the ones that are fixed)" "" "$stale"
if [ -n "$ALLOWED" ] && [ -z "$stale" ]; then
	echo "# known exceptions, still to move into src/sys:"
	printf '%s\n' "$ALLOWED" | sed 's/^/#   /'
fi
finish
