#!/usr/bin/env python3
"""Records ground truth on a machine with a real GPU: what the programs we check print and how long they
take natively, and what NVIDIA's compute-sanitizer racecheck says of them.

Nothing here needs predatar, and no test needs this: it runs only where a GPU is lent (the device tool), and
its results are committed beside it (RESULTS.md, *.tsv) to compare predatar's runs against.

It runs, within one time budget (phases stop early rather than overrun it):
  1. bench/apps: each application, race-free and racy build, at the small and paper sizes (native wall time);
  2. tests/programs: each feature program, its standard output compared with NAME.expected;
  3. NVIDIA's cuda-samples (a binary folder and a Samples tree, built as bench/samples/README.md says):
     each with its default arguments, from its own folder, classified like run_samples.py does, with its
     time and peak RSS;
  4. compute-sanitizer --tool racecheck (shared-memory hazards only) over all of the above, in parallel.

usage: ground_truth.py --out DIR [--samples-bin DIR --samples-tree DIR] [--budget SECONDS]
Writes DIR/env.txt, apps.tsv, programs.tsv, samples.tsv, racecheck.tsv (memcheck.tsv...) and logs.tar.xz.
"""
import argparse
import concurrent.futures
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench" / "samples"))
import run_samples  # noqa: E402  (the samples' list and their classification)

APPS = sorted(p.stem for p in (REPO / "bench" / "apps").glob("*.cu"))
LOG_CAP = 64 * 1024
# "RACECHECK SUMMARY: 50 hazards displayed (9 errors, 41 warnings)", "ERROR SUMMARY: 3 errors"
SANITIZER_SUMMARY = re.compile(r"(?:RACECHECK|ERROR) SUMMARY: (?P<total>\d+) (?:hazards? displayed \((?P<errors>\d+) "
                               r"errors?, (?P<warnings>\d+) warnings?\)|errors?)")
START = time.monotonic()


def elapsed():
    return time.monotonic() - START


class Logs:
    """Every run's output, capped, kept in memory and written as one archive at the end."""

    def __init__(self):
        self.items = {}

    def add(self, name, text):
        self.items[name] = text[-LOG_CAP:]

    def write(self, path):
        with tarfile.open(path, "w:xz") as tar:
            for name, text in sorted(self.items.items()):
                data = text.encode(errors="replace")
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))


class Run(NamedTuple):
    rc: object  # the exit code, or "timeout" or "missing"
    wall: float
    cpu: float  # of the process tree
    out: str
    err: str  # standard error when asked for separately, else in `out`
    max_rss_mb: float  # the process's own peak resident set


def run(cmd, cwd, timeout, separate_stderr=False):
    start = time.monotonic()
    before = os.times()
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE if separate_stderr else subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return Run("missing", 0.0, 0.0, str(e), "", 0.0)
    # Reaped here with wait4, not by Popen, for the process's own peak RSS.
    streams = {"out": proc.stdout, "err": proc.stderr}
    texts = {"out": b"", "err": b""}

    def drain(key):
        if streams[key]:
            texts[key] = streams[key].read()

    readers = [threading.Thread(target=drain, args=(key,)) for key in streams]
    for reader in readers:
        reader.start()
    timed_out = threading.Event()

    def stop():
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its whole session: a sanitizer and the program under it
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, stop)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if not timed_out.is_set():  # its children may hold the pipes open
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for reader in readers:
        reader.join()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    rc = "timeout" if timed_out.is_set() else proc.returncode
    return Run(rc, time.monotonic() - start, cpu, texts["out"].decode(errors="replace"),
               texts["err"].decode(errors="replace"), usage.ru_maxrss / 1024)


def read_logs(path, folder):
    """{name: text} of the logs under `folder` (apps, programs, samples, racecheck...) of a logs archive."""
    out = {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            name = m.name.lstrip("./")
            if m.isfile() and name.startswith(folder + "/") and name.endswith(".log"):
                out[name[len(folder) + 1:-len(".log")]] = tar.extractfile(m).read().decode(errors="replace")
    return out


class Table:
    """A TSV written row by row, so that a run stopped early still leaves what it measured."""

    def __init__(self, path, header):
        self.file = open(path, "w")
        self.file.write("\t".join(header) + "\n")
        self.file.flush()

    def row(self, *fields):
        self.file.write("\t".join(str(f).replace("\t", " ").replace("\n", " ") for f in fields) + "\n")
        self.file.flush()


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1][:160] if lines else ""


