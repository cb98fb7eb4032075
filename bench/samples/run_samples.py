#!/usr/bin/env python3
"""Runs NVIDIA's cuda-samples (the list in samples.list) under `predatar run` and tables the outcome.

Each sample runs once with its default arguments, from its own folder (so that it finds its data
files), under a CPU-time limit and a limit on writable memory (RLIMIT_DATA). The outcome is one of:

  PASS     the program exited 0, printed no FAIL, and predatar saw no race, fault or refusal
  RACES    as PASS, but predatar reported races (counts as a pass of the sample; races are listed)
  FAIL     the program ran to its end but reported a wrong result or exited non-zero
  REFUSED  predatar refused something by name ("... is not supported", a PTX module it cannot load)
  FAULT    a kernel faulted in the emulator (out of bounds, unimplemented instruction, deadlock...)
  TIMEOUT  the CPU limit (or the wall-clock limit) stopped it
  MEMORY   the memory limit stopped it (an allocation failed)
  WAIVED   the sample skipped itself (exit code 2, "Waiving"): a device property told it to
  CRASH    the program or predatar was killed by another signal
  NOBIN    no binary (the build failed: see OUT_DIR/NAME.buildlog)
  RAN      as PASS, but no detector ran (--predatar-option=--detectors=none: emulation alone,
           to tell which samples the emulator alone cannot run within the CPU limit)

Usage: run_samples.py --samples CUDA_SAMPLES_DIR --bin BIN_DIR --predatar PREDATAR
                      [--build] [--cpu-limit 60] [--mem-limit-gb 6] [--logs DIR]
                      [--output RESULTS.md] [--tsv RESULTS.tsv] [--compare OLD.tsv]
                      [--predatar-option=OPTION ...] [NAME...]
"""
import argparse
import concurrent.futures
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERDICTS = ["PASS", "RACES", "RAN", "FAIL", "REFUSED", "FAULT", "TIMEOUT", "MEMORY", "WAIVED", "CRASH", "NOBIN"]
SUMMARY = re.compile(r"predatar: (?P<launches>\d+) kernel launch(?:es)? checked(?: \([^)]*\))?, (?P<races>\d+) unique "
                     r"races?.*program exited with (?P<status>\d+)")
# --detectors none: launches executed, no race count
UNCHECKED = re.compile(r"predatar: (?P<launches>\d+) kernel launch(?:es)? executed, none checked for races[^;]*; "
                       r"program exited with (?P<status>\d+)")
REFUSAL = re.compile(r"is not supported|cannot load the PTX|not implemented|refus", re.IGNORECASE)
FAULT = re.compile(r"KERNEL FAULT|predatar: kernel .* failed[:( ]")
MEMORY = re.compile(r"bad_alloc|out of memory|Cannot allocate memory|cudaErrorMemoryAllocation", re.IGNORECASE)
WAIVE = re.compile(r"waiv", re.IGNORECASE)
FAILED = re.compile(r"FAIL|Test failed|mismatch|error", re.IGNORECASE)
PROGRAM_FAIL = re.compile(r"FAIL|Test failed")  # reduction prints "Test failed!" and exits 0
# An explicit verdict of the sample's own: it wins over a fault or refusal that the sample expected
# (simpleAssert checks that its kernel's assert fails) or survived.
# ("failed as expected": simpleAssert_nvrtc, whose device assert is the test, says only that)
PASS_MARK = re.compile(r"PASS|Test passed|Success|completed, returned OK|failed as expected", re.IGNORECASE)


def read_list(path):
    """(directory, name) pairs of samples.list, in order."""
    out = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        directory = line.split("|")[0].strip()
        out.append((directory, directory.split("/")[-1]))
    return out


