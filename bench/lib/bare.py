#!/usr/bin/env python3
"""A catalogue recipe's phases as one shell script that runs them bare on the host: no
sandbox, no cage, no harkaq.  bench/warm.sh times it against the whole `harkaq build`.

  bare.py RECIPE DESTDIR   -> the script on stdout (run it with `env -i sh SCRIPT` in a fresh
                              copy of the source)

The environment is the one harkaq build gives every phase (build_prepare.c, build_env: PATH, HOME,
SOURCE_DATE_EPOCH, LC_ALL, TZ, then the recipe's [env]); each phase runs as harkaq runs it,
`/bin/sh -ec` over its commands joined by newlines; `/out`, the sandbox's install directory,
is DESTDIR.  HOME is DESTDIR's sibling `home` (the sandbox's /tmp is a fresh tmpfs).
"""
import os
import re
import shlex
import sys
import tomllib

PHASES = ("configure", "compile", "install")


def main():
    recipe, dest = sys.argv[1], sys.argv[2]
    with open(recipe, "rb") as f:
        r = tomllib.load(f)
    home = os.path.join(os.path.dirname(dest.rstrip("/")), "home")
    env = [("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"),
           ("HOME", home), ("SOURCE_DATE_EPOCH", "1700000000"), ("LC_ALL", "C"), ("TZ", "UTC")]
    env += list((r.get("env") or {}).items())
    out = ["set -e", f"mkdir -p {shlex.quote(home)} {shlex.quote(dest)}"]
    out += [f"export {k}={shlex.quote(str(v))}" for k, v in env]
    for ph in PHASES:
        cmds = (r.get("phases") or {}).get(ph)
        if cmds is None:
            continue
        if isinstance(cmds, str):
            cmds = [cmds]
        # /out as a word of its own or a path's start (DESTDIR=/out, /out/usr/...), not as
        # part of another word.
        script = "\n".join(re.sub(r"(?<![\w./-])/out(?=/|\b|$)", dest, c) for c in cmds) + "\n"
        out.append(f"/bin/sh -ec {shlex.quote(script)}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
