#!/usr/bin/env python3
"""Runs a sample of Indigo3 (burtscher/Indigo3Suite: graph codes in many styles, some with planted
bugs) under `predatar run -d all`, and compares each detector's verdict with the code's label.

Indigo3 names each generated code by its options and bugs. A code is labelled here:
  * `clean`: no bug at all (every bug option is its No... form): no race is expected;
  * `race`: RaceBug alone (atomics replaced by plain accesses) or SyncBug alone (a missing
    __syncthreads): a race is expected;
codes with other bugs (bounds, overflow, livelock, ...) or several are left out: they fault or
hang by design, which says nothing of race detection.

Steps, each skipped when its output exists under --work:
  1. generate the CUDA codes (the suite's scripts/generate_codes.py, with a configuration of our
     own: every bug, pattern and option, the data types of --types) into WORK/codes;
  2. pick up to --per-class codes of each algorithm and label (seeded), and build each with
     `nvcc -O3 -arch=sm_75 -cudart shared -lineinfo`. CUDA 13 dropped cudaDeviceProp's clockRate
     and memoryClockRate, which the suite's headers print; the build uses a copy of its lib/
     with those two reads replaced by 0 (a printed figure only);
  3. run each on --input (BFS and SSSP from vertex 0), one run, under a CPU limit.

Usage: run_indigo3.py --suite INDIGO3 --work DIR --predatar PREDATAR [--per-class 4] [--seed 1]
                      [--input inputs/undirect_rand_neighbors_500n_1000e.egr] [--cpu-limit 120]
                      [-j 2] [--tsv OUT.tsv] [--output OUT.md]
       run_indigo3.py --reuse RUN.tsv [--output OUT.md]   (the tables of a recorded run)
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scor"))
from run_scor import run  # noqa: E402  (the same run, limits and report reading as ScoR's)

DETECTORS = ["gwcp", "hb", "lockset"]
RACE_BUGS = {"RaceBug", "SyncBug"}
# (The suite's reader starts after a line holding "**/", and prefers ./codeGen/configure.txt:
# generation runs in WORK/codes, where there is none.)
CONFIGURATION = """/* our configuration: every bug, pattern and option; the data types asked for **/
CODE:
    bug:        {all}
    pattern:    {all}
    option:     {all}
    dataType:   {%s}
