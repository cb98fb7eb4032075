#!/usr/bin/env python3
"""Runs SlabHash's test programs (built outside the repository by build_slabhash.sh) under
`predatar run`, once with no detector and once per detector, and tables exit status, CPU time,
peak RSS, peak metadata and unique races, then lists each detector's races as pairs of source
lines (file:line of both accesses, and the kind of each).

Usage: run_slabhash.py --bin OUT_DIR --predatar PREDATAR [--cpu-limit 900] [--logs DIR]
                       [--output RESULTS.md] [--detectors gwcp,hb,lockset] [NAME...]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scor"))
from run_scor import add_run_options, app_row, app_table, run_and_say, settle_run_options  # noqa: E402

# The programs with no arguments: 3 keys (test_slab_hash); a set iterated (iterator_test);
# 2^20 keys inserted, searched one by one and in bulk, and counted (concurrent_map);
# 2^20 keys into a set, then searched (concurrent_set).
PROGRAMS = ["test_slab_hash", "iterator_test", "concurrent_set", "concurrent_map"]


def race_lines(runs, detectors):
    """Each detector's races as 'file:line (operation) / file:line (operation)', whether the
    example the report shows is of two lanes of one warp, and the programs showing them."""
    seen = {}
    for name, by_detector in runs.items():
        for d in detectors:
            for r in by_detector[d]["races"]:
                if r["detector"] != d:
                    continue
                ends = sorted(f"{Path(r[s].get('file') or '?').name}:{r[s].get('line') or r[s].get('pc')} "
                              f"({r[s].get('operation', '?')})" for s in ("first", "second"))
                same_warp = all(r["first"].get(k) == r["second"].get(k) for k in ("block", "warp"))
                pair = " / ".join(ends) + (", one warp" if same_warp else ", two warps")
                seen.setdefault((d, pair), set()).add(name)
    return [f"* {d}: {pair} — {', '.join(sorted(names))}" for (d, pair), names in sorted(seen.items())]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", required=True, help="build_slabhash.sh's OUT_DIR")
    add_run_options(p, "/tmp/slabhash-logs")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    unknown = sorted(set(args.names) - set(PROGRAMS))
    if unknown:
        p.error(f"no such test program: {', '.join(unknown)} (known: {', '.join(PROGRAMS)})")
    settle_run_options(args)
    logs = Path(args.logs)
    lines = app_table(args.detectors, "test program")
    runs = {}
    for name in PROGRAMS:
        binary = Path(args.bin) / name
        if args.names and name not in args.names:
            continue
        if not binary.exists():
            print(f"run_slabhash.py: {binary} not built (build_slabhash.sh): skipped", file=sys.stderr)
            continue
        runs[name] = {d: run_and_say(args, name, binary, d, logs / f"{name}-{d}") for d in ["none", *args.detectors]}
        lines.append(app_row(name, runs[name], args.detectors, ""))
    text = ("Races: unordered pairs of source lines (in parentheses: pairs of instructions and kind). "
            "CPU s and peak RSS MB of the process tree; peak metadata MiB (--stats).\n\n" + "\n".join(lines) +
            "\n\nThe races, by detector (source line and operation of both sides):\n\n" +
            "\n".join(race_lines(runs, args.detectors)) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    if not runs:
        sys.exit(f"run_slabhash.py: no test program ran: none built in {args.bin}")


if __name__ == "__main__":
    main()
