#!/usr/bin/env python3
"""Runs the ScoR suite (csl-iisc/ScoR, built outside the repository by build_scor.sh) under
`predatar run` and tables what each detector reports, beside ScoR's labels and the paper's counts.

Microbenchmarks (`micro/NAME`, named race_* or norace_* by ScoR): one run with every detector
(`-d all`); a detector's verdict is "race" when it reports one. Where it disagrees with ScoR's
label, the notes of its reports say why when they can (message passing with a fence on one side
only is a race under race-semantics.md, where ScoR calls it race-free).

Applications (`apps/NAME` race-free, `apps/NAME-racy` with ScoR's -D RACEY): each reads its input
on standard input, from INPUTS/INPUT (iGUARD's copies of ScoR's inputs: benchmarks/Figure_11/
iGUARD/ScoR/input/ of csl-iisc/iGUARD). 1dconv's is not in that repository: when INPUTS/1dconv is
missing, one is written there (filter 9, array 200,000, values from a seeded generator). Each
build runs once with no detector (`-d none`: emulation alone) and once per detector, under a
CPU-time limit: exit status, CPU time (the process tree's), peak RSS, peak metadata (--stats) and
unique races as the paper counts them (unordered pairs of source lines).

Usage: run_scor.py --bin OUT_DIR --inputs INPUTS --predatar PREDATAR [--cpu-limit 900]
                   [--logs DIR] [--output RESULTS.md] [--tsv RESULTS.tsv] [--micro-only | --apps-only]
                   [--detectors gwcp,hb,lockset] [NAME...]
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from run_samples import limit_child  # noqa: E402  (the same limits as the samples' runs)

APPS = {  # application -> its input file (iGUARD's names)
    "1dconv": "1dconv", "graph-coloring": "graph-color", "graph-connectivity": "graph-con",
    "matrix-multiplication": "matrix-mult", "reduction": "reduction", "rule-110": "rule-110", "uts": "uts",
}
# The paper's Table "unique data races" (PD / BC+ / SRD) for the ScoR applications it ran (racy builds).
PAPER = {"1dconv": "5 / 5 / 5", "reduction": "19 / 19 / 2", "rule-110": "30 / 30 / 24"}
DETECTORS = ["gwcp", "hb", "lockset"]
STATS = re.compile(r"predatar stats: total \[(\w+)\]: \d+ events; peak metadata ([\d.]+) MiB")
SUMMARY = re.compile(r"program exited with (\d+)")


def add_run_options(parser, logs):
    """The options of `run` (and of the tables): predatar, limits, detectors, logs, output."""
    parser.add_argument("--predatar", required=True)
    parser.add_argument("--cpu-limit", type=int, default=900)
    parser.add_argument("--mem-limit-gb", type=float, default=12)
    parser.add_argument("--detectors", default=",".join(DETECTORS))
    parser.add_argument("--logs", default=logs)
    parser.add_argument("--output")


def settle_run_options(args):
    args.detectors = [d for d in args.detectors.split(",") if d]
    args.predatar = str(Path(args.predatar).resolve())
    logs = Path(args.logs).resolve()
    logs.mkdir(parents=True, exist_ok=True)
    args.logs = str(logs)


def write_1dconv_input(path):
    rng = random.Random(1)
    filter_size, array_size = 9, 200000
    with open(path, "w") as f:
        f.write(f"{filter_size} {array_size}\n")
        f.write(" ".join(str(rng.randint(0, 99)) for _ in range(filter_size)) + "\n")
        f.write(" ".join(str(rng.randint(0, 99)) for _ in range(array_size)) + "\n")


def run(args, binary, detectors, log_stem, stdin_path=None, program_args=(), cwd=None):
    """One `predatar run`: exit status, CPU s, peak RSS MB, metadata by detector, the JSON report."""
    report = Path(f"{log_stem}.json").resolve()
    cmd = [args.predatar, "run", "-d", detectors, "--stats", "--progress", "0", "-f", "json", "-o", str(report),
           "--", str(binary), *program_args]
    start = time.monotonic()
    wall_out = False
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    with open(f"{log_stem}.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=cwd or args.logs, stdout=subprocess.DEVNULL, stderr=log, stdin=stdin,
                                preexec_fn=limit_child(args.cpu_limit, int(args.mem_limit_gb * 2**30), 0))
        while True:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if not wall_out and time.monotonic() - start > 3 * args.cpu_limit:
                wall_out = True
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.1)
    if stdin_path:
        stdin.close()
    text = Path(f"{log_stem}.log").read_text(errors="replace")
    exited = SUMMARY.findall(text)
    row = {"rc": os.waitstatus_to_exitcode(wait_status), "cpu": usage.ru_utime + usage.ru_stime,
           "rss": usage.ru_maxrss // 1024, "program": exited[-1] if exited else "-",
           "metadata": {d: float(m) for d, m in STATS.findall(text)}, "races": [], "errors": [],
           "killed": wall_out or usage.ru_utime + usage.ru_stime >= 0.99 * args.cpu_limit}
    row["races"], row["errors"] = read_report(report)
    return row


def read_report(path):
    """(races, errors) of a JSON report; none when there is no report, an error when it is unreadable."""
    if not path.exists():
        return [], []
    try:
        data = json.loads(path.read_text())
        return data.get("races", []), data.get("errors", [])
    except json.JSONDecodeError:
        return [], ["unreadable report"]


def races_found(run_row, detector):
    """'line pairs (instruction pairs)' of a detector's run, '-' for emulation alone."""
    if detector == "none":
        return "-"
    return f"{len(line_pairs(run_row['races'], detector))} ({len(instruction_pairs(run_row['races'], detector))})"


