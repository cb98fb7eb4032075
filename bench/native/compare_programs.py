#!/usr/bin/env python3
"""Compares each feature program's NAME.expected (what it prints under predatar: the feature-program test
keeps them equal) with what the same binary printed on a GPU (the programs/ logs of the H100's archive,
then the H200's, for programs that archive lacks).

usage: compare_programs.py [--check]
Prints each program's verdict. With --check, exits 1 when a program prints otherwise on the GPU and is
not one of the differences listed below; programs no GPU has run yet are listed, not failed.
"""
import argparse
import sys
from pathlib import Path

import ground_truth

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE.parent.parent / "tests" / "programs"

# Programs whose output differs from the GPU's on purpose.
DIFFERENT = {
    "device_attributes": "the attributes the emulator answers otherwise (compare_attributes.py checks them)",
    "host_latch_never": "the kernel waits for a host write that never comes: it hangs on a GPU, predatar reports it",
}


def native_stdout():
    """{program: its standard output on a GPU}, the H100's first."""
    out = {}
    for archive in ("h100-logs.tar.xz", "h200-logs.tar.xz"):
        for name, text in ground_truth.read_logs(HERE / archive, "programs").items():
            out.setdefault(name, text.split("\n--- stderr ---\n")[0])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    native = native_stdout()
    same = unexplained = 0
    expected_files = sorted(PROGRAMS.glob("*.expected"))
    for path in expected_files:
        name = path.stem
        if name not in native:
            print(f"{name}: no GPU has run it yet" + (f" ({DIFFERENT[name]})" if name in DIFFERENT else ""))
            continue
        if native[name] == path.read_text():
            same += 1
            print(f"{name}: same as on the GPU")
            continue
        ours, theirs = path.read_text().splitlines(), native[name].splitlines()
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        got = theirs[first] if first < len(theirs) else "(end)"
        want = ours[first] if first < len(ours) else "(end)"
        reason = DIFFERENT.get(name)
        print(f"{name}: line {first + 1}: GPU {got!r}, predatar {want!r}" +
              (f" (on purpose: {reason})" if reason else " (NOT EXPLAINED)"))
        unexplained += reason is None
    print(f"{same} of {len(expected_files)} feature programs print on a GPU what they print under predatar")
    return 1 if args.check and unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
