#!/usr/bin/env bash
# One tier of `make test`:  bash tests/ci_tier.sh NAME COMMAND [ARGS...]
#
# Runs COMMAND, keeps its whole output (for pytest, with its --durations=0 table) in reports/durations-NAME.txt,
# prints "tier NAME: N s" and exits with COMMAND's status. A script rather than a make line because make runs
# recipes in /bin/sh, where `| tee` would hide a failing pytest behind tee's exit code 0.
set -uo pipefail
name=$1
shift
mkdir -p reports
start=$(date +%s)
"$@" 2>&1 | tee "reports/durations-$name.txt"
status=$?
# printed on a failure too: a tier that fails late costs as much as one that passes, and CI budgets are tight
echo "tier $name: $(( $(date +%s) - start )) s"
exit $status
