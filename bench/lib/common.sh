# Helpers for bench/run.

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
