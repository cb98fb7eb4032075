#!/usr/bin/env python3
"""Peak memory (RSS of the whole run, peak detector metadata) and CPU time of
predatar builds side by side (issue 13: "hotspot at paper size under 600 MB
with all three detectors", "no NVIDIA sample over 2 GB").

usage: memory.py [options] PREDATAR [PREDATAR...]
  each PREDATAR is a predatar binary (a copy with its lib/ beside it, so that
  rebuilding does not disturb a run); the first is "before", the last "after".
  PREDATAR,FLAG,... adds `predatar run` flags to that build's runs: one
  binary with and without a feature (/tmp/pd/predatar,--compression=off).
  --apps APP...        bench/apps programs at --size (default: hotspot)
  --size SIZE          small | large | paper (default paper)
  --samples-src DIR    cuda-samples checkout (Samples/*/NAME: each sample runs
                       from its folder, where it finds its data)
  --samples-bin DIR    one executable per sample (DIR/NAME)
  --samples NAME...    samples to run (needs both --samples-* options)
  --detectors D...     detector sets (default: none gwcp all)
  --cpu S              CPU seconds per run (default 60)
  --memory-gib G       writable-memory limit (RLIMIT_DATA) per run (default 6; 0: none)

Prints one markdown row per program, detector set and build: verdict (exit
status; TIMEOUT, MEMORY = predatar's out-of-memory exit 5, or ABORT), peak RSS
(MiB), peak metadata (MiB, largest launch, summed over detectors) and CPU
seconds (user+sys of predatar and the program).
"""
import argparse
import glob
import os
import re
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
APPS_BIN = os.path.join(HERE, "..", "apps", "bin")


def limits(cpu, memory_gib):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        # Writable memory, not address space: RLIMIT_AS refuses the device
        # arena's 1 TiB PROT_NONE reservation, and predatar then runs without
        # it, unlike for a user (as bench/samples/run_samples.py).
        if memory_gib:
            b = memory_gib << 30
            resource.setrlimit(resource.RLIMIT_DATA, (b, b))
    return apply


def measure(build, program, args, cwd, detectors, cpu, memory_gib):
    predatar, *flags = build.split(",")
    cmd = ["/usr/bin/time", "-f", "TIME %M %U %S", os.path.abspath(predatar), "run", *flags, "--stats", "-d", detectors,
           "--format", "json", "--output", os.devnull, "--", program] + args
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       errors="replace", preexec_fn=limits(cpu, memory_gib))
    err = p.stderr
    rss = cpu_s = 0.0
    m = re.search(r"^TIME (\d+) ([\d.]+) ([\d.]+)$", err, re.M)
    if m:
        rss, cpu_s = int(m.group(1)) / 1024, float(m.group(2)) + float(m.group(3))
    status = None
    m = re.search(r"Command (?:exited with non-zero status (\d+)|terminated by signal (\d+))", err)
    if m:
        status = int(m.group(1)) if m.group(1) else 128 + int(m.group(2))
    status = 0 if status is None else status
    metadata = sum(float(x) for x in re.findall(r"predatar stats: total \[\w+\]: \d+ events; peak metadata ([\d.]+) MiB", err))
    if "terminate called" in err or status == 134:
        verdict = "ABORT"
    elif status == 5 or "out of memory while" in err:
        verdict = "MEMORY"
    elif status in (137, 152) or "CPU limit" in err or cpu_s >= cpu - 1:
        verdict = "TIMEOUT"
    else:
        verdict = f"exit {status}"
    return verdict, rss, metadata, cpu_s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("predatar", nargs="+")
    ap.add_argument("--apps", nargs="*", default=["hotspot"])
    ap.add_argument("--size", default="paper")
    ap.add_argument("--samples-src")
    ap.add_argument("--samples-bin")
    ap.add_argument("--samples", nargs="*", default=[])
    ap.add_argument("--detectors", nargs="*", default=["none", "gwcp", "all"])
    ap.add_argument("--cpu", type=int, default=60)
    ap.add_argument("--memory-gib", type=int, default=6)
    a = ap.parse_args()
    programs = [(app, os.path.join(APPS_BIN, app), [a.size], HERE) for app in a.apps]
    if a.samples and not (a.samples_src and a.samples_bin):
        sys.exit("memory.py: --samples needs --samples-src and --samples-bin")
    for s in a.samples:
        folders = glob.glob(os.path.join(a.samples_src, "Samples", "*", s))
        programs.append((s, os.path.join(a.samples_bin, s), [], folders[0] if folders else HERE))
    print(f"CPU limit {a.cpu} s, writable memory (RLIMIT_DATA) {a.memory_gib or 'unlimited'} GiB; builds: " +
          ", ".join(f"{i}={p}" for i, p in enumerate(a.predatar)))
    print("| program | detectors | build | verdict | RSS MiB | metadata MiB | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for name, program, args, cwd in programs:
        for d in a.detectors:
            for i, predatar in enumerate(a.predatar):
                verdict, rss, metadata, cpu_s = measure(predatar, program, args, cwd, d, a.cpu, a.memory_gib)
                print(f"| {name} | {d} | {i} | {verdict} | {rss:.0f} | {metadata:.1f} | {cpu_s:.1f} |", flush=True)


if __name__ == "__main__":
    main()
