#!/usr/bin/env python3
"""The application benchmarks (bench/apps): ctest checks, expectations and the
paper's three tables. Called by run.sh; see README.md there.

  apps.py check PREDATAR APP...        ctest: both builds at the small size,
                                       race sites per detector as expected
  apps.py update-expect PREDATAR APP... rewrite expect/APP.expect from today's runs
  apps.py tables PREDATAR SIZE APP...  print tables A, B and C beside the paper's
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import score

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = ["1dconv", "reduction", "rule-110", "hotspot", "kmeans", "needle", "streamcluster", "pathfinder",
        "shoc-bfs", "threadfencereduction", "stencil"]
DETECTORS = score.DETECTORS
BUILDS = (("race-free", ""), ("racy", "-racy"))

# The paper's tables (section 6): unique kinds of races (BC+ = hb, SRD =
# lockset, PD = gwcp); run times in seconds (UM native, BLK NVBit with empty
# callbacks, SRD, BC+, PD, BC+-CP, PD-CP); memory in MB (SRD, BC+, BC+-CP, PD, PD-CP).
PAPER_RACES = {"1dconv": (5, 5, 5), "reduction": (19, 19, 2), "rule-110": (30, 30, 24), "hotspot": (0, 0, 0),
               "kmeans": (0, 0, 0), "needle": (0, 0, 0), "streamcluster": None, "pathfinder": (5, 2, 2),
               "shoc-bfs": (4, 4, 3), "threadfencereduction": (34, 31, 6), "stencil": (2, 1, 0)}
PAPER_TIME = {  # UM, BLK, SRD, BC+, PD, BC+-CP, PD-CP
    "1dconv": (0.83, 1.18, 6.53, 10.6, 14.7, 11.63, 47.69), "reduction": (3.18, 3.42, 18.01, 21.93, 42.42, 21.24, 47.75),
    "rule-110": (0.65, 1.58, 26.7, 24.48, 48.76, 44.47, 103.17), "hotspot": (0.35, 0.62, 3.2, 126.84, 232.28, 187.41, 517.57),
    "kmeans": (1.71, 11.82, 41.03, 64.46, 210.48, 426.09, 1709.39), "needle": (0.21, 67.95, 79.05, 110.77, 152.48, 159.65, 310.98),
    "pathfinder": (0.23, 1.55, 3.18, 32.63, 95.41, 25.27, 52.04), "streamcluster": (0.28, 373.74, 393.74, 398.93, 420.52, 412.91, 425.85),
    "threadfencereduction": (0.22, 25.99, 39.41, 51.37, 88.74, 61.73, 122.07), "shoc-bfs": (0.18, 26.08, 25.77, 26.85, 26.34, 26.4, 26.14),
    "stencil": (0.25, 0.42, 0.42, 0.42, 0.42, 0.44, 0.49)}
PAPER_MEMORY = {  # SRD, BC+, BC+-CP, PD, PD-CP
    "1dconv": (494, 1987, 742, 1049, 1052), "reduction": (5016, 6822, 6626, 10580, 10218), "rule-110": (1065, 2069, 2092, 3575, 3570),
    "hotspot": (505, 5575, 861, 2126, 1338), "kmeans": (6580, 6445, 6360, 11013, 11004), "needle": (1747, 1823, 1829, 3057, 3074),
    "pathfinder": (305, 495, 397, 758, 546), "streamcluster": (138, 476, 477, 469, 496), "threadfencereduction": (238, 327, 287, 419, 378),
    "shoc-bfs": (120, 120, 120, 120, 120), "stencil": (119, 119, 119, 119, 119)}


def sources_digest():
    """The digest of the sources the committed binaries were built from."""
    h = hashlib.sha256()
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".cu") or name == "common.h":
            with open(os.path.join(HERE, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def run(predatar, program, size, detectors, compression="on", report=None, stats=False):
    """Runs PROGRAM under predatar; returns (output text, exit code, CPU seconds, wall seconds, peak RSS MiB).
    CPU time and peak RSS come from /usr/bin/time (the whole process tree: predatar and the program)."""
    cmd = [predatar, "run", "--detectors", detectors, "--compression", compression]
    if report:
        cmd += ["--format", "json", "--output", report]
    if stats:
        cmd.append("--stats")
    cmd += ["--", program, size]
    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        timer = ["/usr/bin/time", "-q", "-f", "%U %S %M", "-o", timing.name] if os.path.exists("/usr/bin/time") else []
        start = time.monotonic()
        proc = subprocess.run(timer + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.monotonic() - start
        fields = timing.read().split()[-3:] if timer else []
    cpu, rss = (float(fields[0]) + float(fields[1]), float(fields[2]) / 1024.0) if len(fields) == 3 else (wall, 0.0)
    return proc.stdout, proc.returncode, cpu, wall, rss


def head_commit():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def program_exit(text):
    m = re.search(r"program exited with (-?\d+)", text)
    return int(m.group(1)) if m else None


def observe(predatar, app, work):
    """Both builds at the small size: {build: {"verdict", "exit", detector: (pairs, found, missed, other)}}."""
    result = {}
    for build, suffix in BUILDS:
        report = os.path.join(work, f"{app}{suffix}.json")
        text, _, _, _, _ = run(predatar, os.path.join(HERE, "bin", app + suffix), "small", "all", report=report,
                               stats=True)
        m = re.search(r": (PASS|FAIL)\b", text)
        row = {"verdict": m.group(1) if m else "NONE", "exit": program_exit(text), "text": text}
        if os.path.exists(report):
            row.update(score.score(os.path.join(HERE, app + ".cu"), report))
        result[build] = row
    return result


def expect_lines(app, observed):
    lines = [f"# expected races of bench/apps/{app}.cu at the small size, per build and detector",
             "# (regenerate: bench/apps/run.sh --update-expect; see RESULTS.md for the semantics in force)",
             f"# generated on top of commit {head_commit()}",
             "# BUILD DETECTOR: found=SITES missed=SITES other=LINES (lines of reported races no marker names)"]
    for build, _ in BUILDS:
        lines.append(f"{build} verdict: {observed[build]['verdict']}")
        for det in DETECTORS:
            _, found, missed, other = observed[build].get(det, (0, [], [], []))
            lines.append(f"{build} {det}: found={score.show(found)} missed={score.show(missed)} other={score.show(other)}")
    return lines


def check(predatar, apps):
    failed = 0
    digest_file = os.path.join(HERE, "bin", "SOURCES.sha256")
    digest = open(digest_file).read().split()[0] if os.path.exists(digest_file) else ""
    if digest != sources_digest():
        print("FAIL: bench/apps/bin is stale: the sources changed since the binaries were built "
              "(run bench/apps/build.sh, then bench/apps/run.sh --update-expect)")
        failed += 1
    with tempfile.TemporaryDirectory() as work:
        for app in apps:
            path = os.path.join(HERE, "expect", app + ".expect")
            if not os.path.exists(path):
                print(f"FAIL: {app}: no {path}")
                failed += 1
                continue
            want = [l for l in open(path).read().splitlines() if l and not l.startswith("#")]
            observed = observe(predatar, app, work)
            got = [l for l in expect_lines(app, observed) if not l.startswith("#")]
            problems = [f"expected '{w}', got '{g}'" for w, g in zip(want, got) if w != g]
            if len(want) != len(got):
                problems.append(f"{path} has {len(want)} lines, expected {len(got)}")
            clean = observed["race-free"]
            missing = [d for d in DETECTORS if d not in peak_metadata(clean["text"])]
            if missing:
                problems.append(f"no `--stats` line for {', '.join(missing)}")
            alone, _, _, _, _ = run(predatar, os.path.join(HERE, "bin", app), "small", "none")
            if ": PASS" not in alone or program_exit(alone) != 0 or "none checked for races" not in alone:
                problems.append("the race-free build under --detectors none did not PASS (or its summary did not say it was not checked)")
            if clean["verdict"] != "PASS" or clean["exit"] != 0:
                problems.append(f"the race-free build did not PASS with exit 0 (verdict {clean['verdict']}, exit {clean['exit']})")
            if problems:
                failed += 1
                print(f"FAIL: {app}")
                for p in problems:
                    print("  " + p)
                for build, _ in BUILDS:
                    for line in observed[build]["text"].splitlines()[-5:]:
                        print(f"  {build}: {line}")
            else:
                print(f"ok: {app}")
    return 1 if failed else 0


def update_expect(predatar, apps):
    os.makedirs(os.path.join(HERE, "expect"), exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for app in apps:
            lines = expect_lines(app, observe(predatar, app, work))
            with open(os.path.join(HERE, "expect", app + ".expect"), "w") as f:
                f.write("\n".join(lines) + "\n")
            print(f"wrote expect/{app}.expect")
    return 0


def peak_metadata(text):
    """{detector: largest peak metadata of any launch, MiB} from `--stats` lines."""
    peaks = {}
    for det, value in re.findall(r"predatar stats: launch \d+ .*? \[(\w+)\]: \d+ events; peak metadata ([\d.]+) MiB", text):
        peaks[det] = max(peaks.get(det, 0.0), float(value))
    return peaks


def table_a(predatar, size, apps, work):
    print(f"Table A: unique races (pairs of source lines) per detector, size {size}; injected sites found/total")
    print("| app | race-free gwcp/hb/lockset | racy gwcp/hb/lockset | sites | found gwcp | found hb | found lockset "
          "| paper PD/BC+/SRD |")
    print("|---|---|---|---|---|---|---|---|")
    for app in apps:
        cells = []
        for build, suffix in BUILDS:
            report = os.path.join(work, f"A-{app}{suffix}.json")
            run(predatar, os.path.join(HERE, "bin", app + suffix), size, "all", report=report)
            cells.append(score.score(os.path.join(HERE, app + ".cu"), report))
        clean, racy = cells
        total = len(set(score.sites(os.path.join(HERE, app + ".cu")).values()))
        paper = PAPER_RACES.get(app)
        print(f"| {app} | " + "/".join(str(clean[d][0]) for d in DETECTORS) + " | " +
              "/".join(str(racy[d][0]) for d in DETECTORS) + f" | {total} | " +
              " | ".join(f"{len(racy[d][1])} (missed: {score.show(racy[d][2])})" for d in DETECTORS) +
              f" | {'/'.join(map(str, paper)) if paper else 'not in the table'} |")


CONFIGS = [("none", "on"), ("gwcp", "on"), ("hb", "on"), ("lockset", "on"), ("all", "on"),
           ("gwcp", "off"), ("hb", "off"), ("all", "off")]


def measure(predatar, size, app):
    """CPU seconds, peak RSS and peak metadata of the race-free build in every configuration."""
    rows = {}
    for det, comp in CONFIGS:
        text, _, cpu, wall, rss = run(predatar, os.path.join(HERE, "bin", app), size, det, comp, stats=det != "none")
        rows[(det, comp)] = (cpu, wall, rss, peak_metadata(text))
    return rows


def table_b_c(predatar, size, apps):
    measured = {app: measure(predatar, size, app) for app in apps}
    print(f"\nTable B: CPU seconds (user+sys, predatar and the program) of the race-free build, size {size}; "
          "xN = slowdown over emulation alone")
    print("| app | emulation alone | gwcp | hb | lockset | all three | gwcp, no compression | hb, no compression "
          "| all, no compression | paper UM / BLK / SRD / BC+ / PD / BC+-CP / PD-CP |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for app in apps:
        rows = measured[app]
        base = max(rows[("none", "on")][0], 1e-3)
        cells = [f"{rows[('none', 'on')][0]:.2f}"]
        for key in CONFIGS[1:]:
            cells.append(f"{rows[key][0]:.2f} (x{rows[key][0] / base:.1f})")
        print(f"| {app} | " + " | ".join(cells) + " | " + " / ".join(map(str, PAPER_TIME[app])) + " |")
    print(f"\nTable C: peak detector metadata (MiB, largest launch) and peak RSS (MiB, whole run), size {size}")
    print("| app | gwcp meta on/off | hb meta on/off | lockset meta | RSS emulation | RSS gwcp on/off | RSS hb on/off "
          "| RSS lockset | RSS all on/off | paper MB SRD / BC+ / BC+-CP / PD / PD-CP |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for app in apps:
        r = measured[app]
        meta = lambda det, comp: r[(det, comp)][3].get(det, 0.0)
        rss = lambda det, comp: r[(det, comp)][2]
        print(f"| {app} | {meta('gwcp', 'on'):.2f}/{meta('gwcp', 'off'):.2f} | {meta('hb', 'on'):.2f}/{meta('hb', 'off'):.2f} "
              f"| {meta('lockset', 'on'):.2f} | {rss('none', 'on'):.0f} | {rss('gwcp', 'on'):.0f}/{rss('gwcp', 'off'):.0f} "
              f"| {rss('hb', 'on'):.0f}/{rss('hb', 'off'):.0f} | {rss('lockset', 'on'):.0f} "
              f"| {rss('all', 'on'):.0f}/{rss('all', 'off'):.0f} | " + " / ".join(map(str, PAPER_MEMORY[app])) + " |")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, predatar = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "tables":
        size, apps = sys.argv[3], sys.argv[4:] or APPS
    else:
        size, apps = "small", sys.argv[3:] or APPS
    unknown = [a for a in apps if a not in APPS]
    if unknown or size not in ("small", "large", "paper"):
        sys.exit(f"apps.py: unknown application or size: {' '.join(unknown) or size}")
    if mode == "check":
        return check(predatar, apps)
    if mode == "update-expect":
        return update_expect(predatar, apps)
    if mode == "tables":
        with tempfile.TemporaryDirectory() as work:
            table_a(predatar, size, apps, work)
            sys.stdout.flush()
            table_b_c(predatar, size, apps)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
