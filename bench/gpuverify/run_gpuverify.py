#!/usr/bin/env python3
"""Runs GPUVerify's CUDA test suite (testsuite/CUDA of mc-imperial/gpuverify, fetched outside the
repository) under `predatar kernel` and tables each detector's verdict beside GPUVerify's label.

Each test is a .cu file (a folder's kernel.cu in testsuite/CUDA; any name in GPUVerify's
benchmark suite, mc-imperial/GPUVerifyBenchmarks) whose first line is GPUVerify's expected outcome (`//pass`:
verified race-free for every input and schedule; `//xfail:...`: some check fails) and whose second
gives the launch (`--blockDim=64 --gridDim=[2,2] -DN=4 ...`). Here each is:

1. compiled to PTX with nvcc (`-arch=sm_75 -lineinfo --ptx`, the -D flags of its second line, and
   annotations.h, which drops GPUVerify's specification annotations);
2. run once per kernel entry with every detector (`-d all`; `--cooperative` where it syncs the
   grid) on that grid: pointer parameters get
   zeroed buffers (256 ints a thread and 256 KiB, at most 128 MiB); a number parameter the value a
   `__requires(NAME == N)` of the test gives it, else 1 for a float, and for an integer the thread
   count in one run and 1 in another (a size, an offset: a race of either run counts);
   a parameter of another shape (a struct by value) gets zeroed bytes;
3. compared with the label: `pass` expects no race; an `xfail` expects one where expected.tsv says
   GPUVerify's failure is a race (other failures: assertions, null pointers, barrier divergence,
   unsupported code, say nothing about races, and are counted apart).

GPUVerify proves properties over all inputs; this is one execution on zeroed inputs, so a race that
needs particular data is missed, and that is the expected kind of miss. A race reported on a `pass`
test is a false alarm unless GPUVerify's own flags make the difference (`--warp-sync`: warps in
lockstep, where predatar analyses independent thread scheduling; `--only-intra-group`: blocks not
checked against each other; benign writes of one value, which GPUVerify tolerates); the table says
which.

Usage: run_gpuverify.py --suite TESTSUITE_CUDA --predatar PREDATAR [--out DIR] [--cpu-limit 120]
                        [--output RESULTS.md] [NAME...]
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scor"))
from run_samples import limit_child  # noqa: E402  (the same limits as the samples' runs)
from run_scor import read_report  # noqa: E402  (the same reading of predatar's JSON report)

HERE = Path(__file__).resolve().parent
DETECTORS = ["gwcp", "hb", "lockset"]
# Loads, stores and atomics, with their qualifiers (a kernel's shared memory: not .param, .local).
MEMORY_OP = re.compile(r"^\s*(?:@!?%\w+\s+)?(?:ld|st|atom|red)((?:\.\w+)*)\s", re.M)


def accesses_memory(ptx):
    return any(not {"param", "local"} & set(m.group(1).split(".")) for m in MEMORY_OP.finditer(ptx))


SCALAR_TYPES = {  # demangled C type -> predatar's scalar type
    "int": "i32", "unsigned int": "u32", "short": "i16", "unsigned short": "u16", "char": "i8",
    "signed char": "i8", "unsigned char": "u8", "bool": "u8", "long": "i64", "unsigned long": "u64",
    "long long": "i64", "unsigned long long": "u64", "float": "f32", "double": "f64",
}


def labelled(cu):
    """Whether a .cu file is one of GPUVerify's tests (its first line says what GPUVerify concludes)."""
    with open(cu, errors="replace") as f:
        first = f.readline().strip().lower()
    return first.startswith("//pass") or first.startswith("//xfail")


def test_name(relative):
    """A test's name: its folder for a kernel.cu (testsuite/CUDA), else its path."""
    return str(relative.parent) if relative.name == "kernel.cu" else str(relative)


def parse_header(source):
    """(label, launch flags) from a test's first two lines."""
    lines = source.splitlines()
    label = lines[0].lstrip("/").strip().lower() if lines else ""
    flags = lines[1].lstrip("/").split() if len(lines) > 1 and lines[1].startswith("//--") else []
    return label, flags