def limit_child(cpu_s, mem_bytes, niceness):
    def apply():
        os.setsid()  # its own process group, so that a wall-clock timeout stops all of it
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        # Writable memory, not address space: the device arena reserves 1 TiB of
        # PROT_NONE address space, which RLIMIT_AS refuses, and predatar then runs
        # without it (no host-access protection, other allocation layout): a
        # configuration users do not run. RLIMIT_DATA counts what can be written.
        if mem_bytes:
            resource.setrlimit(resource.RLIMIT_DATA, (mem_bytes, mem_bytes))
        os.nice(niceness)
    return apply


def run_one(args, directory, name, log_dir):
    binary = Path(args.bin) / name
    row = {"name": name, "dir": directory, "rc": "", "status": "", "cpu": 0.0, "rss_mb": 0,
           "launches": "", "races": 0, "verdict": "NOBIN", "reason": "no binary (build failed)"}
    if not os.access(binary, os.X_OK):
        return row
    cwd = Path(args.samples) / "Samples" / directory
    cmd = [args.predatar, "run", *args.predatar_option, "--", str(binary)]
    start = time.monotonic()
    wall_out = False
    with open(log_dir / f"{name}.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=limit_child(args.cpu_limit, int(args.mem_limit_gb * 2**30), args.nice))
        # wait4 gives this sample's own CPU time and peak RSS (its waited-for descendants included).
        while True:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if not wall_out and time.monotonic() - start > args.wall_limit:
                wall_out = True
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.2)
        proc.returncode = rc = os.waitstatus_to_exitcode(wait_status)
    row["cpu"] = usage.ru_utime + usage.ru_stime
    row["rss_mb"] = usage.ru_maxrss // 1024
    row["wall"] = time.monotonic() - start
    row["rc"] = rc
    text = (log_dir / f"{name}.log").read_text(errors="replace")
    classify(row, text, rc, wall_out, args.cpu_limit)
    return row


def first(pattern, lines):
    for line in lines:
        if pattern.search(line):
            return line.strip()
    return ""


def classify(row, text, rc, wall_out, cpu_limit):
    lines = text.splitlines()
    unchecked = UNCHECKED.search(text)
    summary = SUMMARY.search(text) or unchecked
    status = int(summary["status"]) if summary else (rc if rc >= 0 else 128 - rc)
    row["status"] = status
    if summary:
        row["launches"], row["races"] = int(summary["launches"]), int(summary.groupdict().get("races") or 0)
    program = [l for l in lines if not l.startswith(("predatar:", "=========", "    "))]
    refusal = first(REFUSAL, [l for l in lines if l.startswith("predatar:")])
    fault = first(FAULT, lines)
    killed = status - 128 if status > 128 else 0
    own_pass = status == 0 and first(PASS_MARK, program) and not first(PROGRAM_FAIL, program)
    if own_pass and (refusal or fault):
        refusal = fault = ""
        row["note"] = "sample passed despite: " + (first(REFUSAL, lines) or first(FAULT, lines))
    if wall_out or killed == signal.SIGXCPU or killed == signal.SIGKILL and row["cpu"] >= cpu_limit - 2:
        limit = "wall-clock limit" if wall_out else f"CPU limit ({cpu_limit} s)"
        # A killed program writes no report: predatar's launch count is then 0, whatever ran.
        row["verdict"], row["reason"] = "TIMEOUT", limit
    elif refusal:
        row["verdict"], row["reason"] = "REFUSED", refusal
    elif rc == 5 or "out of memory while" in fault:
        # predatar's own out-of-memory exit (5): the run stopped for memory, not a kernel fault.
        row["verdict"], row["reason"] = "MEMORY", first(MEMORY, lines) or fault
    elif fault:
        row["verdict"], row["reason"] = "FAULT", fault
    elif first(MEMORY, lines) and status != 0:
        row["verdict"], row["reason"] = "MEMORY", first(MEMORY, lines)
    elif killed:
        row["verdict"], row["reason"] = "CRASH", f"signal {killed} ({signal.Signals(killed).name}); " + (
            lines[-1].strip() if lines else "")
    elif status == 2 or first(WAIVE, program):
        row["verdict"], row["reason"] = "WAIVED", first(WAIVE, program) or "exit code 2 (EXIT_WAIVED)"
    elif status == 0 and not first(PROGRAM_FAIL, program) and unchecked:
        row["verdict"], row["reason"] = "RAN", "not checked for races (--detectors none)"
    elif status == 0 and not first(PROGRAM_FAIL, program):
        row["verdict"] = "RACES" if row["races"] else "PASS"
        row["reason"] = f"{row['races']} unique races" if row["races"] else ""
        if row.get("note"):
            row["reason"] = (row["reason"] + "; " if row["reason"] else "") + row["note"]
    else:
        row["verdict"] = "FAIL"
        row["reason"] = first(FAILED, program) or f"program exited with {status}"
    row["reason"] = row["reason"][:160].replace("|", "/")


