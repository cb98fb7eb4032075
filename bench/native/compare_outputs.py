#!/usr/bin/env python3
"""Compares what the samples printed under predatar with what they printed on a real GPU.

usage: compare_outputs.py [--native LOGS.tar.xz ...] --predatar-logs DIR [--all] [NAME...]

DIR is run_samples.py's --logs folder. The native logs are h200-logs.tar.xz (76 samples),
h100-logs.tar.xz (the 15 driver-API and NVRTC samples) and h200-domain-logs.tar.xz (the 22 of
bench/samples/domain.list), unless --native names others. Lines that
differ between any two runs on a GPU are left out of the comparison: predatar's own lines, timings
and rates, the device's name, the binary's path.
Prints, per sample, how many lines differ and (with --all, or for named samples) the differences.
"""
import argparse
import difflib
import re
from pathlib import Path

import ground_truth  # the logs archive, as recorded

HERE = Path(__file__).resolve().parent
# Lines whose content depends on the machine, not on what the program computed.
MACHINE = re.compile(r"time|throughput|GB/s|GFlop|msec|\bms\b|seconds|bandwidth|perf|clock|"
                     r"device \d|\"NVIDIA|GPU Device|PreDataR emulated|H200|H100|Hopper|starting\.\.\.|returned OK|"
                     r"^=+$|Driver version|MB/s|elapsed|Mpixels|TFLOPS|\bTOPS\b|host CPUs|Starting \[|"
                     r"OS_System_Type|iterations while waiting|Mtexlookups|Mpix/s|per second|per sec\.|Gsamples/s|\] - Test Summary|"
                     # ptxas's report in a JIT info log (registers: the GPU's compiler, not the program), and
                     # host threads printing a context's address in whatever order they run (threadMigration)
                     r"^ptxas|^info +:|Context=0x", re.IGNORECASE)


def program_lines(text):
    return [l.rstrip() for l in text.splitlines()
            if l.strip() and not l.startswith(("predatar:", "=========", "    at ")) and not MACHINE.search(l)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--native", action="append", help="a logs archive of ground_truth.py (repeatable)")
    parser.add_argument("--predatar-logs", required=True)
    parser.add_argument("--all", action="store_true", help="print every sample's differences")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    native = {}
    for archive in args.native or [str(HERE / f"{n}-logs.tar.xz") for n in ("h200", "h100", "h200-domain")]:
        for name, text in ground_truth.read_logs(archive, "samples").items():
            native.setdefault(name, text)
    names = args.names or sorted(native)
    same = 0
    for name in names:
        ours = Path(args.predatar_logs) / f"{name}.log"
        if name not in native or not ours.exists():
            print(f"{name}: no {'native' if name not in native else 'predatar'} log")
            continue
        a, b = program_lines(native[name]), program_lines(ours.read_text(errors="replace"))
        diff = [l for l in difflib.unified_diff(a, b, "GPU", "predatar", n=0, lineterm="")
                if l.startswith(("+", "-")) and not l.startswith(("+++", "---"))]
        same += not diff
        print(f"{name}: {'same output' if not diff else f'{len(diff)} lines differ'}")
        if diff and (args.all or args.names):
            for line in diff[:40]:
                print("    " + line)
    print(f"{same} of {len(names)} samples print the same as on the GPU (machine-dependent lines left out)")


if __name__ == "__main__":
    main()
