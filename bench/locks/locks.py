#!/usr/bin/env python3
"""Lock- and atomics-heavy CUDA programs under each detector: CPU time and peak metadata.

usage: locks.py [--predatar PATH] [--size small|large|paper] [--repeat N] [PROGRAM...]
       locks.py --check [--predatar PATH]   ctest: small size; race-free builds PASS with no race,
                                            racy ones have gwcp and hb name every // RACE: line
       locks.py --rebuild                   rebuild bin/ with nvcc and record the sources' digest

Runs every program of bench/locks/bin (or those named) under `predatar run
--stats` with no detector, lockset, hb and gwcp, one process at a time, and
prints per program the CPU seconds (user + sys of predatar and the program,
the least of --repeat runs) and the detector's peak metadata (--stats), then
gwcp's ratios over hb (issue 13: time <= 1.5x, metadata <= 2x).
"""
import argparse
import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DETECTORS = ["none", "lockset", "hb", "gwcp"]
METADATA = re.compile(r"predatar stats: total \[(\w+)\]: \d+ events; peak metadata ([0-9.]+) MiB")


def sources_digest():
    """One SHA-256 over the sources the binaries are built from (this folder's .cu and apps/common.h)."""
    digest = hashlib.sha256()
    files = sorted(f for f in os.listdir(HERE) if f.endswith(".cu")) + [os.path.join("..", "apps", "common.h")]
    for name in files:
        with open(os.path.join(HERE, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()


def rebuild():
    nvcc = os.environ.get("NVCC") or "nvcc"
    os.makedirs(os.path.join(HERE, "bin"), exist_ok=True)
    for src in sorted(f for f in os.listdir(HERE) if f.endswith(".cu")):
        out = os.path.join(HERE, "bin", src[:-3])
        for suffix, flags in (("", []), ("-racy", ["-DRACEY"])):
            subprocess.run([nvcc, "-cudart", "shared", "-lineinfo", "-arch=sm_75", *flags, "-o", out + suffix,
                            os.path.join(HERE, src)], check=True)
    with open(os.path.join(HERE, "bin", "SOURCES.sha256"), "w") as f:
        f.write(f"{sources_digest()}  sources of bench/locks\n")


def race_lines(source):
    """Lines of `source` marked // RACE:."""
    with open(os.path.join(HERE, source)) as f:
        return [i for i, line in enumerate(f, 1) if "// RACE:" in line]


def check(predatar, names):
    """Race-free builds: PASS, no race. Racy builds: gwcp and hb each name every marked line."""
    with open(os.path.join(HERE, "bin", "SOURCES.sha256")) as f:
        recorded = f.read().split()[0]
    if recorded != sources_digest():
        sys.exit("locks.py --check: bin/ was built from other sources (run locks.py --rebuild, which needs nvcc)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            report = os.path.join(tmp, name + ".json")
            proc = subprocess.run([predatar, "run", "-d", "gwcp,hb", "-f", "json", "-o", report, "--",
                                   os.path.join(HERE, "bin", name), "small"], capture_output=True, text=True)
            out = proc.stdout + proc.stderr
            if "PASS" not in out or not os.path.exists(report):
                sys.exit(f"locks.py --check: {name} (exit {proc.returncode}) did not PASS:\n{out[-2000:]}")
            with open(report) as f:
                races = json.load(f)["races"]
            if not name.endswith("-racy"):
                if proc.returncode != 0 or races:
                    sys.exit(f"locks.py --check: {name} should have no race (exit {proc.returncode}):\n{out[-2000:]}")
                print(f"{name}: PASS, no race (gwcp, hb)")
                continue
            source = name[:-len("-racy")] + ".cu"
            for detector in ("gwcp", "hb"):
                named = {side["line"] for r in races if r["detector"] == detector for side in (r["first"], r["second"])
                         if os.path.basename(side["file"]) == source}
                for line in race_lines(source):
                    if line not in named:
                        sys.exit(f"locks.py --check: {name}: {detector} does not name {source}:{line} "
                                 f"(it names lines {sorted(named)})")
            print(f"{name}: gwcp and hb name {', '.join(f'{source}:{n}' for n in race_lines(source))}")


def run_once(predatar, program, size, detector):
    """CPU seconds and peak metadata MiB (None without a detector)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([predatar, "run", "--stats", "--threads", "1", "-d", detector, "--", program, size],
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or "PASS" not in out:
        sys.exit(f"locks.py: {os.path.basename(program)} {size} under {detector} failed "
                 f"(exit {proc.returncode}):\n{out[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    metadata = None
    for m in METADATA.finditer(out):
        metadata = float(m.group(2))
    return cpu, metadata


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predatar", default=os.path.join(HERE, "..", "..", "build", "predatar"))
    parser.add_argument("--size", default="large", choices=["small", "large", "paper"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("programs", nargs="*")
    args = parser.parse_args()
    if args.rebuild:
        rebuild()
    built = sorted(f for f in os.listdir(os.path.join(HERE, "bin")) if not f.endswith(".sha256"))
    if not os.access(args.predatar, os.X_OK):
        sys.exit(f"locks.py: no predatar at {args.predatar} (build it, or pass --predatar PATH)")
    if args.check:
        return check(args.predatar, args.programs or built)
    names = args.programs or [f for f in built if not f.endswith("-racy")]
    print(f"== lock- and atomics-heavy programs, size {args.size}, predatar --threads 1 (CPU s: least of {args.repeat})")
    print("| program | none s | lockset s | hb s | gwcp s | gwcp/hb time | hb MiB | gwcp MiB | gwcp/hb metadata |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        program = os.path.join(HERE, "bin", name)
        cpu, meta = {}, {}
        for detector in DETECTORS:
            runs = [run_once(args.predatar, program, args.size, detector) for _ in range(args.repeat)]
            cpu[detector] = min(r[0] for r in runs)
            meta[detector] = runs[0][1]
            print(f"  {name} {detector}: {cpu[detector]:.2f} s", file=sys.stderr, flush=True)
        print(f"| {name} | {cpu['none']:.2f} | {cpu['lockset']:.2f} | {cpu['hb']:.2f} | {cpu['gwcp']:.2f} "
              f"| {cpu['gwcp'] / max(cpu['hb'], 1e-3):.2f}x | {meta['hb']:.1f} | {meta['gwcp']:.1f} "
              f"| {meta['gwcp'] / max(meta['hb'], 1e-6):.2f}x |", flush=True)


if __name__ == "__main__":
    main()
