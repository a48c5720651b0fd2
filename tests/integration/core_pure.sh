#!/bin/bash
# The dependency law (docs/design.md §2), checked on what the code says and on what it links.
#
# The kernel boundary: src/core never talks to the kernel's Landlock, seccomp, audit, mount,
# namespace or capability interfaces, nor makes a raw syscall; those live in src/sys.  Checked
# twice: its sources (comments and string literals blanked) include no kernel-interface header
# and call no raw syscall or kernel-interface function; its compiled objects reference no such
# symbol (nm -u), whatever macro hid the call.  The programs on top (src/cli, src/engine,
# src/audit, src/exec) go through src/sys too for the interfaces src/sys wraps.
#
# The pure core: every object of src/core but its disk side (the list below, design.md §2,
# "The core's two sides") makes no file system call, and neither does any core object it
# reaches (its undefined symbols resolved against the other core objects, transitively): the
# policy, the derivation, the evidence, the verdict, evidence objects, the diagnosis and the
# decision rules are decided without a disk, and a unit test can show it.
#
# The layers: no file of src/core includes a header of a higher layer, src/engine never one of
# src/cli, and within a folder no two objects call each other in a circle.
#
# Each matcher is first run on generated files that break the rule, and must catch them.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
B=${HARKAQ_BUILD:-$PWD/build}
T=$(mktemp -d /tmp/harkaq-core-pure.XXXXXX)
trap 'rm -rf "$T"' EXIT
export NM_CACHE=$T/nm
mkdir -p "$NM_CACHE"

