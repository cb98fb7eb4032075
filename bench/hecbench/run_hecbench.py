#!/usr/bin/env python3
"""Runs HeCBench's CUDA programs (zjin-lcf/HeCBench, fetched outside the repository) under
`predatar run` and tables how each ended: the program's own verdict (most compare with a CPU
reference and print PASS or FAIL), predatar's refusals and faults, and the CPU time.

HeCBench is several hundred small applications by many authors, each in `src/NAME-cuda` with a
Makefile whose `run` target starts the program through `$(LAUNCHER)`. That is a corpus of CUDA
as people write it that we did not write: what it shows is which runtime calls and instructions
predatar lacks, where it faults on valid code and where it computes wrong answers.

For each program named (or a seeded sample of them, `--sample N`):

1. `make ARCH=sm_75 EXTRA_CFLAGS="-cudart shared -lineinfo"` in its folder (kept when built; `--arch`
   picks another architecture);
2. `make run LAUNCHER="predatar run -d DETECTORS ... --"` with a CPU limit: the program's own
   arguments, sized for a GPU, so many stop at the limit; what they did before is still read;
3. a verdict: PASS or FAIL (the program printed it), DONE (exit 0, no verdict printed), REFUSED
   (predatar stopped or changed the run: a call or instruction it does not support, a kernel
   fault, a deadlock, its own error), LIMIT (the
   CPU limit), INPUT (no kernel ran: an input file HeCBench keeps apart, with DVC, is missing),
   EXIT (a non-zero exit without a predatar error: the program's own check),
   CRASH (predatar died by a signal), BUILD (nvcc failed), NORUN (the Makefile's run recipe has no
   `./program` line to put predatar on: mpiexec, none), UNCHECKED (the log shows the program ran
   without predatar: a recipe the runner misread).

A recipe whose program line lacks `$(LAUNCHER)` (it is on another command, or nowhere; or `cd DIR &&
./main ...`) has that program run under predatar directly, in that folder, with those arguments.

Usage: run_hecbench.py --hecbench HECBENCH/src --predatar PREDATAR [--sample N] [--seed S]
                       [--cpu-limit 60] [--detectors gwcp] [--jobs 2] [--output RESULTS.md] [NAME...]
"""
import argparse
import concurrent.futures
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "samples"))
from run_samples import limit_child  # noqa: E402  (the same limits as the samples' runs)

def build_flags(folder, arch):
    """make's variables: sm_75 or --arch's (ARCH is the whole name in most Makefiles, its number in
    some), the shared runtime predatar replaces, line numbers for the reports."""
    makefile = (folder / "Makefile").read_text(errors="replace")
    arch = arch if re.search(r"(sm|compute)_\$\(ARCH\)", makefile) else f"sm_{arch}"
    flags = [f"ARCH={arch}", "EXTRA_CFLAGS=-cudart shared -lineinfo"]
    # Where a Makefile never uses $(EXTRA_CFLAGS) (pso, rodrigues, wsm5), the compiler variable
    # carries them, else nvcc links the static runtime; also where the Makefile only runs `$(MAKE) -C
    # DIR` and DIR's Makefile sets it (miniFE: `CXX=nvcc` in src/). Not otherwise: leukocyte hands
    # $(CC) to a sub-make unquoted (it links without $(CFLAGS), so it stays refused by name).
    compiler = re.search(r"^(CC|NVCC)\s*[:?]?=\s*nvcc\s*$", makefile, re.M)
    for sub in re.findall(r"^\t\$\(MAKE\)\s+-C\s+([\w./-]+)\s*$", makefile, re.M):
        if not compiler and (folder / sub / "Makefile").exists():
            makefile = (folder / sub / "Makefile").read_text(errors="replace")
            compiler = re.search(r"^(CC|NVCC|CXX)\s*[:?]?=\s*nvcc\s*$", makefile, re.M)
    if compiler and "$(EXTRA_CFLAGS)" not in makefile:
        flags.append(f"{compiler.group(1)}=nvcc -cudart shared -lineinfo")
    return flags


