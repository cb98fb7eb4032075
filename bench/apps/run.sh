#!/usr/bin/env bash
# The paper's application study (section 6, tables "unique kinds of data
# races", "run times", "memory overheads") on PreDataR's emulator.
#
# usage: run.sh [--predatar PATH] [--size small|large|paper] [APP...]   print tables A, B, C
#        run.sh --check [--predatar PATH] [APP...]          ctest: small size, both builds, expectations
#        run.sh --update-expect [--predatar PATH] [APP...]  rewrite expect/APP.expect from today's runs
#        run.sh --rebuild                                   rebuild bin/ with nvcc (build.sh) first
#
# The programs are committed as binaries in bin/ (built by build.sh with
# nvcc -cudart shared -lineinfo), so nothing here needs nvcc or a GPU;
# bin/SOURCES.sha256 records the sources they were built from, and --check
# fails when the sources changed without a rebuild.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
predatar="${PREDATAR:-$here/../../build/predatar}"
mode=tables
size=small
rebuild=0
apps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --predatar) predatar="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --check) mode=check; shift ;;
    --update-expect) mode=update-expect; shift ;;
    --rebuild) rebuild=1; shift ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) apps+=("$1"); shift ;;
  esac
done
[ -x "$predatar" ] || { echo "run.sh: no predatar at $predatar (build it, or pass --predatar PATH)" >&2; exit 2; }
if [ $rebuild -eq 1 ]; then
  "$here/build.sh" "$here/bin"
  python3 -c "import sys; sys.path.insert(0, '$here'); import apps; print(apps.sources_digest(), ' sources of bench/apps')" \
    >"$here/bin/SOURCES.sha256"
fi
if [ "$mode" = tables ]; then
  echo "# bench/apps/run.sh --size $size: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cores," \
       "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  exec python3 "$here/apps.py" tables "$predatar" "$size" "${apps[@]}"
fi
exec python3 "$here/apps.py" "$mode" "$predatar" "${apps[@]}"