# Known exceptions, each "FILE<TAB>WHAT" exactly as the matchers print it.  An entry is
# allowed only while it is still found (a stale entry fails), so the list can only shrink.
# rootpath.c resolves paths inside a base root with openat2(RESOLVE_IN_ROOT), which glibc
# 2.36 does not wrap; the call belongs in src/sys.
ALLOWED=$(printf '%s\n' \
	$'src/core/root/rootpath.c\tinclude <linux/openat2.h>' \
	$'src/core/root/rootpath.c\tinclude <sys/syscall.h>' \
	$'src/core/root/rootpath.c\tcall syscall(' \
	$'src/core/root/rootpath.c\tcall SYS_openat2' \
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
mapfile -t top_sources < <(ls src/cli/*.[ch] src/engine/*/*.[ch] src/audit/*.[ch] src/exec/*.[ch])
# The objects of the sources there are now (a build directory may keep objects of files that
# moved or went away).
objects_of() { local f; for f in "$@"; do [ -f "$B/obj/${f%.c}.o" ] && echo "$B/obj/${f%.c}.o"; done; }
# core_file NAME: the one source file src/core/FAMILY/NAME.c (fails when there is none).
core_file() { local f; for f in src/core/*/"$1".c; do [ -f "$f" ] && echo "$f" && return 0; done; return 1; }
mapfile -t top_objects < <(objects_of src/cli/*.c src/engine/*/*.c src/audit/*.c src/exec/*.c)
ntop=$(ls src/cli/*.c src/engine/*/*.c src/audit/*.c src/exec/*.c | wc -l)
check_eq "control: every program source file is scanned ($ntop .c files, their objects built)" \
	"$ntop" "${#top_objects[@]}"
check_eq "src/cli, src/engine, src/audit and src/exec reach those kernel interfaces only through src/sys" "" \
	"$( { scan_boundary "${top_sources[@]}"; scan_boundary_objects "${top_objects[@]}"; } | sort -u)"

# ---- the engine never reaches up into the command line ----
# src/engine is called by src/cli (docs/design.md, "Layers"): an include of a cli header, or a
# reference to a symbol only src/cli defines, would run an arrow back up.
up=$(grep -n '#include "cli/' src/engine/*/*.[ch] || true)
check_eq "src/engine includes no header of src/cli" "" "$up"
cli_syms=$(nm -g --defined-only $(objects_of src/cli/*.c) 2>/dev/null | awk '$2 ~ /[TDBR]/ {print $3}' | sort -u)
engine_undef=$(nm -u $(objects_of src/engine/*/*.c) 2>/dev/null | awk '{print $2}' | sort -u)
check_eq "src/engine's objects need no symbol that only src/cli defines" "" \
	"$(comm -12 <(echo "$cli_syms") <(echo "$engine_undef"))"
# The control: the same check sees the command line's own need of the engine.
cli_undef=$(nm -u $(objects_of src/cli/*.c) 2>/dev/null | awk '{print $2}' | sort -u)
engine_syms=$(nm -g --defined-only $(objects_of src/engine/*/*.c) 2>/dev/null | awk '$2 ~ /[TDBR]/ {print $3}' | sort -u)
if [ -n "$(comm -12 <(echo "$engine_syms") <(echo "$cli_undef"))" ]; then
	ok "control: the symbol check sees src/cli calling into src/engine"
else
	not_ok "control: the symbol check sees src/cli calling into src/engine" "no shared symbol found"
fi

# ---- the core itself ----
mapfile -t sources < <(ls src/core/*/*.[ch])
mapfile -t objects < <(objects_of src/core/*/*.c)
ncore=$(ls src/core/*/*.c | wc -l)
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
# ---- the pure core: no file system call, transitively ----
# The core's disk side (docs/design.md §2, "The core's two sides"): the files of src/core that
# read or write the file system.  Every other core object is pure.  An entry is allowed only
# while its object still reaches a file system call (a stale entry fails), so the list can only
# shrink; a file split out of a pure one gets a name that says what it reads (buf_fd.c,
# tree_scan.c, evobj_store.c, …).
DISK_SIDE="base baseroot blake3_file buf_fd bundle collapse_disk deb_status debroot dir elf
	evobj_store file ldconf policy_file recipe_file rootpath statcache store store_add
	store_index store_seal tree_scan usrmerge view"
# What must stay pure whatever else moves: the policy, the derivation, the evidence, the
# verdict, evidence objects, the diagnosis and the decision rules.
PURE_NAMED="policy derive evidence verdict evobj suggest dsc_rules converse build_failure collapse"
# The one call allowed: die.o's last words on descriptor 2 before abort() (out of memory, a
# caller's bug), which every allocation reaches.
PURE_EXCEPTIONS="die.o:write"

# pure_report DISK EXCEPTIONS OBJ...: one "OBJ<TAB>SIDE<TAB>CHAIN" line per object of OBJ...,
# SIDE "disk" when it is on the DISK list (basenames without .o), else "pure"; CHAIN the
# shortest path, through the undefined symbols the objects of OBJ... define for each other, to
# an object that calls the file system ("a.o -> b.o -> c.o: open"), empty when there is none.
# A symbol is a file system call when it opens, reads, writes, stats, lists, links, renames,
# removes, locks or closes (the *64, __*_chk and __*_2 forms of glibc included); EXCEPTIONS
# ("OBJ:SYMBOL") are calls allowed in that one object.
pure_report() {
	python3 - "$@" <<'PY'
import os, re, subprocess, sys
def nm(o):
    """nm's listing of o, read once per run of this script (cached under $NM_CACHE)."""
    cache = os.path.join(os.environ['NM_CACHE'], os.path.abspath(o).replace('/', '%'))
    if not os.path.exists(cache):
        with open(cache, 'w') as f:
            f.write(subprocess.run(['nm', o], capture_output=True, text=True).stdout)
    return open(cache).read()
disk = set(sys.argv[1].split())
allowed = set(sys.argv[2].split())
objs = sys.argv[3:]
FS = set("""open openat creat read pread readv preadv write pwrite writev pwritev close
    close_range stat lstat fstat fstatat statx access faccessat faccessat2 opendir fdopendir
    readdir closedir scandir dirfd rewinddir seekdir telldir link linkat symlink symlinkat
    readlink readlinkat unlink unlinkat rename renameat renameat2 mkdir mkdirat rmdir mkdtemp
    mkstemp mkostemp mkstemps mkostemps tmpfile mkfifo mknod flock lockf fcntl fsync fdatasync
    sync syncfs chmod fchmod fchmodat chown fchown lchown fchownat truncate ftruncate realpath
    getcwd chdir fchdir chroot dup dup2 dup3 fopen fdopen freopen fclose popen pclose
    copy_file_range sendfile splice utime utimes utimensat futimens lseek mmap munmap
    posix_fadvise fallocate posix_fallocate nftw ftw glob fts_open inotify_init
    fanotify_init syscall""".split())
def normal(sym):
    m = re.fullmatch(r'__(\w+?)(_chk|_2)', sym)
    if m:
        sym = m.group(1)
    return sym[:-2] if sym.endswith('64') and sym[:-2] in FS else sym
defs, undef = {}, {}
for o in objs:
    b = os.path.basename(o)
    u = set()
    for line in nm(o).splitlines():
        f = line.split()
        if len(f) == 2 and f[0] in ('U', 'w'):
            u.add(f[1].split('@')[0])
        elif len(f) == 3 and f[1] in 'TDRBCVW':
            defs.setdefault(f[2], b)
    undef[b] = u
def calls(b):
    return sorted({normal(s) for s in undef[b]
                   if normal(s) in FS and f"{b}:{normal(s)}" not in allowed})
for b in sorted(undef):
    # breadth first: the shortest chain to the first object that calls the file system
    seen, queue, via, hit = {b}, [b], {b: None}, None
    while queue:
        x = queue.pop(0)
        if calls(x):
            hit = x
            break
        for s in sorted(undef[x]):
            d = defs.get(s)
            if d and d not in seen:
                seen.add(d); via[d] = x; queue.append(d)
    chain = ''
    if hit:
        path, x = [], hit
        while x:
            path.append(x); x = via[x]
        chain = f"{' -> '.join(reversed(path))}: {','.join(calls(hit))}"
    print(f"{b}\t{'disk' if b[:-2] in disk else 'pure'}\t{chain}")
PY
}
# pure_violations DISK EXCEPTIONS OBJ...: "OBJ<TAB>CHAIN" for each pure object with a chain.
pure_violations() { pure_report "$@" | awk -F'\t' '$2 == "pure" && $3 != "" {print $1 "\t" $3}'; }

# Controls: a generated entry two calls away from open() is caught, with its chain; so is one
# that reaches an object on the disk list; a chain that calls nothing of the file system is not.
mkdir -p "$T/chain"
printf 'int mid(int);\nint entry(int x) { return mid(x) + 1; }\n' >"$T/chain/entry.c"
printf 'int leaf(int);\nint mid(int x) { return leaf(x) * 2; }\n' >"$T/chain/mid.c"
printf '#include <fcntl.h>\nint leaf(int x) { return open("/x", O_RDONLY) + x; }\n' >"$T/chain/leaf.c"
printf 'int pure_mid(const char *);\nint pure_entry(const char *s) { return pure_mid(s); }\n' >"$T/chain/pure_entry.c"
printf '#include <string.h>\nint pure_mid(const char *s) { return (int)strlen(s); }\n' >"$T/chain/pure_mid.c"
chain_ok=true
for c in "$T"/chain/*.c; do cc -O2 -c -o "${c%.c}.o" "$c" 2>>"$T/cc.err" || chain_ok=false; done
if $chain_ok; then
	check_eq "control: an object two calls away from open() is caught, with its chain" \
		"entry.o	entry.o -> mid.o -> leaf.o: open" \
		"$(pure_violations "" "" "$T"/chain/*.o | grep '^entry.o')"
	check_eq "control: reaching an object of the disk side is caught as well" \
		"entry.o	entry.o -> mid.o -> leaf.o: open,mid.o	mid.o -> leaf.o: open," \
		"$(pure_violations "leaf" "" "$T"/chain/*.o | tr '\n' ',')"
	check_eq "control: a chain that calls nothing of the file system is pure" "" \
		"$(pure_violations "leaf mid entry" "" "$T"/chain/*.o)"
	check_eq "control: an allowed call is allowed only in the object it names" \
		"entry.o	entry.o -> mid.o -> leaf.o: open|" \
		"$(pure_violations "" "mid.o:open" "$T"/chain/*.o | grep '^entry.o')|$(
		   pure_violations "" "leaf.o:open" "$T"/chain/*.o)"
else
	not_ok "control: compile the generated chain" "$(cat "$T/cc.err")"
fi

mapfile -t core_objects < <(objects_of src/core/*/*.c)
ncore_c=$(ls src/core/*/*.c | wc -l)
check_eq "control: every core object is analysed ($ncore_c .c files, their objects built)" \
	"$ncore_c" "${#core_objects[@]}"
report=$(pure_report "$DISK_SIDE" "$PURE_EXCEPTIONS" "${core_objects[@]}")
# The real disk side is caught too: view.o (links, locks), were it taken for pure.
check_contains "control: view.o would be caught, were it taken for pure" \
	"$(printf '%s\n' "$report" | grep '^view.o	')" "view.o	disk	view.o: "
check_eq "src/core but its disk side makes no file system call, nor reaches one (nm, transitively)" \
	"" "$(printf '%s\n' "$report" | awk -F'\t' '$2 == "pure" && $3 != "" {print $1 ": " $3}')"
stale=$(printf '%s\n' "$report" | awk -F'\t' '$2 == "disk" && $3 == "" {printf "%s ", $1}')
for d in $DISK_SIDE; do core_file "$d" >/dev/null || stale+="$d (no src/core/*/$d.c) "; done
check_eq "every file on the disk side still touches the file system (the list only shrinks)" "" "$stale"
named_disk=""
for p in $PURE_NAMED; do
	core_file "$p" >/dev/null || named_disk+="$p (no src/core/*/$p.c) "
	case " $(echo $DISK_SIDE) " in *" $p "*) named_disk+="$p (on the disk side) " ;; esac
