#!/usr/bin/env bash
# The feature programs of this folder (one small CUDA program per runtime or
# PTX feature) through `predatar run`: built with nvcc when it is installed
# (build.sh), else the committed binaries in bin/.
#
# usage: run.sh PREDATAR_BINARY [WORKDIR]
#
# Per NAME.cu: the program must exit 0, its standard output must equal
# NAME.expected, and the races gwcp reports must be exactly at the source
# lines of NAME.cu listed in NAME.races ("LINE" per line; no file: no races,
# and predatar must exit 0, or the status in NAME.status). NAME.replays: how
# many launches must be replayed as exact repeats (cudart/runtime/RepeatedLaunches.h).
# NAME.stderr: lines predatar's standard error must hold. NAME.notes: texts
# that some note of the report's races must hold.
# NAME.needs: NVIDIA libraries the program loads at run time; skipped without them.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
predatar="${1:?usage: run.sh PREDATAR_BINARY [WORKDIR]}"
[ -x "$predatar" ] || { echo "run.sh: $predatar is not executable"; exit 2; }
predatar="$(cd "$(dirname "$predatar")" && pwd)/$(basename "$predatar")"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"

bindir="$here/bin"
if [ -x "$nvcc" ]; then
  bindir="$work/bin"
  NVCC="$nvcc" "$here/build.sh" "$bindir" || { echo "programs: nvcc build failed"; exit 1; }
fi

# Race lines as NAME.races lists them: "LINE" in NAME.cu, "FILE:LINE" in the
# program's other translation units (units/NAME_*.cu), sorted the same way.
sort_race_lines() {  # reads lines on stdin, prints them sorted, comma-separated
  python3 -c '
import sys
items = {l.strip() for l in sys.stdin if l.strip() and not l.startswith("#")}
key = lambda s: (0, int(s), "") if s.isdigit() else (1, 0, s)
print(",".join(sorted(items, key=key)))'
}
race_lines() {  # REPORT FILE: sorted unique source lines of FILE (and its units) in the races
  python3 - "$1" "$2" <<'PY' | sort_race_lines
import json, os, sys
report, name = sys.argv[1:]
stem = name[:-3]
for race in json.load(open(report)).get("races", []):
    for access in (race.get("first"), race.get("second")):
        base = os.path.basename((access or {}).get("file") or "")
        if base == name:
            print(access["line"])
        elif base.startswith(stem + "_") and base.endswith(".cu"):
            print(f"{base}:{access['line']}")
PY
}

# shellcheck source=needs.sh
source "$here/needs.sh"

failed=0
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  program="$bindir/$name"
  # NAME.needs: libraries of NVIDIA's the program needs at run time (NVRTC compiles with NVIDIA's own).
  has_needs "$name" || continue
  [ -x "$program" ] || { echo "FAIL: $name: no binary $program"; failed=$((failed + 1)); continue; }
  report="$work/$name.json"
  rm -f "$report"
  (cd "$work" && timeout 120 "$predatar" run --format json --output "$report" -- "$program" \
     >"$work/$name.out" 2>"$work/$name.err")
  status=$?
  ok=1
  expected_status=0
  expected_lines=""
  if [ -f "$here/$name.races" ]; then
    expected_lines="$(sort_race_lines < "$here/$name.races")"
    expected_status=1
  fi
  # NAME.status: another exit status of predatar (3: a launch refused or faulted).
  [ -f "$here/$name.status" ] && expected_status="$(grep -v '^#' "$here/$name.status" | head -1)"
  [ $status -eq $expected_status ] || { echo "FAIL: $name: predatar exited $status, expected $expected_status"; ok=0; }
  if [ -f "$here/$name.expected" ] && ! diff -u "$here/$name.expected" "$work/$name.out"; then
    echo "FAIL: $name: output differs"
    ok=0
  fi
  if [ -f "$here/$name.replays" ]; then
    want="$(grep -v '^#' "$here/$name.replays" | head -1)"
    got="$(sed -n 's/.*checked (\([0-9]*\) of them exact repeats.*/\1/p' "$work/$name.err")"
    [ "${got:-0}" = "$want" ] || { echo "FAIL: $name: ${got:-0} launches replayed, expected $want"; ok=0; }
    # --verbose names each replay and says why every other launch ran.
    (cd "$work" && timeout 120 "$predatar" run --verbose --format json --output "$work/$name.v.json" \
       -- "$program" >/dev/null 2>"$work/$name.v.err")
    [ "$(grep -c 'repeats launch [0-9]* exactly.*: replayed' "$work/$name.v.err")" = "$want" ] &&
      grep -q 'runs (not a replay): no earlier launch had the same kernel' "$work/$name.v.err" ||
      { echo "FAIL: $name: --verbose does not account for the replays"; ok=0; }
    # Replays must not change a single result: the same output and races with every launch run.
    (cd "$work" && timeout 120 "$predatar" run --replay-repeats off --format json --output "$work/$name.all.json" \
       -- "$program" >"$work/$name.all.out" 2>"$work/$name.all.err")
    summary() { sed -n 's/.*checked\( ([^)]*)\)\?, \([0-9]*\) unique race.*/\2/p' "$1"; }
    cmp -s "$work/$name.out" "$work/$name.all.out" || { echo "FAIL: $name: output differs without replays"; ok=0; }
    [ "$(summary "$work/$name.err")" = "$(summary "$work/$name.all.err")" ] &&
      [ "$(race_lines "$report" "$name.cu")" = "$(race_lines "$work/$name.all.json" "$name.cu")" ] ||
      { echo "FAIL: $name: races differ without replays"; ok=0; }
  fi
  # NAME.stderr: lines predatar must print (each found as is in its standard error).
  if [ -f "$here/$name.stderr" ]; then
    while IFS= read -r line; do
      case "$line" in '#'* | '') continue ;; esac
      grep -qF -- "$line" "$work/$name.err" || { echo "FAIL: $name: stderr lacks '$line'"; ok=0; }
    done < "$here/$name.stderr"
  fi
  # NAME.notes: texts the notes of the JSON report's races must hold (each in some note).
  if [ -f "$here/$name.notes" ]; then
    while IFS= read -r line; do
      case "$line" in '#'* | '') continue ;; esac
      python3 -c 'import json, sys
notes = [n for r in json.load(open(sys.argv[1])).get("races", []) for n in r.get("notes", [])]
sys.exit(0 if any(sys.argv[2] in n for n in notes) else 1)' "$report" "$line" 2>/dev/null ||
        { echo "FAIL: $name: no race note holds '$line'"; ok=0; }
    done < "$here/$name.notes"
  fi
  if [ -s "$report" ]; then
    got="$(race_lines "$report" "$name.cu")"
    [ "$got" = "$expected_lines" ] || { echo "FAIL: $name: races at lines '$got', expected '$expected_lines'"; ok=0; }
  else
    echo "FAIL: $name: no report"
    ok=0
  fi
  if [ $ok -eq 1 ]; then
    echo "ok: $name"
  else
    failed=$((failed + 1))
    sed 's/^/  stderr: /' "$work/$name.err" | head -20
  fi
done
[ $failed -eq 0 ] || { echo "$failed program(s) failed"; exit 1; }
exit 0
