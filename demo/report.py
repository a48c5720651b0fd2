#!/usr/bin/env python3
"""Reads a `harkaq build --json` result (stdin) and answers one question about it.

    report.py states        "configure=Impure compile=Hermetic …"
    report.py declare       the best [deps] line per declarable debt: "SPEC<TAB>PATH" lines
    report.py irreducible   "PATH" lines (each once)
    report.py policy-bugs   "PATH" lines
    report.py providers P   "NAME<TAB>HOW<TAB>VIA" for the declarable path P, best first
    report.py evidence      the evidence ids, one per line
    report.py artifact      the artifact id (or "none")
    report.py recipe-hash   the recipe hash
    report.py all-ran       "yes" if no phase failed, else "no"
"""
import json
import sys


def main():
    r = json.load(sys.stdin)
    what = sys.argv[1]
    phases = r.get("phases", [])
    reps = [p.get("report") for p in phases if p.get("report")]
    out = []
    if what == "states":
        out.append(" ".join("%s=%s" % (p["phase"], (p.get("verdict") or {}).get("state", "none"))
                            for p in phases))
    elif what == "declare":
        seen = set()
        for rep in reps:
            for d in rep["declarable"]:
                spec = d["providers"][0]["spec"]
                if (spec, d["path"]) not in seen:
                    seen.add((spec, d["path"]))
                    out.append("%s\t%s" % (spec, d["path"]))
    elif what in ("irreducible", "policy-bugs"):
        key = "irreducible" if what == "irreducible" else "policy_bug"
        for rep in reps:
            for d in rep[key]:
                if isinstance(d["path"], str) and d["path"] not in out:
                    out.append(d["path"])
    elif what == "providers":
        for rep in reps:
            for d in rep["declarable"]:
                if d["path"] == sys.argv[2]:
                    out = ["%s\t%s\t%s" % (p["name"], p["how"], p["via"] or "-")
                           for p in d["providers"]]
    elif what == "evidence":
        out = [rep["evidence"] for rep in reps if rep.get("evidence")]
    elif what == "artifact":
        out.append(r.get("artifact") or "none")
    elif what == "recipe-hash":
        out.append(r["recipe"]["hash"])
    elif what == "all-ran":
        out.append("no" if r.get("failed_phase") else "yes")
    else:
        sys.exit("report.py: unknown question %r" % what)
    for line in out:
        print(line)


main()