# predatar's own errors, refused calls and kernel faults (what stopped or changed the run)
PREDATAR_ERROR = re.compile(r"^predatar: error: (.*)$|^========= REFUSED: (.*)$|^========= (KERNEL FAULT .*)$", re.M)
EXITED = re.compile(r"program exited with (-?\d+)")
RACES = re.compile(r"(\d+) unique races?\b")
UNINITIALIZED = re.compile(r"(\d+ uninitialized reads?) \(--initcheck\)")
LEAKS = re.compile(r"(\d+ leaks?) \(--leak-check full\)")
LAUNCHES = re.compile(r"predatar: (\d+) kernel launch")
MISSING_INPUT = re.compile(r"does not exist|[Ff]ail(ed)? to (load|open|recognize)|[Cc]annot (be )?open|[Cc]ould not (open|stat)|"
                           r"[Uu]nable to (open|read)|No such file|[Ee]rror (opening|reading)|not found|Bad file|"
                           r"Assertion `(file|fp?|in|input)( != NULL)?' failed|was not opened|[Ii]nvalid (in|input )?file|"
                           r"[Ff]ailed to import")


def programs(root, names, sample, seed):
    """The program folders to run: those named, or a seeded sample of all with a Makefile."""
    every = sorted(p.name[:-len("-cuda")] for p in root.glob("*-cuda") if (p / "Makefile").exists())
    if names:
        missing = [n for n in names if n not in every]
        no_makefile = [n for n in missing if (root / f"{n}-cuda").is_dir()]
        if no_makefile:
            sys.exit(f"run_hecbench.py: {', '.join(n + '-cuda' for n in no_makefile)} in {root} has no Makefile "
                     "(built with CMake: not run by this script)")
        if missing:
            sys.exit(f"run_hecbench.py: no {', '.join(missing)} in {root} (a NAME is a folder's name without -cuda)")
        return names
    return sorted(random.Random(seed).sample(every, min(sample, len(every)))) if sample else every


def build(folder, log, arch):
    """Whether `make` built the program (its output goes to `log`)."""
    with open(log, "wb") as out:
        done = subprocess.run(["make", "-s", *build_flags(folder, arch)], cwd=folder, stdout=out,
                              stderr=subprocess.STDOUT, timeout=1800)
    return done.returncode == 0


def program_name(folder):
    """The Makefile's `program = NAME` (main when it says none)."""
    m = re.search(r"^program\s*=\s*(\S+)", (folder / "Makefile").read_text(errors="replace"), re.M)
    return m.group(1) if m else "main"


def unlaunched_run(folder):
    """(subfolder, program, arguments) of the Makefile's run line when `make run` would run the program
    without predatar: its $(LAUNCHER) prefixes another command (che: `$(LAUNCHER) rm -rf out`), or the
    recipe has none (lsqt: `./main examples/input.txt`; miniFE: `cd src && ./main -nx 128 ...`).
    None when the launcher is on the program's line; ("", None, reason) when no line is a plain
    `./program` the runner can prefix (mpiexec, an empty recipe)."""
    text = (folder / "Makefile").read_text(errors="replace")
    recipe = re.search(r"^run\s*:[^\n]*\n((?:[ \t][^\n]*\n?)*)", text, re.M)  # (mpc: comments indented by spaces)
    if not recipe:
        return "", None, "the Makefile has no run recipe"
    lines = recipe.group(1).splitlines()
    if any("$(LAUNCHER)" in line and re.search(r"\./", line) for line in lines):
        return None
    for line in lines:
        m = re.match(r"\s*(?:cd\s+([\w./-]+)\s*&&\s*)?\./(\$\(program\)|[\w.-]+)([^;&|<>`]*)$", line)
        if m:
            program = program_name(folder) if m.group(2) == "$(program)" else m.group(2)
            return m.group(1) or "", program, m.group(3).strip()
    if any("$(LAUNCHER)" in line for line in lines):
        return None  # (braycurtis: `$(LAUNCHER) $(PYTHON_CMD) main.py`)
    return "", None, "no line of the run recipe is a ./program the runner can run under predatar: " + \
        "; ".join(line.strip() for line in lines)[:100]


