#!/usr/bin/env bash
# The README's first command ends here: run predatar on a bundled example.
set -u
build=${1:-build}
echo "\$ predatar check examples/gwcp_figure.litmus --detectors all"
"$build/predatar" check examples/gwcp_figure.litmus --detectors all
code=$?
# Exit code 1 means "races found": the example is meant to have them.
[ "$code" -le 1 ] || exit "$code"
exit 0
