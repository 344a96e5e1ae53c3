#!/usr/bin/env bash
# Runs every flood harness variant built beside this script (build.sh), each under a time limit
# (HARNESS_LIMIT seconds, default 60), with the given harness options.
cd "$(dirname "$0")"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
for b in ./flood_*; do
  echo "== $b $*"
  timeout "${HARNESS_LIMIT:-60}" "$b" "$@" || echo "($b: exit $?)"
done