def run(args, folder, log, command=None):
    """`make run` under predatar, or with `command` (subfolder, program, arguments) that program under
    predatar: (wait status, CPU s, whether a limit stopped it)."""
    launcher = (f"{args.predatar} run -d {args.detectors} --threads 1 --progress 0 --error-exitcode 0 "
                f"--print-limit 3 {args.predatar_flags} --")
    if command is None:
        cmd = ["make", "-s", "run", *build_flags(folder, args.arch), f"LAUNCHER={launcher}"]
    else:
        subfolder, program, arguments = command
        folder = folder / subfolder
        cmd = [*launcher.split(), f"./{program}", *arguments.split()]
    start = time.monotonic()
    killed = False
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=folder, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=limit_child(args.cpu_limit, int(args.mem_limit_gb * 2**30), 0))
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if not killed and time.monotonic() - start > 3 * args.cpu_limit:  # (a program asleep or waiting)
                killed = True
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.2)
    # (the children's time: make waits for predatar)
    cpu = usage.ru_utime + usage.ru_stime
    return status, cpu, killed


def verdict(text, status, cpu, killed, cpu_limit):
    """(verdict, reason) of one run's output."""
    errors = [a or b or c for a, b, c in PREDATAR_ERROR.findall(text)]
    exited = EXITED.findall(text)
    launched = LAUNCHES.findall(text)
    if killed or cpu >= 0.98 * cpu_limit or "CPU time limit" in text or re.search(r"Killed|signal 24", text):
        return "LIMIT", errors[0] if errors else ""
    if exited and launched and launched[-1] == "0" and MISSING_INPUT.search(text):
        # (no kernel ran: HeCBench keeps its data apart; some programs exit 0 even so)
        return "INPUT", next(line for line in text.splitlines() if MISSING_INPUT.search(line))[:160]
    if re.search(r"\bFAIL(ED|URE)?\b|\b[Tt]est [Ff]ailed\b", text) and not errors:
        return "FAIL", next(line for line in text.splitlines() if re.search(r"\bFAIL|[Tt]est [Ff]ailed", line))[:160]
    crashed = [e for e in errors if e.startswith("the program's host code crashed")]
    if crashed:  # (predatar's note of where the program's own code died)
        return "CRASH", crashed[0][:200]
    if errors:
        return "REFUSED", errors[0][:200]
    if re.search(r"terminated by signal|Segmentation fault|Aborted|core dumped", text):
        return "CRASH", next((line for line in text.splitlines() if "signal" in line or "fault" in line), "")[:160]
    if exited and exited[-1] != "0":
        return "EXIT", f"program exited with {exited[-1]}"
    if re.search(r"\bPASS(ED)?\b|\b[Tt]est [Pp]assed\b|solution matches analytic solution|"  # (miniFE)
                 r"Calculations successfully finished", text):  # (gels)
        return "PASS", ""
    if os.waitstatus_to_exitcode(status) != 0:
        return "EXIT", f"make run exited with {os.waitstatus_to_exitcode(status)}"
    return "DONE", ""


def missing_path_argument(folder, command):
    """A path among the run's arguments (one with a '/') that is not there: data HeCBench keeps apart
    (easyWave reads ../easyWave-omp/data/...), or keeps in DVC, a `.dvc` file standing in the folder
    for an archive not fetched (b+tree, bfs, tonemapping), whose absence some programs report only by
    their exit. Says which, or None."""
    if command and command[1]:
        where, arguments = folder / command[0], command[2]
    else:
        text = (folder / "Makefile").read_text(errors="replace")
        line = re.search(r"^[ \t]+\$\(LAUNCHER\)\s+\./\S+([^\n;&|<>`]*)$", text, re.M)
        if not line:
            return None
        where, arguments = folder, line.group(1)
    for a in arguments.split():
        if "/" not in a or a.startswith("-"):
            continue
        path = where / a
        if not path.parent.exists():  # (an output file has its folder)
            return f"argument {a} does not exist"
        if not path.exists() and any(path.parent.glob("*.dvc")):
            return f"argument {a} does not exist (HeCBench keeps it in DVC)"
    return None


