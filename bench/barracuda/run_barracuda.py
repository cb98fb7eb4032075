#!/usr/bin/env python3
"""Runs the paper's Barracuda-suite applications (built outside the repository by
build_barracuda.sh) under `predatar run`, with the arguments of each application's own `run`
file, once with no detector and once per detector, and tables exit status, CPU time, peak RSS,
peak metadata and unique races beside the paper's counts (its table of unique data races).

Usage: run_barracuda.py --barracuda BARRACUDA_DIR --bin OUT_DIR --predatar PREDATAR
                        [--cpu-limit 900] [--logs DIR] [--output RESULTS.md] [--detectors ...] [NAME...]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scor"))
from run_scor import DETECTORS, fault, instruction_pairs, line_pairs, run  # noqa: E402

# name -> (folder under benchmarks/, arguments of its `run` file; OUTPUT: a file in --logs)
APPS = {
    "hotspot": ("rodinia/hotspot", ["512", "2", "2", "data/temp_512", "data/power_512", "OUTPUT"]),
    "pathfinder": ("rodinia/pathfinder", ["100000", "100", "20"]),
    "needle": ("rodinia/needle", ["2048", "10"]),
    "streamcluster": ("rodinia/streamcluster", ["10", "20", "256", "65536", "65536", "1000", "none", "OUTPUT", "1"]),
    "shoc_bfs": ("shoc/shocbfs", []),
    "threadFenceReduction": ("cudasamples/threadFenceReduction", ["--threads=256", "--b=167772160"]),
}
# The paper's unique data races, PD / BC+ / SRD (kmeans, 0 / 0 / 0, is not built: texture references).
PAPER = {"hotspot": "0 / 0 / 0", "pathfinder": "5 / 2 / 2", "needle": "0 / 0 / 0", "shoc_bfs": "4 / 4 / 3",
         "threadFenceReduction": "34 / 31 / 6", "streamcluster": "(not in the table)"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--barracuda", required=True, help="checkout of upenn-acg/barracuda")
    p.add_argument("--bin", required=True, help="build_barracuda.sh's OUT_DIR")
    p.add_argument("--predatar", required=True)
    p.add_argument("--cpu-limit", type=int, default=900)
    p.add_argument("--mem-limit-gb", type=float, default=12)
    p.add_argument("--detectors", default=",".join(DETECTORS))
    p.add_argument("--logs", default="/tmp/barracuda-logs")
    p.add_argument("--output")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    args.detectors = [d for d in args.detectors.split(",") if d]
    args.predatar = str(Path(args.predatar).resolve())
    logs = Path(args.logs).resolve()
    logs.mkdir(parents=True, exist_ok=True)
    args.logs = str(logs)
    lines = ["| application | program | none s / MB | " + " | ".join(f"{d} s / MB / MiB / races" for d in args.detectors) +
             " | paper PD / BC+ / SRD | fault or refusal |",
             "|---|---|---|" + "---|" * len(args.detectors) + "---|---|"]
    for name, (folder, program_args) in APPS.items():
        binary = Path(args.bin) / name
        if (args.names and name not in args.names) or not binary.exists():
            continue
        runs = {}
        for d in ["none", *args.detectors]:
            argv = [str(logs / f"{name}-{d}.output") if a == "OUTPUT" else a for a in program_args]
            r = run(args, binary, d, logs / f"{name}-{d}", program_args=argv,
                    cwd=Path(args.barracuda) / "benchmarks" / folder)
            runs[d] = r
            races = f"{len(line_pairs(r['races'], d))} ({len(instruction_pairs(r['races'], d))})" if d != "none" else "-"
            print(f"  {name} {d}: rc {r['rc']} (program {r['program']}), {r['cpu']:.2f} s, {r['rss']} MB, "
                  f"races {races}{' (stopped)' if r['killed'] else ''}", flush=True)
        cells = []
        for d in args.detectors:
            x = runs[d]
            stopped = " (stopped)" if x["killed"] else ""
            cells.append(f"{x['cpu']:.1f}{stopped} / {x['rss']} / {x['metadata'].get(d, 0):.1f} / "
                         f"{len(line_pairs(x['races'], d))} ({len(instruction_pairs(x['races'], d))})")
        none = runs["none"]
        lines.append(f"| {name} | {none['program']} | {none['cpu']:.1f}{' (stopped)' if none['killed'] else ''} / "
                     f"{none['rss']} | " + " | ".join(cells) +
                     f" | {PAPER.get(name, '')} | {fault(none) or fault(runs[args.detectors[0]])} |")
    text = ("Races: unordered pairs of source lines (in parentheses: pairs of instructions and kind). "
            "CPU s and peak RSS MB of the process tree; peak metadata MiB (--stats).\n\n" + "\n".join(lines) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