def read_tsv(path):
    rows = {}
    for line in Path(path).read_text().splitlines()[1:]:
        f = line.split("\t")
        rows[f[0]] = {"name": f[0], "verdict": f[1], "cpu": float(f[2]), "rc": f[3], "status": f[4],
                      "launches": f[5], "races": f[6], "rss_mb": f[7], "reason": f[8] if len(f) > 8 else ""}
    return rows


def write_tsv(path, rows):
    with open(path, "w") as out:
        out.write("sample\tverdict\tcpu_s\trc\tstatus\tlaunches\traces\trss_mb\treason\n")
        for r in rows:
            out.write(f"{r['name']}\t{r['verdict']}\t{r['cpu']:.1f}\t{r['rc']}\t{r['status']}\t{r['launches']}\t"
                      f"{r['races']}\t{r['rss_mb']}\t{r['reason']}\n")


def write_markdown(out, rows, args, old):
    passed = sum(r["verdict"] in ("PASS", "RACES") for r in rows)
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    out.write("# cuda-samples under predatar\n\n")
    out.write(f"{passed} of {len(rows)} samples pass (PASS + RACES). CPU limit {args.cpu_limit} s, "
              f"writable-memory limit (RLIMIT_DATA) {args.mem_limit_gb} GiB per sample.\n\n")
    out.write("| " + " | ".join(f"{v} {counts[v]}" for v in VERDICTS if counts[v]) + " |\n")
    out.write("|" + "---|" * sum(1 for v in VERDICTS if counts[v]) + "\n\n")
    before = " before |" if old else ""
    out.write(f"| sample | verdict |{before} CPU s | rc | program exit | launches | races | first reason |\n")
    out.write("|---|---|" + ("---|" if old else "") + "---:|---:|---:|---:|---:|---|\n")
    for r in rows:
        prev = old.get(r["name"]) if old else None
        b = f" {prev['verdict']} ({prev['cpu']:.1f} s) |" if prev else (" |" if old else "")
        out.write(f"| {r['dir']} | {r['verdict']} |{b} {r['cpu']:.1f} | {r['rc']} | {r['status']} | "
                  f"{r['launches']} | {r['races']} | {r['reason']} |\n")
    if old:
        out.write("\n## Changes against the earlier run\n\n")
        out.write("".join(f"* {line}\n" for line in changes(rows, old)) or "none\n")


# Slower or faster by this factor (and a second) counts as a change: the
# machine's noise on one run is well within it. (StreamPriorities went from
# 33 to 53 s between two full runs, 18 rounds apart, with no one looking.)
TIME_CHANGE = 1.5


