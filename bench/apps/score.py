#!/usr/bin/env python3
"""Scores a `predatar run --format json` report of one application against the
`// RACE: <id>` markers of its source.

usage: score.py SOURCE.cu REPORT.json
Prints one line per detector (gwcp, hb, lockset):
  DETECTOR pairs=N found=ID,... missed=ID,... other=LINE,...
pairs: unique races as unordered pairs of source lines of SOURCE.cu (the
paper's "unique kinds of data races"); found/missed: the marked sites with
at least one line in / in no reported race; other: reported lines of
SOURCE.cu that no marker names ("-" for an empty list).
"""
import json
import os
import re
import sys

DETECTORS = ("gwcp", "hb", "lockset")


def sites(source):
    """Maps line number -> site id for every `// RACE: id` marker."""
    marked = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"//\s*RACE:\s*([A-Za-z0-9_.-]+)", text)
            if m:
                marked[number] = m.group(1)
    return marked


def lines_of(access, name):
    if not access or os.path.basename(access.get("file") or "") != name:
        return None
    return access.get("line")


def score(source, report):
    name = os.path.basename(source)
    marked = sites(source)
    ids = sorted(set(marked.values()))
    with open(report) as f:
        races = json.load(f).get("races", [])
    rows = {}
    for det in DETECTORS:
        pairs, seen = set(), set()
        for race in races:
            if race.get("detector") != det:
                continue
            a = lines_of(race.get("first"), name)
            b = lines_of(race.get("second"), name)
            pairs.add(tuple(sorted((a or 0, b or 0))))
            seen.update(x for x in (a, b) if x)
        found = sorted({marked[line] for line in seen if line in marked})
        missed = [i for i in ids if i not in found]
        other = sorted(line for line in seen if line not in marked)
        rows[det] = (len(pairs), found, missed, other)
    return rows


def show(items):
    return ",".join(str(i) for i in items) if items else "-"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for det, (pairs, found, missed, other) in score(sys.argv[1], sys.argv[2]).items():
        print(f"{det} pairs={pairs} found={show(found)} missed={show(missed)} other={show(other)}")


if __name__ == "__main__":
    main()
