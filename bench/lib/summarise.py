#!/usr/bin/env python3
"""bench/run's arithmetic: raw per-run files -> summary JSON -> the printed table.

  summarise.py builds RAW ROUNDS "PKGS" "MODES" PAIR_ROUNDS "PAIR_KINDS" -> builds JSON on stdout
  summarise.py micro MICRO_DIR                      -> micro JSON on stdout
  summarise.py report OUT STAMP MACHINE_JSON BUILDS MICRO -> the table
"""
import glob
import json
import os
import statistics
import sys

TARGETS = {
    "cage_over_nocage": 1.02,        # median of the side-by-side pairs, every package
    "side_by_side_null": 0.02,       # uncaged | uncaged side by side: the method's own bias
    "strace_over_cage": 4.0,         # the cage >= 4x faster than strace tracing
    "evidence_fixed_ms": 150,
    "rules_100k_s": 1.0,
    "rules_100k_rss_kib": 64 * 1024,
    "zero_loss_rate": 10000,
    "blake3_vs_others": 2.0,
}


def load(path):
    with open(path) as f:
        return json.load(f)


def phases_ms(result):
    # The phases, plus the build's final wait for their deferred deallocation records
    # (harkaq build awaits them once, after the last phase: docs/verdict.md).
    return sum(p["ms"] for p in result.get("phases", [])) + result.get("evidence_finish_ms", 0)


