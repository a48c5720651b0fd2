# Shared by demo/run and tests/integration/diagnosis.sh (sourced): the demo store and the
# zlib recipe the closed loop edits.  Needs ROOT (the repository) and HARKAQ (build/harkaq).

# The demo store: the toolchain fixture (the pinned base debian-12-essential, real .debs of
# gcc-12, libc6-dev, make and their closure, tests/fixtures/debstore.sh), copied (hard links:
# artifacts are read-only) to a fresh store in $1 for each run, so the artifacts and evidence
# objects a run adds never leak into the next.  coreutils is a package of the base: a recipe
# declares it by name and harkaq grants its files from the base.
demo_store() {
	local dest=$1 fixture
	fixture=$("$ROOT/tests/fixtures/debstore.sh") || return 1
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	cp -al "$fixture" "$dest"
	rm -rf "$dest/.complete" "$dest/.evidence" "$dest/.views"
}

# zlib_recipe FILE "DEP…" "EXPECT…": the recipe of demo/recipes/zlib with other deps/expects.
zlib_recipe() {
	local file=$1 deps="" exps="" d
	for d in $2; do deps+="\"$d\", "; done
	for d in $3; do exps+="\"$d\", "; done
	mkdir -p "$(dirname "$file")"
	cat >"$file" <<EOT
name = "zlib"
version = "1.2.13"

[source]
apt = "zlib=1:1.2.13.dfsg-1"

[deps]
build = [${deps%, }]

[phases]
configure = "CHOST=x86_64-linux-gnu ./configure --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu --shared"
compile = "make -j2"
install = ["make install DESTDIR=/out LDCONFIG=true", "rm -rf /out/usr/share/man"]

[expect]
paths = [${exps%, }]

[env]
CC = "gcc-12"
CFLAGS = "-O2 -g0"
EOT
}

# build_json RECIPE STORE OUT.json [harkaq build options…]: the human report goes to stderr,
# the JSON result to OUT.json; returns harkaq's exit status.
build_json() {
	local recipe=$1 store=$2 out=$3
	shift 3
	"$HARKAQ" build --store "$store" --result-out "$out" "$@" "$recipe"
}

q() { python3 "$ROOT/demo/report.py" "$@"; }