"""


def bugs_of(name):
    return {t for t in name.split("_") if t.endswith("Bug") and not t.startswith("No")}


def label_of(name):
    bugs = bugs_of(name)
    if not bugs:
        return "clean"
    if len(bugs) == 1 and bugs <= RACE_BUGS:
        return "race"
    return None


def generate(suite, codes, types):
    if codes.exists() and any(codes.rglob("*.cu")):
        return
    codes.mkdir(parents=True, exist_ok=True)
    configuration = codes / "configure.txt"
    configuration.write_text(CONFIGURATION % types)
    templates = sorted((suite / "codeGen" / "cuda").glob("*/*.idg"))
    print(f"generating from {len(templates)} templates", flush=True)
    for template in templates:
        subprocess.run(["python3", str(suite / "scripts" / "generate_codes.py"), str(template), str(codes), "cuda",
                        str(configuration), str(suite / "copyright.txt")], cwd=codes, check=True, stdout=subprocess.DEVNULL)


def pick(codes, per_class, seed):
    groups = {}
    for source in sorted(codes.rglob("*.cu")):
        label = label_of(source.stem)
        if label:
            groups.setdefault((source.stem.split("_")[0], label), []).append(source)
    rng = random.Random(seed)
    picked = []
    for key in sorted(groups):
        picked += rng.sample(groups[key], min(per_class, len(groups[key])))
    return picked


def patched_lib(suite, work):
    lib = work / "lib"
    if not lib.exists():
        lib.mkdir(parents=True)
        for header in (suite / "lib").iterdir():
            text = header.read_text()
            if header.name.endswith("_cuda.h"):
                text = re.sub(r"deviceProp\.(memoryClockRate|clockRate)", "0", text)
            (lib / header.name).write_text(text)
    return lib


def build(source, lib, bins):
    binary = bins / source.stem
    if binary.exists():
        return binary, ""
    result = subprocess.run(["nvcc", "-O3", "-arch=sm_75", "-cudart", "shared", "-lineinfo", f"-I{lib}", "-o",
                             str(binary), str(source)], capture_output=True, text=True)
    return (binary if result.returncode == 0 else None), result.stderr.strip().splitlines()[-1:] or [""]


def verdicts(row):
    """Per detector: 'race' when it reported one, else 'none'."""
    found = Counter(r.get("detector") for r in row["races"])
    return {d: ("race" if found[d] else "none") for d in DETECTORS}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite")
    parser.add_argument("--work")
    parser.add_argument("--predatar")
    parser.add_argument("--reuse", help="a --tsv of an earlier run: table it, run nothing")
    parser.add_argument("--per-class", type=int, default=4)
    parser.add_argument("--types", default="IntType",
                        help="Indigo3's data types to generate, comma-separated (IntType, FloatType, ...)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input", default="inputs/undirect_rand_neighbors_500n_1000e.egr")
    parser.add_argument("--cpu-limit", type=int, default=120)
    parser.add_argument("--mem-limit-gb", type=float, default=8)
    parser.add_argument("-j", type=int, default=2)
    parser.add_argument("--tsv")
    parser.add_argument("--output")
    args = parser.parse_args()
    if args.reuse:
        args.tsv = None
        return write(args, read_tsv(args.reuse))
    if not (args.suite and args.work and args.predatar):
        parser.error("--suite, --work and --predatar are needed to run (or --reuse RUN.tsv)")
    suite, work = Path(args.suite).resolve(), Path(args.work).resolve()
    args.predatar = str(Path(args.predatar).resolve())
    args.logs = str(work / "logs")
    (work / "logs").mkdir(parents=True, exist_ok=True)
    bins = work / "bin"
    bins.mkdir(parents=True, exist_ok=True)
    generate(suite, work / "codes", args.types)
    sources = pick(work / "codes", args.per_class, args.seed)
    lib = patched_lib(suite, work)
    print(f"building {len(sources)} codes", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        built = list(pool.map(lambda s: build(s, lib, bins), sources))
    graph = str((suite / args.input).resolve())

    def run_code(item):
        source, (binary, error) = item
        row = {"name": source.stem, "algorithm": source.stem.split("_")[0], "label": label_of(source.stem),
               "bugs": ",".join(sorted(bugs_of(source.stem))) or "-"}
        if not binary:
            return {**row, "status": "BUILD", "reason": error[0] if error else ""}
        program_args = [graph, "1"] + (["0"] if row["algorithm"] in ("BFS", "SSSP") else [])
        r = run(args, binary, "all", str(work / "logs" / source.stem), program_args=program_args)
        status = "LIMIT" if r["killed"] else ("OK" if r["rc"] in (0, 1) else f"rc {r['rc']}")
        reason = "; ".join(str(e) for e in r["errors"])[:160]
        counts = Counter(x.get("detector") for x in r["races"])
        print(f"  {row['algorithm']} {row['label']}: {status} {r['cpu']:.1f} s, races "
              f"{dict(counts)} {source.stem}", flush=True)
        return {**row, "status": status, "cpu": r["cpu"], "reason": reason,
                **{d: counts[d] for d in DETECTORS}, **{f"{d}_verdict": v for d, v in verdicts(r).items()}}

    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        rows = list(pool.map(run_code, zip(sources, built)))
    write(args, rows)


def read_tsv(path):
    """The rows a --tsv holds, with each detector's verdict."""
    lines = Path(path).read_text().splitlines()
    columns = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        row = dict(zip(columns, line.split("\t")))
        for d in DETECTORS:
            row[d] = int(row[d]) if row.get(d) else 0
            row[f"{d}_verdict"] = "race" if row[d] else "none"
        rows.append(row)
    return rows


def write(args, rows):
    columns = ["name", "algorithm", "label", "bugs", "status", "cpu", *DETECTORS, "reason"]
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("\t".join(columns) + "\n")
            for row in rows:
                f.write("\t".join(str(row.get(c, "")) for c in columns) + "\n")
    ran = [r for r in rows if r["status"] == "OK"]
    lines = [f"{len(rows)} codes: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["status"] for r in rows).items())),
             "", "| detector | races expected, found | races expected, missed | clean, quiet | clean, reported |",
             "|---|---:|---:|---:|---:|"]
    for d in DETECTORS:
        cells = Counter((r["label"], r[f"{d}_verdict"]) for r in ran)
        lines.append(f"| {d} | {cells['race', 'race']} | {cells['race', 'none']} | {cells['clean', 'none']} | "
                     f"{cells['clean', 'race']} |")
    lines += ["", "Disagreements (label, then races by detector):", ""]
    for r in ran:
        if any((r[f"{d}_verdict"] == "race") != (r["label"] == "race") for d in DETECTORS):
            lines.append(f"* {r['name']} ({r['label']}): " + ", ".join(f"{d} {r[d]}" for d in DETECTORS))
    lines += ["", "Not run to the end:", ""] + [f"* {r['name']}: {r['status']} {r.get('reason', '')}"
                                                 for r in rows if r["status"] != "OK"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
