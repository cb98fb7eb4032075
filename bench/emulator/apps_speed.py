#!/usr/bin/env python3
"""Emulator speed on our own programs (bench/apps): CPU time (user+sys of
predatar and the program) and lane-instructions per CPU second, emulation
alone (`-d none`) and with gwcp, for one or two predatar builds side by side.

  apps_speed.py [--before PREDATAR] [--after PREDATAR] [--size SIZE] [--detectors none,gwcp] [APP...]

Lane-instructions are the thread instructions `--stats` counts (one per
active lane per warp instruction), so the rate is comparable across programs.
Each cell is the best of --trials runs (the machine is shared: the minimum is
the least disturbed). Output: one markdown table, ratios before/after.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
APPS_DIR = os.path.join(HERE, "..", "apps", "bin")
DEFAULT_APPS = ["hotspot", "pathfinder", "needle", "kmeans", "1dconv", "streamcluster", "shoc-bfs"]


def run(predatar, app, size, detectors):
    """(CPU seconds, lane-instructions, verdict) of one run."""
    cmd = [predatar, "run", "--detectors", detectors, "--stats", "--", os.path.join(APPS_DIR, app), size]
    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        proc = subprocess.run(["/usr/bin/time", "-q", "-f", "%U %S", "-o", timing.name] + cmd,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        user, system = timing.read().split()[-2:]
    lanes = sum(int(n) for n in re.findall(r"\((\d+) thread instructions\)", proc.stdout))
    verdict = "PASS" if re.search(r": PASS\b", proc.stdout) else "FAIL(exit %d)" % proc.returncode
    return float(user) + float(system), lanes, verdict


def best(predatar, app, size, detectors, trials):
    runs = [run(predatar, app, size, detectors) for _ in range(trials)]
    return min(runs, key=lambda r: r[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", help="predatar of the baseline build")
    ap.add_argument("--after", default=os.path.join(HERE, "..", "..", "build", "predatar"))
    ap.add_argument("--size", default="large", choices=["small", "large", "paper"])
    ap.add_argument("--detectors", default="none,gwcp")
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("apps", nargs="*", default=DEFAULT_APPS)
    args = ap.parse_args()
    builds = [("before", args.before)] if args.before else []
    builds.append(("after", args.after))
    head = "| app | detectors | lane-instructions |"
    rule = "|---|---|---|"
    for name, _ in builds:
        head += f" {name} CPU s | {name} Mlane-instr/s |"
        rule += "---|---|"
    if args.before:
        head += " speed-up |"
        rule += "---|"
    print(f"# bench/emulator/apps_speed.py --size {args.size}: CPU seconds (user+sys, predatar and program), "
          f"best of {args.trials}")
    print(head)
    print(rule)
    for app in args.apps:
        for detectors in args.detectors.split(","):
            row, cpus, lanes = f"| {app} | {detectors} |", [], 0
            cells = ""
            for name, predatar in builds:
                cpu, lanes, verdict = best(predatar, app, args.size, detectors, args.trials)
                cpus.append(cpu)
                note = "" if verdict == "PASS" else f" {verdict}"
                cells += f" {cpu:.2f}{note} | {lanes / cpu / 1e6:.1f} |"
            row += f" {lanes} |" + cells
            if args.before:
                row += f" x{cpus[0] / cpus[1]:.2f} |"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
