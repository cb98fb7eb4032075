#!/usr/bin/env bash
# Kernels that never finish are stopped quickly, with each stuck warp's
# position (PTX line and source line); a long loop that does finish is not.
#   hangs.ptx (from hangs.cu): barrier + spin and plain spin deadlocks found by
#   the livelock detector in well under a second; a clock spin stopped by
#   --step-limit or --timeout. run/bin/spin_app: the same through `predatar run`.
set -u
p=$1; dir=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
# stopped WANT CMD...: non-zero exit (not a signal) within 30 s, WANT in stderr.
stopped() {
  local want=$1; shift
  timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"; local code=$?
  if [ "$code" -eq 0 ] || [ "$code" -ge 124 ] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL ($code) $*: $(head -c 600 "$tmp/err")"; fail=$((fail+1)); return 1
  fi
  pass=$((pass+1))
}
k="$p kernel $dir/hangs.ptx"
stopped "deadlock" $k -e barrierSpin -b 64 -a buf:int:1 &&
  { grep -q "hangs.cu:11:.*running" "$tmp/err" && grep -q "hangs.cu:14:.*waiting at barrier 0 (63 of 64" "$tmp/err" &&
    pass=$((pass+1)) || { echo "FAIL barrierSpin positions: $(cat "$tmp/err")"; fail=$((fail+1)); }; }
stopped "deadlock" $k -e spinForever -b 64 -a buf:int:1
stopped "deadlock" $k -e spinForever -b 64 -g 8 -a buf:int:1
stopped "step limit of 1000000" $k -e clockSpin -b 32 -a buf:int:1 --step-limit 1000000
stopped "time limit of 0.5 s" $k -e clockSpin -b 32 -a buf:int:1 --timeout 0.5
# Registers only, no store for 2*10^6 iterations: must finish (no false livelock).
timeout 60 $k -e longCompute -b 64 -a buf:u32:64 -a scalar:u32:2000000 >/dev/null 2>"$tmp/err" && pass=$((pass+1)) ||
  { echo "FAIL longCompute: $(cat "$tmp/err")"; fail=$((fail+1)); }
app=$dir/run/bin/spin_app
stopped "deadlock" "$p" run -- "$app" barrier
stopped "time limit of 1 s" "$p" run --timeout 1 -- "$app" clock
stopped "step limit of 1000000" "$p" run --step-limit 1000000 -- "$app" clock
echo "hangs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