def native_apps(out, logs, until):
    # Each run twice: the first includes compiling the binary's PTX for this GPU (then cached).
    table = Table(out / "apps.tsv", ["app", "build", "size", "rc", "wall_s", "cpu_s", "first_wall_s", "last_line"])
    for size in ("small", "paper"):
        for app in APPS:
            for suffix in ("", "-racy"):
                if elapsed() > until:
                    return
                binary = REPO / "bench" / "apps" / "bin" / (app + suffix)
                first_wall = run([str(binary), size], cwd=tempfile.gettempdir(), timeout=60)[1]
                rc, wall, cpu, text, _, _ = run([str(binary), size], cwd=tempfile.gettempdir(), timeout=60)
                logs.add(f"apps/{app}{suffix}.{size}.log", text)
                table.row(app, suffix.strip("-") or "clean", size, rc, f"{wall:.3f}", f"{cpu:.2f}", f"{first_wall:.3f}",
                          last_line(text))


def feature_programs():
    folder = REPO / "tests" / "programs"
    return [(p.stem, folder / "bin" / p.stem) for p in sorted(folder.glob("*.cu"))]


def native_programs(out, logs, until, targets=""):
    table = Table(out / "programs.tsv", ["program", "rc", "expected_status", "stdout_matches", "wall_s", "first_difference"])
    folder = REPO / "tests" / "programs"
    for name, binary in feature_programs():
        if elapsed() > until:
            return
        if not re.search(targets, f"programs/{name}"):
            continue
        with tempfile.TemporaryDirectory() as work:
            rc, wall, _, stdout, stderr, _ = run([str(binary)], work, timeout=30, separate_stderr=True)
        logs.add(f"programs/{name}.log", stdout + "\n--- stderr ---\n" + stderr)
        expected_path = folder / f"{name}.expected"
        expected = expected_path.read_text() if expected_path.exists() else None
        status_path = folder / f"{name}.status"
        expected_status = status_path.read_text().strip() if status_path.exists() else "0"
        difference = ""
        if expected is not None and stdout != expected:
            for i, (a, b) in enumerate(zip(stdout.splitlines() + [""] * 999, expected.splitlines())):
                if a != b:
                    difference = f"line {i + 1}: got {a[:70]!r}, expected {b[:70]!r}"
                    break
            else:
                difference = "more output than expected"
        matches = "n/a" if expected is None else ("yes" if stdout == expected else "no")
        table.row(name, rc, expected_status, matches, f"{wall:.3f}", difference)


def native_samples(out, logs, args, until):
    table = Table(out / "samples.tsv", ["sample", "verdict", "rc", "wall_s", "cpu_s", "max_rss_mb", "reason"])
    for directory, name in run_samples.read_list(args.list):
        if elapsed() > until:
            return
        binary = Path(args.samples_bin) / name
        if not os.access(binary, os.X_OK):
            table.row(name, "NOBIN", "", "", "", "", "no binary")
            continue
        cwd = Path(args.samples_tree) / "Samples" / directory
        if args.warm_up:  # the first run compiles the binary's PTX for this GPU (then cached)
            run([str(binary)], cwd=cwd, timeout=args.sample_timeout)
        result = run([str(binary)], cwd=cwd, timeout=args.sample_timeout)
        logs.add(f"samples/{name}.log", result.out)
        row = {"name": name, "cpu": result.cpu, "races": 0}
        if result.rc == "timeout":
            row["verdict"], row["reason"] = "TIMEOUT", f"wall-clock limit ({args.sample_timeout} s)"
        elif result.rc == "missing":  # it could not be started: the error says why
            row["verdict"], row["reason"] = "NORUN", result.out.strip()[:160]
        else:
            run_samples.classify(row, result.out, result.rc if result.rc >= 0 else 128 - result.rc, False, 10**6)
        table.row(name, row["verdict"], result.rc, f"{result.wall:.3f}", f"{result.cpu:.2f}",
                  f"{result.max_rss_mb:.0f}", row["reason"])


def our_programs():
    """(label, command) of the applications (both builds, small size) and the feature programs: the
    labels of their logs ("apps/hotspot-racy", "programs/textures")."""
    for app in APPS:
        for suffix in ("", "-racy"):
            yield f"apps/{app}{suffix}", [str(REPO / "bench" / "apps" / "bin" / (app + suffix)), "small"]
    for name, binary in feature_programs():
        yield f"programs/{name}", [str(binary)]


def sanitizer_targets(args):
    """(label, command, working directory) of everything the sanitizer phases look at."""
    targets = [(label, cmd, tempfile.gettempdir()) for label, cmd in our_programs()]
    if args.samples_bin:
        for directory, name in run_samples.read_list(args.list):
            binary = Path(args.samples_bin) / name
            if os.access(binary, os.X_OK):
                targets.append((f"samples/{name}", [str(binary)], str(Path(args.samples_tree) / "Samples" / directory)))
    return targets