def one(args, name):
    folder = Path(args.hecbench) / f"{name}-cuda"
    logs = Path(args.logs)
    row = {"name": name, "verdict": "BUILD", "reason": "", "cpu": 0.0, "races": "-", "launches": "-"}
    try:
        built = build(folder, logs / f"{name}.build", args.arch)
    except subprocess.TimeoutExpired:
        built = False
    if not built:
        text = (logs / f"{name}.build").read_text(errors="replace")
        row["reason"] = next((line for line in text.splitlines() if "error" in line), text[-160:])[:160]
        return row
    command = unlaunched_run(folder)
    if name in args.arguments:
        where = command[:2] if command and command[1] else ("", program_name(folder))
        command = (*where, args.arguments[name])
    elif command and command[1] is None:
        row["verdict"], row["reason"] = "NORUN", command[2]
        return row
    status, cpu, killed = run(args, folder, logs / f"{name}.log", command)
    text = (logs / f"{name}.log").read_text(errors="replace")
    row["verdict"], row["reason"] = verdict(text, status, cpu, killed, args.cpu_limit)
    missing = missing_path_argument(folder, command)
    if missing and row["verdict"] in ("EXIT", "DONE") and LAUNCHES.findall(text)[-1:] == ["0"]:
        row["verdict"], row["reason"] = "INPUT", missing
    if "=========" not in text and "predatar" not in text:  # (a run the runner failed to put predatar on)
        row["verdict"], row["reason"] = "UNCHECKED", "the program ran without predatar"
    for found, flag in ((UNINITIALIZED.findall(text), "--initcheck"), (LEAKS.findall(text), "--leak-check full")):
        if found:  # (--predatar-flags)
            row["reason"] = (row["reason"] + "; " if row["reason"] else "") + f"{found[-1]} ({flag})"
    row["cpu"] = cpu
    races = RACES.findall(text)
    row["races"] = races[-1] if races else "-"
    launches = LAUNCHES.findall(text)
    row["launches"] = launches[-1] if launches else "-"
    return row


def markdown(rows, args):
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    out = [f"{len(rows)} HeCBench programs, `-d {args.detectors}`, CPU limit {args.cpu_limit} s: " +
           ", ".join(f"{v} {n}" for v, n in sorted(counts.items(), key=lambda x: -x[1])), "",
           "| program | verdict | CPU s | launches | races | reason |", "|---|---|---:|---:|---:|---|"]
    for r in rows:
        reason = r["reason"].replace("|", "\\|").replace("\n", " ").strip()
        out.append(f"| {r['name']} | {r['verdict']} | {r['cpu']:.1f} | {r['launches']} | {r['races']} | {reason} |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hecbench", required=True, help="HeCBench's src folder")
    parser.add_argument("--predatar", required=True)
    parser.add_argument("--sample", type=int, default=0, help="run this many programs, chosen with --seed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu-limit", type=int, default=60)
    parser.add_argument("--mem-limit-gb", type=float, default=8)
    parser.add_argument("--detectors", default="gwcp")
    parser.add_argument("--arch", default="75", help="the GPU architecture number to build for (75: sm_75); "
                        "binaries are kept where they were built, so use a separate copy of HeCBench per arch")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--logs", default="/tmp/hecbench-runs")
    parser.add_argument("--output")
    parser.add_argument("--predatar-flags", default="",
                        help="more options for `predatar run` (e.g. --initcheck)")
    parser.add_argument("--args", help="a file of NAME<TAB>ARGUMENTS lines: run those programs with these "
                                       "arguments (smaller than their Makefiles' GPU sizes) instead of `make run`")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    args.arguments = {}
    if args.args:
        for line in Path(args.args).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, arguments = line.partition("\t")
                args.arguments[name.strip()] = arguments.strip()
    args.predatar = str(Path(args.predatar).resolve())
    Path(args.logs).mkdir(parents=True, exist_ok=True)
    names = programs(Path(args.hecbench), args.names, args.sample, args.seed)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, row in enumerate(pool.map(lambda n: one(args, n), names)):
            rows.append(row)
            print(f"[{i + 1}/{len(names)}] {row['name']}: {row['verdict']} {row['cpu']:.1f} s {row['reason']}",
                  flush=True)
    text = markdown(rows, args)
    if args.output:
        Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