def run_and_say(args, name, binary, detectors, log_stem, **options):
    """`run`, and a progress line on standard output."""
    r = run(args, binary, detectors, log_stem, **options)
    print(f"  {name} {detectors}: rc {r['rc']} (program {r['program']}), {r['cpu']:.2f} s, {r['rss']} MB, "
          f"races {races_found(r, detectors)}{' (stopped)' if r['killed'] else ''}", flush=True)
    return r


def app_table(detectors, first_column):
    """The header of an applications table; app_row gives its rows."""
    return [f"| {first_column} | program | none s / MB | " +
            " | ".join(f"{d} s / MB / MiB / races" for d in detectors) + " | paper PD / BC+ / SRD | fault or refusal |",
            "|---|---|---|" + "---|" * len(detectors) + "---|---|"]


def app_row(name, runs, detectors, paper):
    """A row of app_table: `runs` by detector, "none" (emulation alone) among them."""
    def cell(x, d):
        stopped = " (stopped)" if x["killed"] else ""
        if d == "none":
            return f"{x['cpu']:.1f}{stopped} / {x['rss']}"
        return f"{x['cpu']:.1f}{stopped} / {x['rss']} / {x['metadata'].get(d, 0):.1f} / {races_found(x, d)}"
    none = runs["none"]
    return (f"| {name} | {none['program']} | " + " | ".join(cell(runs[d], d) for d in ["none", *detectors]) +
            f" | {paper} | {fault(none) or fault(runs[detectors[0]])} |")


def line_pairs(races, detector):
    """Unordered pairs of source lines of the races `detector` reported (the paper's unique races)."""
    pairs = set()
    for r in races:
        if r["detector"] != detector:
            continue
        ends = [(r[side].get("file") or "?", r[side].get("line") or r[side].get("pc")) for side in ("first", "second")]
        pairs.add(tuple(sorted(ends, key=str)))
    return pairs


def instruction_pairs(races, detector):
    """(first pc, second pc, kind) of a detector's races: the count of predatar's race summary."""
    return {(r["first"]["pc"], r["second"]["pc"], r["kind"]) for r in races if r["detector"] == detector}


def why(races, detector):
    """What the notes of a detector's reports say, in short."""
    notes = {n for r in races if r["detector"] == detector for n in r.get("notes", [])}
    short = sorted({("no fence after the flag read" if "no fence after" in n else
                     "no fence before the flag write" if "no fence before" in n else
                     "both volatile" if "volatile" in n else n[:40]) for n in notes})
    return ", ".join(short)


def micro(args, names):
    rows = []
    for binary in sorted((Path(args.bin) / "micro").iterdir()):
        name = binary.name
        if binary.suffix == ".buildlog" or not os.access(binary, os.X_OK) or (names and name not in names):
            continue
        row = run(args, binary, "all", Path(args.logs) / f"micro-{name}")
        label = "race" if name.startswith("race_") else "norace"
        verdicts = {d: "race" if line_pairs(row["races"], d) else "norace" for d in DETECTORS}
        rows.append({"name": name, "label": label, "verdicts": verdicts, "rc": row["rc"], "cpu": row["cpu"],
                     "notes": {d: why(row["races"], d) for d in DETECTORS if verdicts[d] != label},
                     "errors": row["errors"]})
        print(f"  {name}: ScoR {label}; " + ", ".join(f"{d} {v}" for d, v in verdicts.items()), flush=True)
    return rows