done
check_eq "policy, derivation, evidence, verdict, evidence objects, diagnosis and decision rules are pure" \
	"" "$named_disk"
die_calls=$(nm -u "$B/obj/$(core_file die | sed 's/\.c$/.o/')" | awk '{print $2}' | grep -Ev '^(abort|strlen|__.*)$' | tr '\n' ' ')
check_eq "die.o, the one exception, calls write and nothing else of the system" "write " "$die_calls"

# ---- the layers ----
# scan_up_includes FILE...: "FILE:LINE: include" for an include of a higher layer's header.
scan_up_includes() { grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(engine|cli|sys|exec|audit)/' "$@" || true; }
printf '#include "core/basic/util.h"\n#  include "engine/build/report.h"\n#include "sys/landlock.h"\n' >"$T/src/core/up.c"
check_eq "control: an include of engine/ or sys/ in a core file is caught" \
	"$T/src/core/up.c:2:#  include \"engine/build/report.h\",$T/src/core/up.c:3:#include \"sys/landlock.h\"," \
	"$(scan_up_includes "$T/src/core/up.c" | tr '\n' ',')"
check_eq "no file of src/core includes a header of src/engine, src/cli, src/sys, src/exec or src/audit" \
	"" "$(scan_up_includes src/core/*/*.[ch])"

# circles OBJ...: "a.o <-> b.o ..." for each group of objects that call each other in a circle.
circles() {
	python3 - "$@" <<'PY'
import os, subprocess, sys
def nm(o):
    """nm's listing of o, read once per run of this script (cached under $NM_CACHE)."""
    cache = os.path.join(os.environ['NM_CACHE'], os.path.abspath(o).replace('/', '%'))
    if not os.path.exists(cache):
        with open(cache, 'w') as f:
            f.write(subprocess.run(['nm', o], capture_output=True, text=True).stdout)
    return open(cache).read()
defs, undef = {}, {}
for o in sys.argv[1:]:
    b = os.path.basename(o)
    undef[b] = set()
    for line in nm(o).splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            undef[b].add(f[1])
        elif len(f) == 3 and f[1] in 'TDRB':
            defs[f[2]] = b
edges = {b: sorted({defs[s] for s in u if s in defs and defs[s] != b}) for b, u in undef.items()}
index, low, stack, on, n = {}, {}, [], set(), [0]
def visit(v):  # Tarjan's strongly connected components, iteratively
    work = [(v, 0)]
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    while work:
        v, i = work[-1]
        if i < len(edges[v]):
            work[-1] = (v, i + 1)
            w = edges[v][i]
            if w not in index:
                index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop(); on.discard(w); group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                print(' <-> '.join(sorted(group)))
for v in sorted(edges):
    if v not in index:
        visit(v)
PY
}
mkdir -p "$T/circle"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$T/circle/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' >"$T/circle/b.c"
printf 'int a(int);\nint c(int x) { return a(x); }\n' >"$T/circle/c.c"
if cc -O2 -c -o "$T/circle/a.o" "$T/circle/a.c" && cc -O2 -c -o "$T/circle/b.o" "$T/circle/b.c" &&
	cc -O2 -c -o "$T/circle/c.o" "$T/circle/c.c"; then
	check_eq "control: two objects calling each other are a circle, their caller is not in it" \
		"a.o <-> b.o" "$(circles "$T"/circle/*.o)"
else
	not_ok "control: compile the generated circle"
fi
for dir in core sys engine cli; do
	mapfile -t dir_objects < <(objects_of $(ls src/$dir/*.c src/$dir/*/*.c 2>/dev/null))
	check_eq "no two objects of src/$dir call each other in a circle" "" "$(circles "${dir_objects[@]}")"
done

finish
