#!/bin/bash
# bench/run's arithmetic (bench/lib/summarise.py) on builds whose times are made up, so that
# every ratio it prints is known in advance: the side-by-side pairs, their target check, the
# method's uncaged | uncaged control (which must fail when it is biased), the sequential
# paired ratios, failed builds left out, the method named, and the report of a machine with
# one CPU.  The
# benchmark decides whether a target is met: a summary that always says "ok" would be a check
# that cannot fail.
set -u
cd "$(dirname "$0")/../.."
exec python3 - <<'EOF'
import json, os, subprocess, sys, tempfile

n = 0
def check(ok, what):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")

def result(ms, cpu, state="Hermetic", failed=False):
    return {"phases": [{"phase": "build", "ms": ms, "timing_ms": {"command_cpu": cpu},
                        "verdict": {"state": state}}],
            "evidence_finish_ms": 0, "artifact": "b3:same",
            "failed_phase": "build" if failed else None}

def write(raw, name, res):
    json.dump(res, open(f"{raw}/{name}.json", "w"))
    json.dump({"rc": 0, "wall_ms": res["phases"][0]["ms"] + 100}, open(f"{raw}/{name}.wall", "w"))

def fixture(raw, cage_ratios, aa_ratios, fail_cage_round=None):
    """3 sequential rounds and len(cage_ratios) side-by-side rounds of one package."""
    json.dump(result(1000, 900), open(f"{raw}/verdict-pkg.json", "w"))
    for r in (1, 2, 3):
        write(raw, f"pkg-nocage-{r}", result(1000 * r, 900 * r))
        write(raw, f"pkg-cage-{r}", result(1100 * r, 990 * r))  # 1.10 every round
        write(raw, f"pkg-noevid-{r}", result(1050 * r, 945 * r))
    for r, (c, a) in enumerate(zip(cage_ratios, aa_ratios), start=1):
        base = 2000 + 100 * r  # each round at its own machine speed
        write(raw, f"pkg-sbs-cage-{r}-mode",
              result(round(base * c), round(base * c * 0.9), failed=(r == fail_cage_round)))
        write(raw, f"pkg-sbs-cage-{r}-base", result(base, round(base * 0.9)))
        write(raw, f"pkg-sbs-noevid-{r}-mode", result(base, round(base * 0.9), "NoEvidence"))
        write(raw, f"pkg-sbs-noevid-{r}-base", result(base, round(base * 0.9)))
        write(raw, f"pkg-sbs-nocage-{r}-mode", result(round(base * a), round(base * a * 0.9)))
        write(raw, f"pkg-sbs-nocage-{r}-base", result(base, round(base * 0.9)))

def summarise(raw, pair_rounds):
    out = subprocess.run([sys.executable, "bench/lib/summarise.py", "builds", raw, "3", "pkg",
                          "nocage cage noevid", str(pair_rounds), "cage noevid nocage"],
                         capture_output=True, text=True, check=True).stdout
    outdir = tempfile.mkdtemp(dir=raw)
    open(f"{outdir}/builds-T.json", "w").write(out)
    machine = json.dumps({"cpu": "test", "nproc": 2, "kernel": "k", "os": "o"})
    rep = subprocess.run([sys.executable, "bench/lib/summarise.py", "report", outdir, "T",
                          machine, "1", "0"], capture_output=True, text=True, check=True).stdout
    return json.loads(out), rep

def target_line(rep, what):
    return next((l for l in rep.splitlines() if what in l), "")