def apps(args, names):
    inputs = Path(args.inputs)
    if not (inputs / "1dconv").exists() or (inputs / "1dconv").stat().st_size == 0:
        write_1dconv_input(inputs / "1dconv")
    rows = []
    for app, input_name in APPS.items():
        for build in (app, f"{app}-racy"):
            if names and build not in names and app not in names:
                continue
            binary = Path(args.bin) / "apps" / build
            if not os.access(binary, os.X_OK):
                continue
            row = {"name": build, "runs": {}}
            for detectors in ["none", *args.detectors]:
                row["runs"][detectors] = run_and_say(args, build, binary, detectors,
                                                     Path(args.logs) / f"app-{build}-{detectors}", stdin_path=inputs / input_name)
            rows.append(row)
    return rows


def fault(run_row):
    """The first error of a run's report, shortened (a fault, a barrier error, a refusal)."""
    for e in run_row["errors"]:
        text = e if isinstance(e, str) else e.get("message", json.dumps(e))
        text = re.sub(r"^kernel '[^']*': ", "", text)
        return re.sub(r"\s+", " ", text)[:120].replace("|", "/")
    return ""


def markdown(args, micro_rows, app_rows):
    out = []
    if micro_rows:
        agree = {d: sum(r["verdicts"][d] == r["label"] for r in micro_rows) for d in DETECTORS}
        out += [f"Microbenchmarks: {len(micro_rows)}; agreeing with ScoR's label: " +
                ", ".join(f"{d} {agree[d]}" for d in DETECTORS), "",
                "| microbenchmark | ScoR | gwcp | hb | lockset | where a detector differs, its reports' notes |",
                "|---|---|---|---|---|---|"]
        for r in micro_rows:
            cells = [v if v == r["label"] else f"**{v}**" for v in (r["verdicts"][d] for d in DETECTORS)]
            notes = "; ".join(f"{d}: {n or '(no note)'}" for d, n in r["notes"].items())
            out.append(f"| {r['name']} | {r['label']} | " + " | ".join(cells) + f" | {notes} |")
        out.append("")
    if app_rows:
        out += ["Applications: program exit status; CPU s and peak RSS MB (process tree); peak metadata MiB "
                "(--stats); races = unordered pairs of source lines (in parentheses: pairs of instructions and kind, "
                "predatar's unique races). `none` = emulation alone.", ""] + app_table(args.detectors, "build")
        for r in app_rows:
            paper = PAPER.get(r["name"].removesuffix("-racy"), "") if r["name"].endswith("-racy") else ""
            out.append(app_row(r["name"], r["runs"], args.detectors, paper))
    return "\n".join(out) + "\n"


def tsv(micro_rows, app_rows, detectors):
    lines = ["kind\tname\tlabel_or_program\t" + "\t".join(f"{d}" for d in DETECTORS)]
    for r in micro_rows:
        lines.append("micro\t{}\t{}\t{}".format(r["name"], r["label"], "\t".join(r["verdicts"][d] for d in DETECTORS)))
    for r in app_rows:
        cells = []
        for d in DETECTORS:
            x = r["runs"].get(d)
            cells.append(f"{x['cpu']:.2f}s/{x['rss']}MB/{x['metadata'].get(d, 0):.1f}MiB/{len(line_pairs(x['races'], d))}"
                         if x else "-")
        lines.append("app\t{}\t{}\t{}".format(r["name"], r["runs"]["none"]["program"], "\t".join(cells)))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="build_scor.sh's OUT_DIR")
    p.add_argument("--inputs", help="folder of the applications' inputs (iGUARD's ScoR/input)")
    add_run_options(p, "/tmp/scor-logs")
    p.add_argument("--tsv")
    p.add_argument("--micro-only", action="store_true")
    p.add_argument("--apps-only", action="store_true")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    settle_run_options(args)
    if not args.micro_only and not args.inputs:
        p.error("--inputs is needed for the applications (or --micro-only)")
    micro_rows = [] if args.apps_only else micro(args, set(args.names))
    app_rows = [] if args.micro_only else apps(args, set(args.names))
    text = markdown(args, micro_rows, app_rows)
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    if args.tsv:
        Path(args.tsv).write_text(tsv(micro_rows, app_rows, args.detectors))


if __name__ == "__main__":
    main()
