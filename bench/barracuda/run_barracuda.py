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
from run_scor import add_run_options, app_row, app_table, run_and_say, settle_run_options  # noqa: E402

# name -> (folder under benchmarks/, arguments of its `run` file; OUTPUT: a file in --logs)
APPS = {
    "hotspot": ("rodinia/hotspot", ["512", "2", "2", "data/temp_512", "data/power_512", "OUTPUT"]),
    "pathfinder": ("rodinia/pathfinder", ["100000", "100", "20"]),
    "needle": ("rodinia/needle", ["2048", "10"]),
    "streamcluster": ("rodinia/streamcluster", ["10", "20", "256", "65536", "65536", "1000", "none", "OUTPUT", "1"]),
    "shoc_bfs": ("shoc/shocbfs", []),
    "threadFenceReduction": ("cudasamples/threadFenceReduction", ["--threads=256", "--b=167772160"]),
    # The rest of the suite (not in the paper's tables). bfs's graph1MW_6.txt and gaussian's
    # matrix1024.txt are Git LFS objects a plain checkout lacks: bfs reads the suite's
    # graph65536.txt, gaussian makes its own matrix (-s), 512 x 512 (at 1024, 2,046 launches of
    # 1M threads: 162 s of emulation and over 300 s per detector).
    "bfs": ("rodinia/bfs", ["data/graph65536.txt"]),
    "dwt2d": ("rodinia/dwt2d", ["192.bmp", "-d", "192x192", "-f", "-5", "-l", "3"]),
    "gaussian": ("rodinia/gaussian", ["-s", "512", "-q"]),
    "nn": ("rodinia/nn", ["filelist_4", "-r", "5", "-lat", "30", "-lng", "90", "-q"]),
    "srad": ("rodinia/srad", ["2048", "2048", "0", "127", "0", "127", "0.5", "2"]),
    "hashtable": ("gpu-tm/hashtable", ["-noprompt", "-numThreads=8", "-numBlocks=8", "-quiet"]),
    "interac": ("gpu-tm/interac", []),
    **{f"cub_{e}": ("cub", ["--quiet"]) for e in (
        "block_reduce", "device_partition_flagged", "device_partition_if", "device_radix_sort", "device_reduce",
        "device_scan", "device_select_flagged", "device_select_if", "device_select_unique",
        "device_sort_find_non_trivial_runs")},
}
# The paper's unique data races, PD / BC+ / SRD (kmeans, 0 / 0 / 0, is not built: texture references).
PAPER = {"hotspot": "0 / 0 / 0", "pathfinder": "5 / 2 / 2", "needle": "0 / 0 / 0", "shoc_bfs": "4 / 4 / 3",
         "threadFenceReduction": "34 / 31 / 6", "streamcluster": "(not in the table)"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--barracuda", required=True, help="checkout of upenn-acg/barracuda")
    p.add_argument("--bin", required=True, help="build_barracuda.sh's OUT_DIR")
    add_run_options(p, "/tmp/barracuda-logs")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    settle_run_options(args)
    logs = Path(args.logs)
    lines = app_table(args.detectors, "application")
    for name, (folder, program_args) in APPS.items():
        binary = Path(args.bin) / name
        if (args.names and name not in args.names) or not binary.exists():
            continue
        runs = {}
        for d in ["none", *args.detectors]:
            argv = [str(logs / f"{name}-{d}.output") if a == "OUTPUT" else a for a in program_args]
            runs[d] = run_and_say(args, name, binary, d, logs / f"{name}-{d}", program_args=argv,
                                  cwd=Path(args.barracuda) / "benchmarks" / folder)
        lines.append(app_row(name, runs, args.detectors, PAPER.get(name, "")))
    text = ("Races: unordered pairs of source lines (in parentheses: pairs of instructions and kind). "
            "CPU s and peak RSS MB of the process tree; peak metadata MiB (--stats).\n\n" + "\n".join(lines) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