def bootstrap_median_ci(xs, level=0.90, resamples=2000):
    """The percentile-bootstrap interval of the median of xs (a fixed seed: the same figures
    give the same interval).  With a round-to-round spread of ±10%, it says how far the
    median of a few rounds can be trusted."""
    import random
    rng = random.Random(1)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(resamples))
    lo = meds[int((1 - level) / 2 * resamples)]
    hi = meds[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return [lo, hi]


def cpu_ms(result):
    # User + system time of the phases' processes (timing_ms.command_cpu: the command and all
    # it started, the cage's own set-up inside the sandbox included, the reader's not).
    vals = [(p.get("timing_ms") or {}).get("command_cpu") for p in result.get("phases", [])]
    return sum(vals) if vals and all(isinstance(v, int) for v in vals) else None


def paired(runs, base_runs, key):
    by_round = {b["round"]: b for b in base_runs}
    return [x[key] / by_round[x["round"]][key] for x in runs
            if x["ok"] and x.get(key) and x["round"] in by_round
            and by_round[x["round"]]["ok"] and by_round[x["round"]].get(key)]


def run_record(raw, name, rnd):
    """One timed build: its wall time, and from its result JSON the phases' time and CPU time,
    the artifact and the verdicts; None when it was not run (strace: --strace-rounds)."""
    jf, wf = f"{raw}/{name}.json", f"{raw}/{name}.wall"
    if not os.path.exists(wf):
        return None
    w = load(wf)
    res = load(jf) if os.path.exists(jf) else {}
    ok = bool(res.get("phases")) and res.get("failed_phase") is None
    return {
        "round": rnd, "rc": w["rc"], "ok": ok, "wall_ms": w["wall_ms"],
        "phases_ms": phases_ms(res) if ok else None,
        "cpu_ms": cpu_ms(res) if ok else None,
        "per_phase_ms": {ph["phase"]: ph["ms"] for ph in res.get("phases", [])},
        "timing_ms": {ph["phase"]: ph.get("timing_ms") for ph in res.get("phases", [])},
        "artifact": res.get("artifact"),
        "states": [(ph.get("verdict") or {}).get("state") for ph in res.get("phases", [])],
    }


def log_spread(ratios):
    """The standard deviation of the log ratios: the round-to-round noise of a ratio (0.10 is
    +-10%), whatever its median."""
    import math
    return statistics.stdev([math.log(x) for x in ratios]) if len(ratios) > 1 else None


def ratio_summary(ratios):
    return {"ratios": ratios, "median": statistics.median(ratios),
            "ci90": bootstrap_median_ci(ratios), "log_spread": log_spread(ratios)} if ratios else None


def side_by_side(raw, p, pair_rounds, kinds):
    """Builds started together (sharing the CPUs, or each pinned to its half): per round, the mode's
    build against the uncaged build that ran at the same moment.  The kind `nocage` (uncaged
    against uncaged) is the method's control: its ratio is the method's own bias and noise."""
    out = {}
    for m in kinds:
        rows = []
        for r in range(1, int(pair_rounds) + 1):
            a = run_record(raw, f"{p}-sbs-{m}-{r}-mode", r)
            b = run_record(raw, f"{p}-sbs-{m}-{r}-base", r)
            if a and b:
                rows.append({"round": r, "mode": a, "base": b})
        good = [x for x in rows if x["mode"]["ok"] and x["base"]["ok"]]
        out[m] = {
            "rounds": len(rows), "ok_rounds": len(good), "runs": rows,
            "wall": ratio_summary([x["mode"]["phases_ms"] / x["base"]["phases_ms"] for x in good]),
            "cpu": ratio_summary([x["mode"]["cpu_ms"] / x["base"]["cpu_ms"] for x in good
                                  if x["mode"]["cpu_ms"] and x["base"]["cpu_ms"]]),
            "artifacts": sorted({x[k]["artifact"] for x in rows for k in ("mode", "base")
                                 if x[k]["artifact"]}),
            "states": sorted({s or "-" for x in rows for s in x["mode"]["states"]}),
        }
    return out


def builds(raw, rounds, pkgs, modes, pair_rounds="0", pair_kinds=""):
    out = {"packages": {}}
    for p in pkgs.split():
        pk = {"modes": {}, "verdict": None}  # None: not built (bench/run --pairs-only)
        vf = f"{raw}/verdict-{p}.json"
        v = load(vf) if os.path.exists(vf) else None
        if v is not None:
            pk["verdict"] = {
                "recipe_hash": v.get("recipe", {}).get("hash"),
                "policy_id": v.get("policy_id"),
                "artifact": v.get("artifact"),
                "failed_phase": v.get("failed_phase"),
                "phases": [{
                    "phase": ph["phase"],
                    "state": (ph.get("verdict") or {}).get("state"),
                    "denials": [{"path": d.get("path"), "class": d.get("class"),
                                 "blockers": d.get("blockers"), "exe": d.get("exe"),
                                 "count": d.get("count")}
                                for d in (ph.get("verdict") or {}).get("denials", [])],
                    "reasons": (ph.get("verdict") or {}).get("reasons", []),
                } for ph in v.get("phases", [])],
            } if not v.get("failed") else {"failed": True, "log_tail": open(
                f"{raw}/verdict-{p}.log").read().strip().splitlines()[-2:]}
        for m in modes.split():
            runs = [x for x in (run_record(raw, f"{p}-{m}-{r}", r)
                                for r in range(1, int(rounds) + 1)) if x]
            good = [x["phases_ms"] for x in runs if x["ok"]]
            pk["modes"][m] = {
                "runs": runs,
                "ok_runs": len(good),
                "min_ms": min(good) if good else None,
                "median_ms": statistics.median(good) if good else None,
                "wall_median_ms": statistics.median([x["wall_ms"] for x in runs if x["ok"]])
                if good else None,
                "artifacts": sorted({x["artifact"] for x in runs if x["artifact"]}),
            }
        base = pk["modes"].get("nocage", {})
        for m, d in pk["modes"].items():
            if base.get("median_ms") and d.get("median_ms"):
                d["ratio_median"] = d["median_ms"] / base["median_ms"]
                d["ratio_min"] = d["min_ms"] / base["min_ms"]
            # Per round, against the uncaged build of the same round (the modes of a round
            # run back to back, so slow drift of the machine cancels): the median of these
            # paired ratios is what the targets check.
            pairs = paired(d["runs"], base.get("runs", []), "phases_ms")
            cpu = [x["cpu_ms"] for x in d["runs"] if x["ok"] and x.get("cpu_ms")]
            if cpu:
                d["cpu_median_ms"] = statistics.median(cpu)
            cpu_pairs = paired(d["runs"], base.get("runs", []), "cpu_ms")
            if cpu_pairs:
                d["cpu_paired_ratios"] = cpu_pairs
                d["cpu_ratio_paired_median"] = statistics.median(cpu_pairs)
                d["cpu_ratio_paired_ci90"] = bootstrap_median_ci(cpu_pairs)
            if pairs:
                d["paired_ratios"] = pairs
                d["ratio_paired_median"] = statistics.median(pairs)
                d["ratio_paired_ci90"] = bootstrap_median_ci(pairs)
                d["paired_log_spread"] = log_spread(pairs)
            if base.get("wall_median_ms") and d.get("wall_median_ms"):
                # The whole `harkaq build` process: derivation, collapse planning, closure
                # verification and sealing included (the same work in every mode but the
                # cage's own files and reader).
                d["wall_ratio_median"] = d["wall_median_ms"] / base["wall_median_ms"]
        if int(pair_rounds) > 0:
            pk["side_by_side"] = side_by_side(raw, p, pair_rounds, pair_kinds.split())
        out["packages"][p] = pk
    if os.path.exists(f"{raw}/side-by-side.method"):
        out["side_by_side_method"] = open(f"{raw}/side-by-side.method").read().strip()
    if os.path.exists(f"{raw}/side-by-side.skipped"):
        out["side_by_side_skipped"] = open(f"{raw}/side-by-side.skipped").read().strip()
    return out


def micro(m):
    out = {}
    if os.path.exists(f"{m}/rules.json"):
        out["rules"] = [json.loads(l) for l in open(f"{m}/rules.json") if l.strip()]
    if os.path.exists(f"{m}/rules-sh.json"):
        # bench/rules.sh's summary: min wall of the whole run, and the install cost (the run
        # minus the 3-rule run), both in ms.
        out["rules"] = [{"rules_requested": r["rules"], "rules_installed": r["installed"],
                         "wall_s": round(r["wall_ms_min"] / 1000, 3),
                         "install_ms_median": r["install_ms_median"],
                         "peak_rss_kib": r["peak_rss_kib"], "by": "bench/rules.sh"}
                        for r in load(f"{m}/rules-sh.json")["rules"] if r["rules"] >= 1000]
    if os.path.exists(f"{m}/fixed.json") and os.path.getsize(f"{m}/fixed.json"):
        out["fixed"] = load(f"{m}/fixed.json")
        out["fixed_table"] = open(f"{m}/fixed.out").read()
    if os.path.exists(f"{m}/ops.json") and os.path.getsize(f"{m}/ops.json"):
        out["ops"] = load(f"{m}/ops.json")
        out["ops_table"] = open(f"{m}/ops.out").read()
    if os.path.exists(f"{m}/derive.json"):
        out["derive"] = load(f"{m}/derive.json")
    if os.path.exists(f"{m}/evidence.json"):
        out["evidence"] = load(f"{m}/evidence.json")
    if os.path.exists(f"{m}/evidence-sh.json"):
        ev = load(f"{m}/evidence-sh.json")["summary"]
        out["evidence_sh"] = ev
        out["evidence_sh_table"] = open(f"{m}/evidence.out").read()
    if os.path.exists(f"{m}/denials.jsonl"):
        out["denials"] = [json.loads(l) for l in open(f"{m}/denials.jsonl") if l.strip()]
    if os.path.exists(f"{m}/hash.jsonl"):
        h = {}
        for l in open(f"{m}/hash.jsonl"):
            x = json.loads(l)
            h.setdefault(x["tool"], []).append(x["ms"])
        out["hash_256mib"] = {t: {"min_ms": min(v), "median_ms": statistics.median(v),
                                  "mib_per_s": 256 * 1000 / min(v)} for t, v in h.items()}
    cg = {}
    for f in glob.glob(f"{m}/cg.*.ir"):
        name = os.path.basename(f)[3:-3]
        txt = open(f).read().strip()
        cg[name] = int(txt) if txt else None
    out["callgrind_ir"] = cg
    return out


def fmt(x, unit=""):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.2f}{unit}"
    return f"{x}{unit}"