def find_sanitizer():
    candidates = [shutil.which("compute-sanitizer") or "", "/usr/local/cuda/bin/compute-sanitizer",
                  "/usr/local/cuda/compute-sanitizer/compute-sanitizer"]
    candidates += sorted(str(p) for p in Path("/opt/nvidia").glob("**/compute-sanitizer") if p.is_file())
    return next((c for c in candidates if c and os.access(c, os.X_OK)), "compute-sanitizer")


def sanitize(tool, out, logs, args, until):
    """compute-sanitizer --tool TOOL over the targets; DIR/TOOL.tsv."""
    sanitizer = find_sanitizer()
    table = Table(out / f"{tool}.tsv", ["target", "rc", "wall_s", "hazards", "errors", "warnings", "first_hazard"])
    targets = [t for t in sanitizer_targets(args) if re.search(args.targets, t[0])]

    def one(target):
        label, cmd, cwd = target
        budget = until - elapsed()
        if budget < 5:
            return label, "skipped", 0.0, ""
        options = ["--racecheck-report", "all"] if tool == "racecheck" else []
        rc, wall, _, text, _, _ = run([sanitizer, "--tool", tool, *options, "--print-limit", "50", *cmd], cwd=cwd,
                                   timeout=min(args.racecheck_timeout, budget))
        return label, rc, wall, text

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for label, rc, wall, text in pool.map(one, targets):
            if rc == "skipped":
                table.row(label, "skipped", "", "", "", "", "time budget spent")
                continue
            logs.add(f"{tool}/{label}.log", text)
            summary = SANITIZER_SUMMARY.search(text)
            hazard = next((l.strip() for l in text.splitlines() if l.startswith("========= ") and (
                "hazard detected" in l or "Invalid" in l or "Error" in l or "Warning" in l)), "")
            counts = (summary["total"], summary["errors"] or summary["total"], summary["warnings"] or 0) if summary \
                else ("", "", "")
            table.row(label, rc, f"{wall:.2f}", *counts, hazard[:200])


def environment(out):
    lines = [f"date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}"]
    for cmd in (["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm", "--format=csv,noheader"],
                ["nvcc", "--version"], [find_sanitizer(), "--version"], ["nproc"], ["uname", "-r"]):
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            lines.append(f"$ {' '.join(cmd)}\n{proc.stdout.decode(errors='replace').strip()}")
        except (OSError, subprocess.TimeoutExpired) as e:
            lines.append(f"$ {' '.join(cmd)}\n{e}")
    (out / "env.txt").write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples-bin", help="folder of the samples' binaries (bench/samples/build_samples.sh)")
    parser.add_argument("--samples-tree", help="the cuda-samples checkout (its Samples/ folders hold their data)")
    parser.add_argument("--list", default=str(HERE.parent / "samples" / "samples.list"),
                        help="the samples to run (default bench/samples/samples.list; domain.list beside it)")
    parser.add_argument("--warm-up", action="store_true",
                        help="run each sample once unmeasured first, so its time leaves out the PTX's JIT")
    parser.add_argument("--budget", type=float, default=480, help="seconds for everything (default 480)")
    parser.add_argument("--sample-timeout", type=float, default=20)
    parser.add_argument("--racecheck-timeout", type=float, default=90)
    parser.add_argument("--jobs", type=int, default=8, help="sanitizer runs at once (default 8)")
    parser.add_argument("--phases", default="apps,programs,samples,racecheck",
                        help="comma-separated, of apps, programs, samples, racecheck, memcheck, synccheck")
    parser.add_argument("--targets", default="",
                        help="programs and sanitizer phases: only targets whose label matches this regex")
    args = parser.parse_args()
    # Samples run from their own folders, so relative paths given here must not stay relative.
    for attr in ("samples_bin", "samples_tree"):
        if getattr(args, attr):
            setattr(args, attr, str(Path(getattr(args, attr)).resolve()))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logs = Logs()
    environment(out)
    phases = args.phases.split(",")
    # Native phases run one program at a time, so that their times are the GPU's alone.
    if "apps" in phases:
        native_apps(out, logs, until=0.12 * args.budget)
    if "programs" in phases:
        native_programs(out, logs, until=0.2 * args.budget, targets=args.targets)
    if "samples" in phases and args.samples_bin:
        native_samples(out, logs, args, until=0.5 * args.budget)
    tools = [p for p in phases if p in ("racecheck", "memcheck", "synccheck")]
    for i, tool in enumerate(tools):
        sanitize(tool, out, logs, args, until=elapsed() + (0.95 * args.budget - elapsed()) / (len(tools) - i))
    logs.write(out / "logs.tar.xz")
    print(f"ground_truth: done in {elapsed():.0f} s; results in {out}")


if __name__ == "__main__":
    main()
