#!/usr/bin/env bash
# Every file in tests/litmus/errors must be rejected by `predatar check` with
# exit code 2 and a message that names the file and line and contains the
# text of its first-line comment "# error: <text>" (case-insensitive).
set -u
predatar=$1; dir=$2
pass=0; fail=0
for f in "$dir"/*.litmus; do
  want=$(head -1 "$f" | sed -n 's/^# error: //p')
  out=$("$predatar" check "$f" 2>&1 >/dev/null); code=$?
  if [ "$code" -ne 2 ]; then
    echo "FAIL $f: exit code $code, expected 2"; fail=$((fail+1)); continue
  fi
  if ! grep -qiF -- "$want" <<<"$out"; then
    echo "FAIL $f: message does not mention '$want': $out"; fail=$((fail+1)); continue
  fi
  if ! grep -qE -- "$(basename "$f")(:[0-9]+)?: " <<<"$out"; then
    echo "FAIL $f: message does not name the file: $out"; fail=$((fail+1)); continue
  fi
  pass=$((pass+1))
done
echo "errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