def report(outdir, stamp, machine, do_builds, do_micro):
    mach = json.loads(machine)
    lines = [f"harkaq benchmark {stamp}",
             f"machine: {mach['cpu']}, {mach['nproc']} cpus, kernel {mach['kernel']}, {mach['os']}", ""]
    checks = []
    if do_builds == "1":
        b = load(f"{outdir}/builds-{stamp}.json")
        # Sequential rounds were run (not bench/run --pairs-only): their tables.
        seq_rounds = any(d["runs"] for pk in b["packages"].values() for d in pk["modes"].values())
        lines += ["builds: sum of phase wall times plus the final evidence wait (s), min / median over the rounds; ratio = median / median(nocage)",
                  "wall: the whole harkaq build process, median s, and its ratio to nocage's",
                  "paired: the median over the rounds of (this mode / nocage of the same round)"] if seq_rounds else []
        lines += [f"{'package':8} {'mode':7} {'ok':>3} {'min s':>7} {'median s':>9} {'ratio':>6} {'ratio(min)':>10} {'paired':>7} {'wall s':>7} {'wall ratio':>10}  artifacts / verdicts"] if seq_rounds else []
        for p, pk in b["packages"].items():
            for m, d in pk["modes"].items():
                if not d["runs"]:
                    continue  # not run (--pairs-only, or strace past --strace-rounds)
                states = sorted({s or '-' for r in d["runs"] for s in r["states"]})
                lines.append(f"{p:8} {m:7} {d['ok_runs']:>3} "
                             f"{fmt(d['min_ms'] and d['min_ms'] / 1000):>7} "
                             f"{fmt(d['median_ms'] and d['median_ms'] / 1000):>9} "
                             f"{fmt(d.get('ratio_median')):>6} {fmt(d.get('ratio_min')):>10} "
                             f"{fmt(d.get('ratio_paired_median')):>7} "
                             f"{fmt(d.get('wall_median_ms') and d['wall_median_ms'] / 1000):>7} "
                             f"{fmt(d.get('wall_ratio_median')):>10}  "
                             f"{len(d['artifacts'])} artifact(s); {','.join(states)}")
            cage, noc, st = (pk["modes"].get(k, {}) for k in ("cage", "nocage", "strace"))
            sbs = pk.get("side_by_side") or {}
            sbs_cage = (sbs.get("cage") or {}).get("wall")
            seq = ""
            if cage.get("ratio_paired_median"):
                ci = cage.get("ratio_paired_ci90") or [None, None]
                seq = (f"{cage['ratio_paired_median']:.3f}x, 90% interval {fmt(ci[0])}–{fmt(ci[1])} over "
                       f"{len(cage['paired_ratios'])} rounds (ratio of the medians {cage['ratio_median']:.3f}x; "
                       f"CPU time {fmt(cage.get('cpu_ratio_paired_median'))}x)")
            if sbs_cage:
                # Side by side is where the target is checked: the same machine speed for both
                # builds of a pair (the method's control, uncaged | uncaged, is checked below).
                ci = sbs_cage["ci90"]
                checks.append((f"{p}: caged <= {TARGETS['cage_over_nocage']}x uncaged (median of side-by-side pairs)",
                               f"{sbs_cage['median']:.3f}x, 90% interval {fmt(ci[0])}–{fmt(ci[1])} over "
                               f"{len(sbs_cage['ratios'])} pairs; one after another: {seq or '-'}",
                               sbs_cage["median"] <= TARGETS["cage_over_nocage"]))
            elif seq:
                checks.append((f"{p}: caged <= {TARGETS['cage_over_nocage']}x uncaged (median of paired rounds)",
                               seq, cage["ratio_paired_median"] <= TARGETS["cage_over_nocage"]))
            aa = (sbs.get("nocage") or {}).get("wall")
            if aa:
                checks.append((f"{p}: the side-by-side method's control, uncaged | uncaged, within "
                               f"1 +- {TARGETS['side_by_side_null']}",
                               f"{aa['median']:.3f}x, 90% interval {fmt(aa['ci90'][0])}–{fmt(aa['ci90'][1])}",
                               abs(aa["median"] - 1) <= TARGETS["side_by_side_null"]))
            if cage.get("median_ms") and st.get("median_ms"):
                r = st["median_ms"] / cage["median_ms"]
                bound = st["median_ms"] / noc["median_ms"] if noc.get("median_ms") else None
                checks.append((f"{p}: caged >= {TARGETS['strace_over_cage']}x faster than strace",
                               f"{r:.2f}x (the uncaged build itself: {fmt(bound)}x, the bound for any cage)",
                               r >= TARGETS["strace_over_cage"]))
            arts = set(cage.get("artifacts", [])) | set(noc.get("artifacts", []))
            for k in sbs.values():
                arts |= set(k.get("artifacts", []))
            if cage.get("artifacts") and noc.get("artifacts"):
                checks.append((f"{p}: same artifact caged and uncaged", f"{len(arts)} distinct", len(arts) == 1))
        lines += ["", "CPU time of the phases' processes (user + system; the reader's excluded), median s, and",
                  "the paired ratio to nocage [90% interval]: what the cage makes the build do, less exposed",
                  "than wall time to the scheduling of two shared CPUs"] if seq_rounds else []
        for p, pk in b["packages"].items():
            for m, d in pk["modes"].items():
                if d.get("cpu_median_ms") is None:
                    continue
                ci = d.get("cpu_ratio_paired_ci90") or [None, None]
                lines.append(f"  {p:8} {m:7} {d['cpu_median_ms'] / 1000:7.2f}  "
                             f"{fmt(d.get('cpu_ratio_paired_median'))} [{fmt(ci[0])}–{fmt(ci[1])}]")
        if any(pk.get("side_by_side") for pk in b["packages"].values()):
            lines.append("")
            if b.get("side_by_side_method") == "pinned":
                lines.append("side by side: each mode's build and an uncaged build started together, each pinned")
                lines.append("to its half of the CPUs (swapped every round, and which starts first every other")
                lines.append("round; a package's pairs back to back); ratio = mode / its uncaged partner,")
            else:
                lines.append("side by side: each mode's build and an uncaged build started together, sharing all")
                lines.append("the CPUs (which starts first swapped every round; a package's pairs back to back);")
                lines.append("ratio = mode / its uncaged partner,")
            lines.append("median [90% interval]; noise = s.d. of the log ratios (the sequential rounds' in brackets)")
            for p, pk in b["packages"].items():
                for m, d in (pk.get("side_by_side") or {}).items():
                    w, c = d.get("wall"), d.get("cpu")
                    if not w:
                        lines.append(f"  {p:8} {m:7} no complete pair ({d['rounds']} run)")
                        continue
                    seqd = pk["modes"].get(m, {})
                    seqn = seqd.get("paired_log_spread") if m != "nocage" else None
                    lines.append(f"  {p:8} {m:7} {len(w['ratios'])} pairs  {w['median']:.3f} "
                                 f"[{fmt(w['ci90'][0])}–{fmt(w['ci90'][1])}]  CPU "
                                 f"{fmt(c and c['median'])}  noise {fmt(w['log_spread'])}"
                                 f"{' [' + fmt(seqn) + ']' if seqn else ''}  {','.join(d['states'])}")
        if b.get("side_by_side_skipped"):
            lines.append(f"side by side: skipped ({b['side_by_side_skipped']})")
        lines.append("")
        lines.append("verdicts of the recipes as written (apt source, caged):")
        for p, pk in b["packages"].items():
            v = pk["verdict"]
            if v is None:
                lines.append(f"  {p}: not built (--pairs-only)")
                continue
            if v.get("failed"):
                lines.append(f"  {p}: the build did not produce a result: " + " / ".join(v.get("log_tail", [])))
                continue
            for ph in v["phases"]:
                ds = "; ".join(f"{d['path']} [{d['class']}] by {d['exe']}" for d in ph["denials"])
                rs = "; ".join(r.get("code", "") for r in ph["reasons"])
                lines.append(f"  {p:6} {ph['phase']:9} {ph['state']} {ds}{(' ' + rs) if rs else ''}")
            if v.get("failed_phase"):
                lines.append(f"  {p:6} failed in phase {v['failed_phase']}")
        lines.append("")
    if do_micro == "1":
        m = load(f"{outdir}/micro-{stamp}.json")
        lines.append("micro-benchmarks:")
        for r in m.get("rules", []):
            lines.append(f"  rules {r['rules_requested']:>6}: installed {r['rules_installed']}, "
                         f"whole run {r['wall_s']} s, peak RSS {r['peak_rss_kib'] / 1024:.1f} MiB")
            if r["rules_requested"] == 100000:
                checks.append(("100k rules < 1 s", f"{r['wall_s']} s", r["wall_s"] < TARGETS["rules_100k_s"]))
                checks.append(("100k rules peak RSS < 64 MiB", f"{r['peak_rss_kib'] / 1024:.1f} MiB",
                               r["peak_rss_kib"] < TARGETS["rules_100k_rss_kib"]))
        fx = m.get("fixed")
        if fx:
            lines.append("  the cage's fixed cost (bench/fixed.sh):")
            lines += ["    " + l for l in m["fixed_table"].splitlines() if l.strip() and not l.startswith("raw:")]
            add = fx["modes"]["cage"]["adds_phases_ms_median"]
            if do_builds == "1":
                b = load(f"{outdir}/builds-{stamp}.json")
                for p, pk in b["packages"].items():
                    noc = pk["modes"].get("nocage", {}).get("median_ms")
                    if noc:
                        lines.append(f"    implies for {p}: {1 + add / noc:.3f}x ({add:.0f} ms on {noc / 1000:.2f} s)")
        ops = m.get("ops")
        if ops:
            lines.append("  what each operation costs caged, and how many each build makes (bench/ops.sh):")
            lines += ["    " + l for l in m["ops_table"].splitlines() if l.strip() and not l.startswith("raw:")]
            if fx and do_builds == "1":
                b = load(f"{outdir}/builds-{stamp}.json")
                add = fx["modes"]["cage"]["adds_phases_ms_median"]
                for p, pk in b["packages"].items():
                    noc = pk["modes"].get("nocage", {}).get("median_ms")
                    ob = next((x for x in ops["builds"] if f"/recipes/{p}/" in x["recipe"]), None)
                    if noc and ob and "adds_ms_total" in ob:
                        lines.append(f"    {p}: fixed {add:.0f} ms + operations {ob['adds_ms_total']:.0f} ms "
                                     f"on {noc / 1000:.2f} s -> at most {1 + (add + ob['adds_ms_total']) / noc:.3f}x")
        d = m.get("derive")
        if d:
            lines.append(f"  derivation ({d['closure_artifacts']} artifacts, {d['files']} files, "
                         f"{d['grants']} grants): min {d['min_ms']} ms, median {d['median_ms']} ms")
        e = m.get("evidence")
        if e:
            lines.append(f"  evidence per run: reader start {e['reader_start_ms']} ms, dealloc wait "
                         f"{e['dealloc_wait_ms']} ms, total {e['total_ms']} ms vs {e['no_evidence_wall_ms']} ms "
                         f"without evidence -> fixed cost {e['fixed_cost_ms']} ms")
            checks.append(("fixed evidence cost <= 150 ms per phase", f"{e['fixed_cost_ms']} ms",
                           e["fixed_cost_ms"] <= TARGETS["evidence_fixed_ms"]))
        es = m.get("evidence_sh")
        if es:
            lines.append("  evidence (bench/evidence.sh):")
            lines += ["    " + l for l in m["evidence_sh_table"].splitlines()
                      if l.strip() and not l.startswith(("flood:", "raw:"))]
            fx = es["fixed"]["extra_ms"]["median"]
            checks.append(("fixed evidence cost <= 150 ms per phase (median extra)", f"{fx:.0f} ms",
                           fx <= TARGETS["evidence_fixed_ms"]))
            hi = max((v.get("max_zero_loss_per_s", 0) for k, v in es["flood"].items() if k != "64"),
                     default=0)
            checks.append(("zero loss at >= 10,000 denials/s (raised backlog)", f"{hi}/s",
                           hi >= TARGETS["zero_loss_rate"]))
        best = None
        for x in m.get("denials", []):
            lines.append(f"  denials at {x['rate_requested'] or 'max'}/s (achieved {x['achieved_per_s']}/s): "
                         f"{x['state']}, {x['records_received']}/{x['kernel_denials']} received, "
                         f"lost +{x['lost_delta']}, ENOBUFS {x['enobufs']}")
            if x["zero_loss"] and (best is None or x["achieved_per_s"] > best):
                best = x["achieved_per_s"]
        if m.get("denials"):
            checks.append(("zero loss at >= 10,000 denials/s", f"{best}/s",
                           best is not None and best >= TARGETS["zero_loss_rate"]))
        h = m.get("hash_256mib", {})
        if h:
            lines.append("  hashing 256 MiB (page cache warm): " + ", ".join(
                f"{t} {v['min_ms']} ms ({v['mib_per_s']:.0f} MiB/s)" for t, v in h.items()))
            if "blake3" in h:
                worst = max(h["blake3"]["min_ms"] / v["min_ms"] for t, v in h.items() if t != "blake3")
                checks.append(("BLAKE3 within 2x of b2sum and sha256sum", f"{worst:.2f}x the faster",
                               worst <= TARGETS["blake3_vs_others"]))
        cg = m.get("callgrind_ir", {})
        if cg:
            lines.append("  callgrind instructions (Ir): " + ", ".join(f"{k} {v:,}" for k, v in sorted(cg.items()) if v))
            d = m.get("derive")
            per = []
            if cg.get("blake3"):
                per.append(f"BLAKE3 {cg['blake3'] / (4 << 20):.1f} Ir/byte")
            if cg.get("policy_parse") and d:
                per.append(f"policy parse {cg['policy_parse'] / d['grants']:.0f} Ir/grant")
            for k in ("audit_access", "audit_domain", "audit_syscall"):
                if cg.get(k):
                    per.append(f"{k} {cg[k] / 10000:.0f} Ir/record")
            if cg.get("derive") and d:
                per.append(f"derivation {cg['derive'] / d['files']:.0f} Ir/closure file")
            lines.append("    " + ", ".join(per))
        lines.append("")
    lines.append("targets:")
    for name, val, ok in checks:
        lines.append(f"  [{'ok' if ok else 'MISS'}] {name}: {val}")
    print("\n".join(lines))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "builds":
        print(json.dumps(builds(*sys.argv[2:8]), indent=1))
    elif cmd == "micro":
        print(json.dumps(micro(sys.argv[2]), indent=1))
    elif cmd == "report":
        report(*sys.argv[2:7])