def dims(value):
    """'[2,2]' or '64' -> '2,2' or '64', the product, and the x, y, z sizes."""
    parts = [int(x) for x in value.strip("[]").split(",") if x.strip()]
    total = 1
    for p in parts:
        total *= p
    return ",".join(map(str, parts)), total, (parts + [1, 1])[:3]


def entries(ptx):
    """[(mangled name, [(param bytes)])] of the PTX's kernels."""
    out = []
    for m in re.finditer(r"\.entry\s+(\S+)\s*\(([^)]*)\)", ptx):
        params = []
        for p in m.group(2).split(","):
            p = p.strip()
            if not p:
                continue
            array = re.search(r"\.b8\s+\S+\[(\d+)\]", p)
            width = re.search(r"\.[usbf](8|16|32|64)\s", p + " ")
            params.append(int(array.group(1)) if array else int(width.group(1)) // 8 if width else 0)
        out.append((m.group(1), params))
    return out


def demangle(name):
    """A kernel's C++ name with its parameter types (c++filt); an unmangled name as it is."""
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()


def demangled_params(text):
    """The C parameter types of a demangled kernel name, or [] for an unmangled one."""
    if "(" not in text:
        return []
    inside = text[text.index("(") + 1:text.rindex(")")]
    depth, cur, types = 0, "", []
    for ch in inside:
        depth += ch in "<(" and 1 or ch in ">)" and -1 or 0
        if ch == "," and depth == 0:
            types.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        types.append(cur.strip())
    return [] if types == ["void"] else types


def parameter_names(source, kernel):
    """The kernel's parameter names in its source (`kernel` demangled: `void f<32>(int*, int)`)."""
    bare = re.search(r"(\w+)\s*(<[^()]*>)?\s*$", kernel.split("(")[0])
    if not bare:
        return []
    m = re.search(r"__global__\s+void\s+" + re.escape(bare.group(1)) + r"\s*(<[^()]*>)?\s*\(([^)]*)\)", source)
    if not m:
        return []
    return [re.findall(r"\w+", p)[-1] if re.findall(r"\w+", p) else "" for p in m.group(2).split(",")]


def required_values(source, names, launch):
    """{parameter position: value} of the kernel's parameters that a `__requires(NAME == N)` fixes
    (N integer arithmetic on numbers and blockDim.x and the like: `launch` gives the test's sizes)."""
    fixed = {}
    for condition in requires_conditions(source):
        m = re.fullmatch(r"\s*(\w+)\s*==\s*(.+?)\s*", condition)
        if m:
            fixed[m.group(1)] = launch_arithmetic(m.group(2), launch)
    return {i: fixed[n] for i, n in enumerate(names) if fixed.get(n) is not None}


def constrained_freely(source, names, fixed):
    """Parameters a `__requires` constrains that the runs give values of their own (not fixed)."""
    conditions = " ".join(requires_conditions(source))
    return sorted({n for i, n in enumerate(names) if n and i not in fixed and re.search(rf"\b{n}\b", conditions)})


def requires_conditions(source):
    """The conditions of the source's `__requires(...)`, nested parentheses included."""
    out = []
    for start in (m.end() for m in re.finditer(r"__requires\(", source)):
        depth, i = 1, start
        while i < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        out.append(re.sub(r"/\*.*?\*/", " ", source[start:i - 1]))
    return out


def launch_arithmetic(expression, launch):
    """The value of `blockDim.x*2`-like integer arithmetic on the launch's sizes, or None."""
    text = re.sub(r"\b(blockDim|gridDim)\.[xyz]\b", lambda m: str(launch[m.group(0)]), expression)
    if not re.fullmatch(r"[\d\s+\-*/()]+", text):
        return None
    try:
        return int(eval(text.replace("/", "//"), {"__builtins__": {}}))  # (digits and operators only)
    except (SyntaxError, ZeroDivisionError, ValueError):
        return None


def kernel_args(params, types, threads, fixed, free):
    """predatar's -a values for a kernel, or the reason it cannot be given arguments; and whether
    `free` (the value of an integer parameter no `__requires` fixes) was used."""
    buffer_ints = min(256 * threads + 65536, 1 << 25)
    args, used = [], False
    for i, size in enumerate(params):
        ctype = re.sub(r"\b(const|volatile)\b", "", types[i]).strip() if i < len(types) else ""
        if "*" in ctype or (size == 8 and ctype not in SCALAR_TYPES):
            if size != 8:
                return None, f"parameter {i + 1} ({ctype or size} bytes) is neither a pointer nor a number", False
            args.append(f"buf:i32:{buffer_ints}")
        elif ctype in SCALAR_TYPES or size in (1, 2, 4):
            t = SCALAR_TYPES.get(ctype, {1: "u8", 2: "u16", 4: "u32"}.get(size))
            used |= i not in fixed and not t.startswith("f")
            args.append(f"scalar:{t}:{fixed.get(i, 1 if t.startswith('f') else free)}")
        else:  # a struct by value: zeroed, as the buffers are
            args.append(f"bytes:{size}")
    return args, "", used


def compile_ptx(test, cu, out_dir, flags):
    ptx = out_dir / f"{test}.ptx"
    defines = [f for f in flags if f.startswith("-D")]
    # (GPUVerify's own cuda.h brings these in; nvcc's does not)
    source = cu.read_text(errors="replace")
    headers = [h for h, used in (("curand_kernel.h", "curand" in source),
                                 ("cooperative_groups.h", "cooperative_groups" in source or "grid_group" in source))
               if used]
    # (those first: annotations.h's __all would rename libcu++'s own)
    cmd = ["nvcc", "--ptx", "-lineinfo", "-arch=sm_75", *[x for h in headers for x in ("-include", h)],
           "-include", str(HERE / "annotations.h"), *defines, cu.name, "-o", str(ptx)]
    done = subprocess.run(cmd, cwd=cu.parent, capture_output=True, text=True)
    if done.returncode != 0:
        first = next((l for l in done.stderr.splitlines() if "error" in l), done.stderr.strip()[:200])
        return None, re.sub(r"^.*" + re.escape(cu.name), cu.name, first)
    return ptx, ""


def run_entry(args, ptx, entry, grid, block, kargs, log_stem, shared, cooperative):
    report = Path(f"{log_stem}.json")
    cmd = [args.predatar, "kernel", str(ptx), "-e", entry, "-g", grid, "-b", block, "-d", "all", "-f", "json",
           "-o", str(report), "--progress", "0", "--timeout", str(args.cpu_limit)]
    if shared:
        cmd += ["--shared", "49152"]
    if cooperative:  # (a grid-wide sync needs a cooperative launch, as on a GPU)
        cmd += ["--cooperative"]
    for a in kargs:
        cmd += ["-a", a]
    start = time.monotonic()
    with open(f"{log_stem}.log", "wb") as log:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=log,
                              preexec_fn=limit_child(args.cpu_limit, 8 << 30, 0))
    races, errors = read_report(report)
    row = {"rc": proc.returncode, "wall": time.monotonic() - start, "races": races, "errors": errors}
    if not row["errors"] and proc.returncode not in (0, 1):
        text = Path(f"{log_stem}.log").read_text(errors="replace").strip().splitlines()
        stopped = {-signal.SIGXCPU: f"stopped at the CPU limit ({args.cpu_limit} s)", -signal.SIGKILL: "killed"}
        row["errors"] = [stopped.get(proc.returncode) or (text[-1] if text else f"exit {proc.returncode}")]
    return row


