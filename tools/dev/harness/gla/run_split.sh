#!/usr/bin/env bash
# The sequence split's device run, from the folder holding gla_harness (e.g. .dev/glasplit/):
# `--split` (its checks on awkward shapes, then its timed shapes beside the unsplit kernel), then
# `--quick` (the unsplit kernel's own checks, unchanged), then with `memcheck` compute-sanitizer's
# memcheck on the split's small cases. Each under a time limit.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout 150 ./gla_harness --split
echo "split exit: $?"
timeout 90 ./gla_harness --quick
echo "quick exit: $?"
if [ "${1:-}" = memcheck ]; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout 200 "$cs" --tool memcheck ./gla_harness --split-quick | tail -4
  echo "memcheck exit: ${PIPESTATUS[0]}"
fi
