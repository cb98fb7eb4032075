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

race_lines() {  # REPORT FILE: sorted unique source lines of FILE in the races
  python3 - "$1" "$2" <<'PY'
import json, os, sys
report, name = sys.argv[1:]
lines = set()
for race in json.load(open(report)).get("races", []):
    for access in (race.get("first"), race.get("second")):
        if access and os.path.basename(access.get("file") or "") == name:
            lines.add(access["line"])
print(",".join(str(l) for l in sorted(lines)))
PY
}

failed=0
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  program="$bindir/$name"
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
    expected_lines="$(grep -v '^#' "$here/$name.races" | sort -n -u | paste -sd, -)"
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
    # Replays must not change a single result: the same output and races with every launch run.
    (cd "$work" && timeout 120 "$predatar" run --replay-repeats off --format json --output "$work/$name.all.json" \
       -- "$program" >"$work/$name.all.out" 2>"$work/$name.all.err")
    summary() { sed -n 's/.*checked\( ([^)]*)\)\?, \([0-9]*\) unique race.*/\2/p' "$1"; }
    cmp -s "$work/$name.out" "$work/$name.all.out" || { echo "FAIL: $name: output differs without replays"; ok=0; }
    [ "$(summary "$work/$name.err")" = "$(summary "$work/$name.all.err")" ] &&
      [ "$(race_lines "$report" "$name.cu")" = "$(race_lines "$work/$name.all.json" "$name.cu")" ] ||
      { echo "FAIL: $name: races differ without replays"; ok=0; }
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