def expected_races():
    """expected.tsv: test -> (whether GPUVerify's failure is a race, why; for a pass test, what
    makes a race report there no false alarm)."""
    table = {}
    for line in (HERE / "expected.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            test, kind, why = (line.split("\t") + ["", ""])[:3]
            table[test] = (kind == "race", why)
    return table


def one_test(args, suite, test, expected):
    cu = suite / (test if test.endswith(".cu") else f"{test}/kernel.cu")
    source = cu.read_text(errors="replace")
    label, flags = parse_header(source)
    opt = dict(f.split("=", 1) if "=" in f else (f, "") for f in flags if f.startswith("--"))
    row = {"test": test, "label": "pass" if label.startswith("pass") else "xfail",
           "gv_flags": " ".join(f for f in flags if f.split("=")[0] in ("--warp-sync", "--only-intra-group",
                                                                          "--only-divergence", "--no-benign")),
           "verdicts": {}, "why": ""}
    race_expected, why = expected.get(test, (False, ""))
    race_expected &= row["label"] == "xfail"
    row["expects"] = "race" if race_expected else "none" if row["label"] == "pass" else "other"
    row["expect_why"] = why
    grid, g, grid_xyz = dims(opt.get("--gridDim", "1"))
    block, b, block_xyz = dims(opt.get("--blockDim", "1"))
    launch = {f"{name}.{axis}": size for name, xyz in (("gridDim", grid_xyz), ("blockDim", block_xyz))
              for axis, size in zip("xyz", xyz)}
    out_dir = Path(args.out)
    ptx, error = compile_ptx(test.replace("/", "__"), cu, out_dir, flags)
    if not ptx:
        row["outcome"], row["why"] = "not compiled", error
        return row
    text = ptx.read_text()
    kernels = entries(text)
    if not kernels:
        row["outcome"], row["why"] = "no kernel", "the PTX has no .entry"
        return row
    if not accesses_memory(text):
        row["outcome"], row["why"] = "no access", "its PTX accesses no memory (none in the source, or none nvcc kept)"
        return row
    races, errors, clean, faulted = [], [], 0, []  # (faulted: a fault of one parameter value)
    for entry, params in kernels:
        demangled = demangle(entry)
        names = parameter_names(source, demangled)
        fixed = required_values(source, names, launch)
        row["free_constrained"] = sorted(set(row.get("free_constrained", [])) |
                                         set(constrained_freely(source, names, fixed)))
        # Integer parameters no __requires fixes run at the thread count (a size) and at 1 (an
        # offset): a race of either run counts; a run that faults where the other ran is noted.
        entry_runs = []
        for free in (g * b, 1):
            kargs, refusal, used = kernel_args(params, demangled_params(demangled), g * b, fixed, free)
            if kargs is None:
                errors.append(refusal)
                break
            stem = out_dir / f"{test.replace('/', '__')}.{len(races)}.{len(entry_runs)}.{free}"
            r = run_entry(args, ptx, entry, grid, block, kargs, stem, ".extern .shared" in text,
                          "this_grid" in source or "grid_group" in source)
            entry_runs.append((free, [e if isinstance(e, str) else e.get("message", json.dumps(e))
                                      for e in r["errors"]], r["races"]))
            if not used:
                break
        if entry_runs and any(not e for _, e, _ in entry_runs):
            # The value that faulted is outside what the kernel takes (an index past a buffer,
            # whose stray accesses land in another buffer and race there): its races are not counted.
            clean += 1
            races += [x for _, e, found in entry_runs if not e for x in found]
            faulted += [f"with {free} for the free integers: {e[0]}" for free, e, _ in entry_runs if e]
        else:
            races += [x for _, _, found in entry_runs for x in found]
            errors += [e for _, run_errors, _ in entry_runs for e in run_errors]
    row["verdicts"] = {d: "race" if any(x["detector"] == d for x in races) else "none" for d in DETECTORS}
    row["lines"] = sorted({f"{x['first'].get('line')}/{x['second'].get('line')}" for x in races if x["detector"] == "gwcp"})
    row["errors"] = errors
    row["outcome"] = "ran" if not errors and clean else "error"
    if row["outcome"] == "error":  # (a run that stopped found what it found, and checked no more)
        row["verdicts"] = {d: "race" if v == "race" else "-" for d, v in row["verdicts"].items()}
    shown = errors or faulted
    row["why"] = re.sub(r"\s+", " ", shown[0])[:140].replace("|", "/") if shown else ""
    return row


def markdown(rows):
    ran = [r for r in rows if r["outcome"] == "ran"]
    lines = [f"Tests: {len(rows)}; compiled and ran without error: {len(ran)}; "
             f"not compiled by nvcc: {sum(r['outcome'] == 'not compiled' for r in rows)}; "
             f"no memory access in the PTX: {sum(r['outcome'] == 'no access' for r in rows)}; "
             f"refused or faulted: {sum(r['outcome'] in ('error', 'no kernel') for r in rows)}.", ""]
    for expects, title in (("none", "GPUVerify `pass` (race-free)"), ("race", "GPUVerify `xfail`, a race"),
                           ("other", "GPUVerify `xfail`, not a race")):
        group = [r for r in ran if r["expects"] == expects]
        agree = {d: sum((r["verdicts"][d] == "race") == (expects == "race") for r in group) for d in DETECTORS}
        lines.append(f"* {title}: {len(group)} ran; predatar agrees (race reported exactly where one is "
                     f"expected): " + ", ".join(f"{d} {agree[d]}" for d in DETECTORS))
        unsure = [r for r in group if expects == "none" and r.get("free_constrained") and
                  any(v == "race" for v in r["verdicts"].values())]
        if unsure:
            lines.append(f"  (of the races there, {len(unsure)} test(s) ran with values of our own for parameters "
                         "their `__requires` constrain: " + ", ".join(r["test"] for r in unsure) + ")")
    lines += ["", "| test | GPUVerify | its flags | gwcp | hb | lockset | gwcp's line pairs | outcome, or why |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        expects = {"none": "pass", "race": "xfail: race", "other": "xfail: other"}[r["expects"]]
        cells = []
        for d in DETECTORS:
            v = r["verdicts"].get(d, "-")
            agrees = (v == "race") == (r["expects"] == "race") or r["expects"] == "other"
            cells.append(v if v == "-" or agrees or r["outcome"] != "ran" else f"**{v}**")  # (counted rows only)
        note = r["why"] or r.get("expect_why", "")
        if r["expects"] == "none" and r.get("free_constrained") and any(v == "race" for v in r["verdicts"].values()):
            note = f"its __requires constrain {', '.join(r['free_constrained'])}, which the runs chose; " + note
        lines.append(f"| {r['test']} | {expects} | {r['gv_flags']} | " + " | ".join(cells) +
                     f" | {' '.join(r.get('lines', []))[:60]} | {note} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", required=True, help="testsuite/CUDA of a GPUVerify checkout, or a GPUVerifyBenchmarks checkout")
    p.add_argument("--predatar", required=True)
    p.add_argument("--out", default="/tmp/gpuverify-runs", help="PTX, logs and reports")
    p.add_argument("--cpu-limit", type=int, default=120)
    p.add_argument("--output")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    if not shutil.which("nvcc"):
        p.error("nvcc is not on PATH")
    args.predatar = str(Path(args.predatar).resolve())
    Path(args.out).mkdir(parents=True, exist_ok=True)
    suite = Path(args.suite).resolve()
    tests = sorted(test_name(cu.relative_to(suite)) for cu in suite.rglob("*.cu") if labelled(cu))
    tests = [t for t in tests if not args.names or any(n in t for n in args.names)]
    expected = expected_races()
    rows = []
    for i, test in enumerate(tests, 1):
        row = one_test(args, suite, test, expected)
        print(f"  [{i}/{len(tests)}] {test}: {row['outcome']}; expects {row['expects']}; " +
              ", ".join(f"{d} {v}" for d, v in row["verdicts"].items()) + (f"; {row['why']}" if row["why"] else ""),
              flush=True)
        rows.append(row)
    text = markdown(rows)
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
