#!/usr/bin/env bash
# Bad input is refused, never crashes, hangs or passes silently. Every kept
# input under tests/reliability/{ptx,litmus} carries on its first line
# "expect-error: TEXT"; predatar must exit non-zero (not by a signal or an
# abort) within a few seconds, naming the file (or the kernel) and saying TEXT.
#   ptx/*.ptx       predatar kernel FILE -e k
#   litmus/*.litmus predatar litmus FILE
# Plus inputs that cannot live in git: an empty file, an empty folder, a
# folder as the program of `predatar run`, /dev/zero as PTX.
set -u
p=$1; dir=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
# expect_refusal WANT NAME CMD...: non-zero exit below 128, WANT and NAME in stderr.
expect_refusal() {
  local want=$1 name=$2; shift 2
  timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"; local code=$?
  if [ "$code" -eq 0 ] || [ "$code" -ge 124 ]; then
    echo "FAIL $name: exit code $code: $(head -c 400 "$tmp/err")"; fail=$((fail+1)); return
  fi
  if ! grep -qiF -- "$want" "$tmp/err" || ! grep -qF -e "$name" -e "kernel 'k'" "$tmp/err"; then
    echo "FAIL $name: message lacks '$want' or the name: $(head -c 400 "$tmp/err")"; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
want_of() { head -1 "$1" | sed -n 's/^.*expect-error: //p'; }
for f in "$dir"/ptx/*.ptx; do expect_refusal "$(want_of "$f")" "$(basename "$f")" "$p" kernel "$f" -e k; done
for f in "$dir"/litmus/*.litmus; do expect_refusal "$(want_of "$f")" "$(basename "$f")" "$p" litmus "$f"; done
: >"$tmp/empty.litmus"
expect_refusal "no expect lines" empty.litmus "$p" litmus "$tmp/empty.litmus"
mkdir "$tmp/nothing_here"
expect_refusal "no .litmus files" nothing_here "$p" litmus "$tmp/nothing_here"
expect_refusal "no .litmus files" nothing_here "$p" check "$tmp/nothing_here"
expect_refusal "not a program" nothing_here "$p" run -- "$tmp/nothing_here"
expect_refusal "not a text file" /dev/zero "$p" kernel /dev/zero -e k
expect_refusal "not a text file" /dev/zero "$p" check /dev/zero
expect_refusal "bytes of shared memory per block" literals_ok.ptx \
  "$p" kernel "$dir/literals_ok.ptx" -e k -a buf:u32:4 --shared 2147483648
expect_refusal "is a folder" nothing_here "$p" kernel "$tmp/nothing_here" -e k
# Valid literals still read as ptxas reads them.
"$p" kernel "$dir/literals_ok.ptx" -e k -a buf:u32:4 --dump >/dev/null 2>"$tmp/err" &&
  grep -q "u32\[4\]: 8 1 1500 16" "$tmp/err" && pass=$((pass+1)) ||
  { echo "FAIL literals_ok.ptx: $(cat "$tmp/err")"; fail=$((fail+1)); }
# Reading is linear in events (5*10^4 here: ~1 s, was ~50 s): 10^5 events without '@' positions (each its own
# source line) took 204 s when sources were searched linearly.
awk 'BEGIN { print "launch blocks=1 threads=64"; for (i = 0; i < 50000; ++i) printf "b0.t%d: wr x[%d]\n", i % 64, i % 1000 }' \
  >"$tmp/long.litmus"
timeout 120 "$p" check --print-limit 1 "$tmp/long.litmus" >/dev/null 2>"$tmp/err"; code=$?
[ "$code" -eq 1 ] && pass=$((pass+1)) || { echo "FAIL 5*10^4-event litmus: exit $code $(head -c 300 "$tmp/err")"; fail=$((fail+1)); }
echo "reliability inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