def changes(rows, old):
    """Lines naming each sample whose verdict, race count or CPU time changed."""
    lines = []
    for r in rows:
        prev = old.get(r["name"])
        if not prev:
            continue
        if (prev["verdict"], str(prev["races"])) != (r["verdict"], str(r["races"])):
            lines.append(f"{r['name']}: {prev['verdict']} ({prev['races']} races) -> {r['verdict']} ({r['races']} races)")
        elif r["verdict"] in ("PASS", "RACES") and prev["verdict"] in ("PASS", "RACES"):
            a, b = prev["cpu"], r["cpu"]
            if b > TIME_CHANGE * a + 1 or a > TIME_CHANGE * b + 1:
                lines.append(f"{r['name']}: CPU {a:.1f} -> {b:.1f} s ({'slower' if b > a else 'faster'})")
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--samples", required=True, help="a cuda-samples checkout (has Samples/ and Common/)")
    p.add_argument("--bin", required=True, help="folder of the built samples (build_samples.sh OUT_DIR)")
    p.add_argument("--predatar", required=True)
    p.add_argument("--build", action="store_true", help="build missing binaries first (build_samples.sh)")
    p.add_argument("--jobs", default="1", help="parallel nvcc for --build")
    p.add_argument("-j", dest="jobs_run", type=int, default=1, help="samples run at once")
    p.add_argument("--nice", type=int, default=19, help="niceness of the runs (CPU time does not depend on it)")
    p.add_argument("--cpu-limit", type=int, default=60)
    p.add_argument("--wall-limit", type=int, default=900)
    p.add_argument("--mem-limit-gb", type=float, default=6)
    p.add_argument("--list", default=str(HERE / "samples.list"))
    p.add_argument("--logs", default="samples-logs")
    p.add_argument("--output", default="-", help="markdown table (default: standard output)")
    p.add_argument("--tsv", help="also write the rows as tab-separated values (for --compare)")
    p.add_argument("--compare", help="a --tsv file of an earlier run: adds a 'before' column")
    p.add_argument("--reuse", help="a --tsv file of an earlier run: its rows (but NOBIN) are kept, not rerun")
    p.add_argument("--table-only", action="store_true", help="run nothing: the table of the --reuse rows")
    p.add_argument("--predatar-option", action="append", default=[],
                   help="an option of `predatar run`, e.g. --predatar-option=--detectors=none (repeatable)")
    p.add_argument("names", nargs="*", help="only these samples")
    args = p.parse_args()
    args.predatar = str(Path(args.predatar).resolve())
    args.bin = str(Path(args.bin).resolve())
    samples = [s for s in read_list(args.list) if not args.names or s[1] in args.names]
    if args.build and not args.table_only:
        subprocess.run([str(HERE / "build_samples.sh"), args.samples, args.bin, "-j", args.jobs]
                       + [n for _, n in samples], check=False)
    log_dir = Path(args.logs)
    log_dir.mkdir(parents=True, exist_ok=True)
    reuse = read_tsv(args.reuse) if args.reuse else {}
    done = {}
    todo = []
    for directory, name in samples:
        if name in reuse and (reuse[name]["verdict"] != "NOBIN" or args.table_only):
            done[name] = dict(reuse[name], dir=directory)
        elif args.table_only:
            done[name] = {"name": name, "dir": directory, "verdict": "NOBIN", "cpu": 0.0, "rc": "", "status": "",
                          "launches": "", "races": 0, "rss_mb": "", "reason": "not measured"}
        else:
            todo.append((directory, name))
    # Each sample is one process with its own limits; running a few at once changes no CPU time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs_run) as pool:
        futures = {pool.submit(run_one, args, d, n, log_dir): n for d, n in todo}
        for f in concurrent.futures.as_completed(futures):
            row = f.result()
            done[row["name"]] = row
            print(f"{row['name']:28s} {row['verdict']:8s} {row['cpu']:6.1f} s  {row['reason'][:100]}",
                  file=sys.stderr, flush=True)
            if args.tsv:  # after every sample, so that an interrupted run can go on with --reuse
                write_tsv(args.tsv, [done[n] for _, n in samples if n in done])
    rows = [done[n] for _, n in samples]
    if args.tsv:
        write_tsv(args.tsv, rows)
    old = read_tsv(args.compare) if args.compare else None
    write_markdown(sys.stdout if args.output == "-" else open(args.output, "w"), rows, args, old)
    if old:  # (said on the terminal too: a change should not wait for someone to read the table)
        for line in changes(rows, old):
            print(f"changed: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