with tempfile.TemporaryDirectory() as raw:
    # Met: cage 1.01 in every pair but one; the control unbiased.
    fixture(raw, [1.01, 1.00, 1.01, 1.02, 1.01], [1.0, 1.01, 0.99, 1.0, 1.0])
    open(f"{raw}/side-by-side.method", "w").write("shared\n")
    b, rep = summarise(raw, 5)
    check(b.get("side_by_side_method") == "shared" and "sharing all" in rep and "pinned" not in rep,
          "the report names the side-by-side method the run used (shared CPUs)")
    sbs = b["packages"]["pkg"]["side_by_side"]
    w = sbs["cage"]["wall"]
    check(len(w["ratios"]) == 5 and abs(w["median"] - 1.01) < 1e-3,
          f"side-by-side ratio is mode / its partner, median 1.01 (got {w['median']:.4f})")
    check(w["ci90"][0] <= w["median"] <= w["ci90"][1], "the interval holds the median")
    check(abs(sbs["cage"]["cpu"]["median"] - 1.01) < 2e-3, "the CPU ratio is paired the same way")
    seq = b["packages"]["pkg"]["modes"]["cage"]
    check(abs(seq["ratio_paired_median"] - 1.10) < 1e-9,
          "sequential paired ratio: each round against the uncaged build of the same round")
    line = target_line(rep, "pkg: caged <= 1.02x")
    check(line.strip().startswith("[ok]") and "side-by-side" in line,
          "the 1.02 target is checked side by side, and met at 1.01")
    line = target_line(rep, "method's control")
    check(line.strip().startswith("[ok]"), "an unbiased control passes")

with tempfile.TemporaryDirectory() as raw:
    # Missed, with a biased control, and one failed caged build.
    fixture(raw, [1.05, 1.06, 1.04, 1.05, 0.5], [1.04, 1.05, 1.03, 1.04, 1.04],
            fail_cage_round=5)
    open(f"{raw}/side-by-side.method", "w").write("pinned\n")
    b, rep = summarise(raw, 5)
    check("each pinned" in rep and "sharing all" not in rep, "a --pinned run's report says pinned")
    sbs = b["packages"]["pkg"]["side_by_side"]
    check(sbs["cage"]["ok_rounds"] == 4 and len(sbs["cage"]["wall"]["ratios"]) == 4,
          "a failed build leaves its pair out (its 0.5 is not a ratio)")
    line = target_line(rep, "pkg: caged <= 1.02x")
    check(line.strip().startswith("[MISS]"), "1.05 side by side is a miss")
    line = target_line(rep, "method's control")
    check(line.strip().startswith("[MISS]"), "a control biased by 4% fails the method")

with tempfile.TemporaryDirectory() as raw:
    # One CPU: no pairs; the target falls back to the sequential rounds, and says so.
    fixture(raw, [], [])
    open(f"{raw}/side-by-side.skipped", "w").write("one CPU: two builds at once would take turns on it\n")
    b, rep = summarise(raw, 0)
    check("side_by_side" not in b["packages"]["pkg"], "no side-by-side summary without pairs")
    check("side by side: skipped (one CPU" in rep, "the report says why the pairs were skipped")
    line = target_line(rep, "pkg: caged <= 1.02x")
    check(line.strip().startswith("[MISS]") and "paired rounds" in line,
          "without pairs the target is checked on the sequential paired median (1.10: a miss)")
with tempfile.TemporaryDirectory() as raw:
    # bench/run --pairs-only: pairs only, no sequential round, no verdict build.  The same pairs
    # with the sequential rounds and the verdict (the control) give their tables.
    fixture(raw, [1.01, 1.03, 1.03, 1.04, 1.03], [1.0, 1.0, 1.0, 1.0, 1.0])
    _, rep_all = summarise(raw, 5)
    for f in os.listdir(raw):
        if f.startswith("verdict-") or (f.startswith("pkg-") and "-sbs-" not in f):
            os.remove(f"{raw}/{f}")
    b, rep = summarise(raw, 5)
    check("median s" in rep_all and "CPU time of the phases" in rep_all and "build     Hermetic" in rep_all,
          "control: with sequential rounds and the verdict build, their tables are printed")
    check("median s" not in rep and "CPU time of the phases" not in rep and
          "pkg: not built (--pairs-only)" in rep and b["packages"]["pkg"]["verdict"] is None,
          "pairs only: no empty sequential table, and the verdict is said not built")
    line = target_line(rep, "pkg: caged <= 1.02x")
    check(line.strip().startswith("[MISS]") and "side-by-side" in line and "1.030x" in line,
          "pairs only: the target is checked on the pairs (1.03: a miss)")
print(f"1..{n}")
EOF
