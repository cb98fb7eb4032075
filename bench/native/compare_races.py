#!/usr/bin/env python3
"""Compares the shared-memory races predatar reports with what compute-sanitizer racecheck found on a GPU.

racecheck sees shared memory only, and only the schedule the GPU ran; predatar reports every memory
space and predicts other schedules. So the comparison is on shared-memory races, by source line: the
lines racecheck named in its hazards (both accesses), against the lines of predatar's shared-memory
races (gwcp, both accesses). Global-memory races are listed beside, as what racecheck cannot see.

usage: compare_races.py [--predatar build/predatar] [--native LOGS.tar.xz ...] [--markdown] [--check]
Runs predatar on bench/apps (both builds, small size) and tests/programs. --check (ctest): exits 1 when
racecheck named a shared-memory race line that predatar does not, but for racecheck's known false
positives (KNOWN_FALSE_POSITIVES).
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import ground_truth  # the programs and the logs archive, as recorded

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# Programs where racecheck reports what is not a race: why, and the lines (None: any line).
KNOWN_FALSE_POSITIVES = {
    "apps/stencil": ("writes inside a spin lock (atomicCAS + __threadfence), which racecheck does not model", None),
    # The H100's racecheck: the consumer's read of a tile and the producer's next write of it, which the
    # consumer's bar.arrive on the 'empty' barrier orders before the producer's bar.sync on it (PTX: an
    # arrive synchronizes with a sync on the same barrier).
    "programs/named_barrier": ("bar.arrive releases to bar.sync, which racecheck does not model",
                               {"named_barrier.cu:25", "named_barrier.cu:29"}),
}
HAZARD_LINE = re.compile(r"^=========\s+(?:Read|Write) Thread .* in ([\w.+-]+\.cu):(\d+)", re.M)


def racecheck_lines(path):
    """{target label: set of "file.cu:LINE"} from the racecheck logs in the archive (None: not finished)."""
    return {label: {f"{f}:{l}" for f, l in HAZARD_LINE.findall(text)} if "RACECHECK SUMMARY" in text else None
            for label, text in ground_truth.read_logs(path, "racecheck").items()}


def predatar_lines(predatar, command):
    """(shared-memory lines, other-space lines) of gwcp's races for one run."""
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report.json"
        subprocess.run([predatar, "run", "--detectors", "gwcp", "--format", "json", "--output", str(report), "--",
                        *command], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        races = json.loads(report.read_text()).get("races", []) if report.exists() else None
    if races is None:
        return None, None
    shared, other = set(), set()
    for race in races:
        for access in (race.get("first"), race.get("second")):
            if access and access.get("file"):
                line = f"{Path(access['file']).name}:{access['line']}"
                (shared if race.get("space") == "shared" else other).add(line)
    return shared, other


def fmt(lines):
    return ", ".join(sorted(lines, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))) if lines else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--predatar", default=str(REPO / "build" / "predatar"))
    parser.add_argument("--native", action="append",
                        help="a logs archive of ground_truth.py (repeatable; default: the H200's, then the H100's, "
                             "which has the programs added since)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--check", action="store_true", help="fail when predatar misses a line racecheck named")
    args = parser.parse_args()
    native = {}
    for archive in args.native or [str(HERE / "h200-logs.tar.xz"), str(HERE / "h100-logs.tar.xz")]:
        for label, lines in racecheck_lines(archive).items():
            native.setdefault(label, lines)
    print("| program | racecheck (shared) | predatar gwcp (shared) | agree | predatar, other spaces |")
    print("|---|---|---|---|---|")
    agree = compared = 0
    missed = []
    for label, command in ground_truth.our_programs():
        theirs = native.get(label, None)
        shared, other = predatar_lines(args.predatar, command)
        if shared is None:
            verdict = "predatar gave no report"
        elif theirs is None:
            verdict = "racecheck did not finish" if label in native else "racecheck did not run"
        else:
            compared += 1
            same = theirs == shared
            agree += same
            verdict = "yes" if same else ("predatar more" if theirs < shared else
                                          "racecheck more" if shared < theirs else "differ")
            if not theirs <= shared:
                reason, excused = KNOWN_FALSE_POSITIVES.get(label, (None, set()))
                unexplained = set() if excused is None else (theirs - shared) - excused
                if reason and not unexplained:
                    verdict += f" (racecheck's false positive: {reason})"
                else:
                    missed.append(f"{label}: {fmt(unexplained)}")
        if not args.markdown and not shared and not theirs and not other:
            continue
        print(f"| {label} | {fmt(theirs) if theirs is not None else 'n/a'} | {fmt(shared)} | {verdict} | "
              f"{fmt(other)} |")
    print(f"\n{agree} of {compared} programs with a finished racecheck run: the same shared-memory race lines.")
    if missed:
        print("predatar misses shared-memory race lines racecheck named on a GPU:\n  " + "\n  ".join(missed))
    elif compared:
        print(f"predatar names every shared-memory race line racecheck named, in all {compared} programs.")
    if args.check and (missed or compared == 0):
        sys.exit(1)


if __name__ == "__main__":
    main()
