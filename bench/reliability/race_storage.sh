#!/usr/bin/env bash
# Race storage under many occurrences of few unique races (issue 14): a
# generated litmus trace in which two threads of different warps write 8 words
# in turn (N events, each `@ k.cu:5` or `@ k.cu:9`): about N racing pairs, which
# are one source-line pair at 8 locations (per-location reports: 8 unique races). Prints the peak RSS of `predatar check`,
# its CPU time, and the unique races and occurrences of its JSON report.
# usage: race_storage.sh PREDATAR [EVENTS=200000]
# Measured (2-core shared machine, RelWithDebInfo, gwcp):
#   200000 events, before (main 3733d9c): 199992 unique races, peak RSS 2192 MiB, CPU 21.8 s
#   200000 events, after:                      16 unique races, peak RSS  164 MiB, CPU  1.4 s
#   10^6 events, after: 16 unique races (999992 occurrences), peak RSS 568 MiB (the
#   trace the litmus reader holds), CPU 6.0 s
set -eu
p=$1; n=${2:-200000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$n" >"$tmp/many.litmus" <<'PY'
import sys
n = int(sys.argv[1])
print("launch blocks=1 threads=64")
for i in range(n):
    t, line = (0, 5) if i % 2 == 0 else (32, 9)
    print(f"t{t}: wr x[{(i // 2) % 8}] @ k.cu:{line}")
PY
/usr/bin/time -f "%M %U %S" -o "$tmp/time" "$p" check --format json -d gwcp "$tmp/many.litmus" >"$tmp/out" 2>"$tmp/err" || true
read -r rss user sys < <(tail -1 "$tmp/time")
python3 - "$tmp/out" "$n" "$rss" "$user" "$sys" <<'PY'
import json, sys
out, n, rss, user, sys_ = sys.argv[1:]
r = json.load(open(out))["races"]
print(f"events {n}: {len(r)} unique races, {sum(x['count'] for x in r)} occurrences; "
      f"peak RSS {int(rss) / 1024:.1f} MiB, CPU {float(user) + float(sys_):.2f} s")
PY
