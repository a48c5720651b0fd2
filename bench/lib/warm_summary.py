#!/usr/bin/env python3
"""bench/warm.sh's arithmetic: its raw files -> the summary JSON (written to OUT_JSON) and the
printed table (stdout).

  warm_summary.py RAW TRIVIAL ALONE PAIRS ZLIB ZPAIRS MACHINE_JSON STAMP OUT_JSON
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarise import bootstrap_median_ci, fmt, load, log_spread  # noqa: E402

TARGETS = {
    "trivial_alone_s": 0.25,        # caged, warm, one build at a time (median)
    "trivial_ratio": 1.15,          # caged | --no-cage side by side (median)
    "trivial_null": 0.05,           # --no-cage | --no-cage: the method's bias at ~0.2 s
    "zlib_ratio": 1.05,             # whole harkaq build | bare commands side by side (median)
    "zlib_null": 0.02,              # bare | bare
}
# The parts of a caged phase, in the order they happen (engine/cage/cage.h, hk_cage_timing_json).
TIMING = ("reader_ahead", "reader_start", "command", "status_drain", "dealloc_wait",
          "reader_stop")


def run(raw, name):
    """One timed run: rc, wall, and from a harkaq build's result its phases' time, timing and
    verdicts (a bare run has none of these)."""
    wf = f"{raw}/{name}.wall"
    if not os.path.exists(wf):
        return None
    w = load(wf)
    rec = {"name": name, "rc": w["rc"], "wall_ms": w["wall_ms"], "ok": w["rc"] == 0}
    jf = f"{raw}/{name}.json"
    if os.path.exists(jf):
        d = load(jf)
        rec["phases_ms"] = sum(p["ms"] for p in d.get("phases", []))
        rec["evidence_finish_ms"] = d.get("evidence_finish_ms", 0)
        rec["timing_ms"] = [p.get("timing_ms") for p in d.get("phases", [])]
        rec["states"] = [(p.get("verdict") or {}).get("state") for p in d.get("phases", [])]
        rec["artifact"] = d.get("artifact")
        rec["ok"] = rec["ok"] and bool(d.get("phases")) and d.get("failed_phase") is None
    return rec


def ratios(raw, prefix, kind, n):
    rows = []
    for r in range(1, n + 1):
        a, b = run(raw, f"{prefix}-sbs-{kind}-{r}-mode"), run(raw, f"{prefix}-sbs-{kind}-{r}-base")
        if a and b:
            rows.append({"round": r, "mode": a, "base": b})
    good = [x["mode"]["wall_ms"] / x["base"]["wall_ms"] for x in rows
            if x["mode"]["ok"] and x["base"]["ok"] and x["base"]["wall_ms"] > 0]
    return {"pairs": len(rows), "ok_pairs": len(good), "runs": rows, "ratios": good,
            "median": statistics.median(good) if good else None,
            "ci90": bootstrap_median_ci(good) if good else None,
            "log_spread": log_spread(good) if good else None}


def med(xs):
    """The median, in whole ms (these are ms figures)."""
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs)) if xs else None


def trivial(raw, alone, pairs):
    out = {"alone": {}}
    for m in ("cage", "nocage"):
        runs = [x for x in (run(raw, f"t-alone-{m}-{r}") for r in range(1, alone + 1)) if x]
        walls = [x["wall_ms"] for x in runs if x["ok"]]
        out["alone"][m] = {"runs": runs, "ok": len(walls), "wall_min_ms": min(walls, default=None),
                           "wall_median_ms": med(walls),
                           "states": sorted({s or "-" for x in runs for s in x.get("states", [])})}
    cage = [x for x in out["alone"]["cage"]["runs"] if x["ok"]]
    # Where the caged build's time goes (its one phase), medians over the builds alone.
    out["cage_timing_ms"] = {k: med([(x["timing_ms"][0] or {}).get(k) for x in cage
                                     if x.get("timing_ms")]) for k in TIMING}
    out["cage_timing_ms"]["phase"] = med([x["phases_ms"] for x in cage])
    out["cage_timing_ms"]["evidence_finish"] = med([x["evidence_finish_ms"] for x in cage])
    noc = [x for x in out["alone"]["nocage"]["runs"] if x["ok"]]
    out["nocage_phase_ms"] = med([x["phases_ms"] for x in noc])
    # Per round (the two builds of a round one after the other): the caged build's extra wall,
    # and how much of it its phase and its final evidence wait account for.
    byr = {x["name"].rsplit("-", 1)[1]: x for x in noc}
    extra = [(x["wall_ms"] - byr[k]["wall_ms"], x["phases_ms"] - byr[k]["phases_ms"],
              x["evidence_finish_ms"]) for x in cage if (k := x["name"].rsplit("-", 1)[1]) in byr]
    out["alone_extra_ms"] = {"wall": med([e[0] for e in extra]), "phase": med([e[1] for e in extra]),
                             "evidence_finish": med([e[2] for e in extra])}
    out["side_by_side"] = {k: ratios(raw, "t", k, pairs) for k in ("cage", "nocage", "against")}
    return out


def zlib(raw, pairs):
    out = {"side_by_side": {k: ratios(raw, "z", k, pairs) for k in ("cage", "nocage", "bare")}}
    caged = [x["mode"] for x in out["side_by_side"]["cage"]["runs"]]
    out["states"] = sorted({s or "-" for x in caged for s in x.get("states", [])})
    out["artifacts"] = sorted({x["artifact"] for x in caged if x.get("artifact")})
    out["harkaq_wall_median_ms"] = med([x["wall_ms"] for x in caged if x["ok"]])
    out["bare_wall_median_ms"] = med([x["base"]["wall_ms"] for x in out["side_by_side"]["cage"]["runs"]
                                      if x["base"]["ok"]])
    # Where harkaq's wall goes besides its phases (set-up, seal, removal, evidence): the caged
    # builds' wall minus the sum of their phases, median.
    out["harkaq_outside_phases_ms"] = med([x["wall_ms"] - x["phases_ms"] for x in caged
                                           if x["ok"] and x.get("phases_ms") is not None])
    out["harkaq_phases_ms"] = med([x["phases_ms"] for x in caged if x["ok"]])
    # The bare install's files, every pair alike, and the same list as the sealed artifact's
    # would need the store: the count is what is compared here.
    files = set()
    for x in out["side_by_side"]["cage"]["runs"]:
        f = f"{raw}/{x['base']['name']}.files"
        if os.path.exists(f):
            files.add(open(f).read())
    out["bare_install_lists"] = len(files)
    return out


def ratio_line(d):
    if not d or d["median"] is None:
        return "no complete pair"
    return (f"{d['median']:.3f}x [{fmt(d['ci90'][0])}–{fmt(d['ci90'][1])}], noise {fmt(d['log_spread'])}, "
            f"{d['ok_pairs']} pairs")


def ratio_checks(what, mode, base, pairs, target, control, null):
    """The target on the pairs' median, and the method's control (the baseline against itself)
    within 1 +- null: otherwise the method is biased in this run."""
    return [(f"{what}: {mode} <= {target}x {base} (side by side, median)", ratio_line(pairs),
             pairs["median"] is not None and pairs["median"] <= target),
            (f"{what}: the method's control within 1 +- {null}", ratio_line(control),
             control["median"] is not None and abs(control["median"] - 1) <= null)]


def main():
    raw, do_t, alone, pairs, do_z, zpairs, machine, stamp, out_json = sys.argv[1:10]
    mach = json.loads(machine)
    res = {"stamp": stamp, "machine": mach, "targets": TARGETS}
    lines = [f"bench/warm.sh {stamp}",
             f"machine: {mach['cpu']}, {mach['nproc']} cpus, kernel {mach['kernel']}, {mach['os']}",
             f"load average at the end: {open('/proc/loadavg').read().split()[:3]}", ""]
    checks = []
    if do_t == "1":
        t = res["trivial"] = trivial(raw, int(alone), int(pairs))
        a = t["alone"]
        lines.append("1. trivial recipe (one phase `true`, no deps, debian-12-essential), warm; whole harkaq build")
        for m in ("cage", "nocage"):
            lines.append(f"   alone, {m:6}: wall min {fmt(a[m]['wall_min_ms'])} ms, median "
                         f"{fmt(a[m]['wall_median_ms'])} ms over {a[m]['ok']} builds; {','.join(a[m]['states'])}")
        ct = t["cage_timing_ms"]
        lines.append("   caged phase, medians (ms): " + ", ".join(f"{k} {fmt(ct[k])}" for k in TIMING) +
                     f"; phase {fmt(ct['phase'])} (uncaged {fmt(t['nocage_phase_ms'])}); "
                     f"final evidence wait {fmt(ct['evidence_finish'])}")
        e = t["alone_extra_ms"]
        lines.append(f"   the caged build's extra wall, per round (median): {fmt(e['wall'])} ms, of which its phase "
                     f"{fmt(e['phase'])} and the final evidence wait {fmt(e['evidence_finish'])}")
        for k, label in (("cage", "cage | nocage"), ("nocage", "nocage | nocage (control)"),
                         ("against", "cage | cage of --against")):
            if t["side_by_side"][k]["pairs"]:
                lines.append(f"   side by side, {label}: {ratio_line(t['side_by_side'][k])}")
        lines.append("")
        m = a["cage"]["wall_median_ms"]
        checks.append((f"trivial: caged, alone, <= {TARGETS['trivial_alone_s']} s (median)",
                       f"{fmt(m)} ms", m is not None and m <= TARGETS["trivial_alone_s"] * 1000))
        checks += ratio_checks("trivial", "caged", "--no-cage", t["side_by_side"]["cage"],
                               TARGETS["trivial_ratio"], t["side_by_side"]["nocage"], TARGETS["trivial_null"])
    if do_z == "1":
        z = res["zlib"] = zlib(raw, int(zpairs))
        lines.append("2. zlib (catalogue/zlib): whole harkaq build (set-up, verification, phases, seal, evidence)")
        lines.append("   against its commands run bare on the host (configure, make, make install to a DESTDIR)")
        lines.append(f"   medians side by side: harkaq build {fmt(z['harkaq_wall_median_ms'])} ms, bare "
                     f"{fmt(z['bare_wall_median_ms'])} ms; verdicts {','.join(z['states'])}; "
                     f"{len(z['artifacts'])} artifact(s); {z['bare_install_lists']} distinct bare install list(s)")
        lines.append(f"   the caged build's phases {fmt(z['harkaq_phases_ms'])} ms; outside them (set-up, seal, "
                     f"work removal, evidence) {fmt(z['harkaq_outside_phases_ms'])} ms (medians)")
        for k, label in (("cage", "harkaq build | bare"), ("nocage", "harkaq build --no-cage | bare"),
                         ("bare", "bare | bare (control)")):
            lines.append(f"   side by side, {label}: {ratio_line(z['side_by_side'][k])}")
        lines.append("")
        checks += ratio_checks("zlib", "whole harkaq build", "bare", z["side_by_side"]["cage"],
                               TARGETS["zlib_ratio"], z["side_by_side"]["bare"], TARGETS["zlib_null"])
        checks.append(("zlib: one artifact over every caged build", f"{len(z['artifacts'])} distinct",
                       len(z["artifacts"]) == 1))
    lines.append("targets")
    for name, val, ok in checks:
        lines.append(f"  [{'met' if ok else 'MISSED'}] {name}: {val}")
    res["checks"] = [{"target": n, "value": v, "met": ok} for n, v, ok in checks]
    with open(out_json, "w") as f:
        json.dump(res, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
