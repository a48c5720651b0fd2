# Helpers for bench/run.

# The catalogue's one store (docs/sweep.md): every build dep any catalogue recipe declares.
CATALOGUE_STORE_PKGS="gcc-12 libc6-dev make cmake meson ninja-build pkgconf gettext"

log() { echo "[bench $(date +%H:%M:%S)] $*" >&2; }

# nproc, CPU model and kernel as JSON.
machine_json() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	jq -cn --arg cpu "$cpu" --arg nproc "$(nproc)" --arg kernel "$(uname -r)" \
		--arg os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
		'{cpu: $cpu, nproc: ($nproc | tonumber), kernel: $kernel, os: $os}'
}

# fetch_source PKG SRC_CACHE RECIPE_OUT: `apt-get source` of the catalogue recipe's pinned
# package, once, into SRC_CACHE/PKG; then RECIPE_OUT/PKG/recipe.toml, the same recipe with its
# [source] pointing at that tree, so the timed builds do not fetch (nor depend on the mirror).
fetch_source() {
	local p=$1 cache=$2 rout=$3 recipe="catalogue/$1/recipe.toml" pin tree
	pin=$(sed -n 's/^apt = "\(.*\)"$/\1/p' "$recipe")
	[ -n "$pin" ] || { echo "bench: $recipe has no apt source" >&2; return 1; }
	mkdir -p "$cache/$p"
	if [ ! -f "$cache/$p/.pin" ] || [ "$(cat "$cache/$p/.pin")" != "$pin" ]; then
		rm -rf "${cache:?}/$p"; mkdir -p "$cache/$p"
		(cd "$cache/$p" && apt-get source -qq "$pin" >/dev/null 2>&1) ||
			{ echo "bench: apt-get source $pin failed" >&2; return 1; }
		echo "$pin" >"$cache/$p/.pin"
	fi
	tree=$(find "$cache/$p" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	mkdir -p "$rout/$p"
	# dir sources are relative to the recipe's directory.
	sed "s|^apt = \".*\"$|dir = \"$(realpath --relative-to="$rout/$p" "$tree")\"|" "$recipe" \
		>"$rout/$p/recipe.toml"
}

# closure_bench_setup NAME ROUNDS: what bench/fixed.sh and bench/ops.sh both need before their
# rounds: root, at least 3 rounds, a fresh build, and a store with cjson's deps (the largest
# closure of bench/run).  Sets H (harkaq), STORE and W, a work directory removed on exit.
closure_bench_setup() {
	local name=$1 rounds=$2
	[ "$(id -u)" -eq 0 ] || { echo "bench/$name: run as root" >&2; exit 1; }
	[ "$rounds" -ge 3 ] || { echo "bench/$name: --rounds must be >= 3" >&2; exit 64; }
	make -s -j"$(nproc)" >/dev/null
	H=$ROOT/build/harkaq
	STORE=$(tests/fixtures/debstore.sh gcc-12 libc6-dev make cmake)
	W=$(mktemp -d "/var/tmp/harkaq-bench-${name%.sh}.XXXXXX")
	trap 'rm -rf "$W"' EXIT
}

# closure_bench_rounds ROUNDS: $W/recipe.toml built ROUNDS times --no-cage, caged and
# --no-evidence, interleaved (the order rotating every round so no mode always runs first);
# each build's result JSON, log and wall ms in $W/MODE-ROUND.{json,log,wall}.
closure_bench_rounds() {
	local modes=(nocage cage noevid) r k m t0 t1 args
	for r in $(seq "$1"); do
		for k in "${!modes[@]}"; do
			m=${modes[$(( (k + r - 1) % ${#modes[@]} ))]}
			args=(--quiet --store "$STORE" --result-out "$W/$m-$r.json")
			case $m in nocage) args+=(--no-cage) ;; noevid) args+=(--no-evidence) ;; esac
			t0=$(date +%s%N)
			"$H" build "${args[@]}" "$W/recipe.toml" >"$W/$m-$r.log" 2>&1 || true
			t1=$(date +%s%N)
			echo "$(( (t1 - t0) / 1000000 ))" >"$W/$m-$r.wall"
		done
	done
}
