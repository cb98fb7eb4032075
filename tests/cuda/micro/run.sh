#!/usr/bin/env bash
# The litmus microbenchmarks of bench/micro as real CUDA programs, run on
# PreDataR's emulator with all three detectors.
#
# usage: run.sh PREDATAR_BINARY [WORKDIR]
#
# Builds the programs with build.sh into WORKDIR/bin when nvcc is installed,
# else runs the committed binaries in bin/. For each NAME.cu with a
# NAME.expect, runs
#   predatar run --detectors all --format json --output WORKDIR/NAME.json -- bin/NAME
# and compares, per detector, the set of source lines of NAME.cu that appear
# in its reported races (first or second access) with the expect lines
#   DETECTOR: race LINE[,LINE...]   or   DETECTOR: norace
# (lines starting with # are comments). An expect file may run another
# program with options: `program: NAME` (bin/NAME, source NAME.cu) and
# `options: --volatile strong` (added to predatar run). predatar must exit with 1 when races
# are expected and 0 otherwise, and the program itself must exit with 0.
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
  NVCC="$nvcc" "$here/build.sh" "$bindir" || { echo "micro-cuda: nvcc build failed"; exit 1; }
fi

# race_lines REPORT DETECTOR FILE: sorted, comma-separated source lines of FILE
# in the races DETECTOR reported.
race_lines() {
  if command -v jq >/dev/null 2>&1; then
    jq -r --arg d "$2" --arg f "$3" \
      '.races[]? | select(.detector == $d) | .first, .second
       | select((.file // "") | split("/") | last == $f) | .line' "$1"
  else
    python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
report, det, name = sys.argv[1:]
for race in json.load(open(report)).get("races", []):
    if race.get("detector") != det:
        continue
    for access in (race.get("first"), race.get("second")):
        if access and os.path.basename(access.get("file") or "") == name:
            print(access["line"])
PY
  fi | sort -n -u | paste -sd, -
}

passed=0
failed=0
for expect in "$here"/*.expect; do
  name="$(basename "$expect" .expect)"
  source="$name"
  programLine="$(grep -E '^program:' "$expect" | head -1)"
  [ -n "$programLine" ] && source="$(echo "${programLine#program:}" | tr -d ' ')"
  options="$(grep -E '^options:' "$expect" | head -1)"
  options="${options#options:}"
  program="$bindir/$source"
  if [ ! -x "$program" ]; then
    echo "FAIL: $name: no binary $program"
    failed=$((failed + 1))
    continue
  fi
  report="$work/$name.json"
  rm -f "$report"
  # shellcheck disable=SC2086  # options are words
  "$predatar" run --detectors all $options --format json --output "$report" -- "$program" \
    >"$work/$name.out" 2>"$work/$name.err"
  status=$?
  ok=1
  racy=0
  grep -Eq '^[a-z]+: race ' "$expect" && racy=1
  if ! grep -q "program exited with 0" "$work/$name.err"; then
    echo "FAIL: $name: the program did not exit with 0"
    ok=0
  fi
  if [ $racy -eq 1 ] && [ $status -ne 1 ]; then
    echo "FAIL: $name: predatar exited with $status, expected 1 (races)"
    ok=0
  elif [ $racy -eq 0 ] && [ $status -ne 0 ]; then
    echo "FAIL: $name: predatar exited with $status, expected 0 (no race)"
    ok=0
  fi
  if [ ! -s "$report" ]; then
    echo "FAIL: $name: no report"
    ok=0
  else
    for det in gwcp hb lockset; do
      line="$(grep -E "^$det:" "$expect" | head -1)"
      if [ -z "$line" ]; then
        echo "FAIL: $name: no '$det:' line in $expect"
        ok=0
        continue
      fi
      want=""
      case "$line" in
        *": race "*) want="$(echo "${line#*: race }" | tr -d ' ' | tr ',' '\n' | sort -n -u | paste -sd, -)" ;;
      esac
      got="$(race_lines "$report" "$det" "$source.cu")"
      if [ "$want" != "$got" ]; then
        echo "FAIL: $name: $det reported lines [${got:-none}], expected [${want:-none}]"
        ok=0
      fi
    done
  fi
  if [ $ok -eq 1 ]; then
    echo "ok: $name"
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    sed 's/^/  stderr: /' "$work/$name.err" | head -10
  fi
done
echo "micro-cuda: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
