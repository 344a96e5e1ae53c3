#!/usr/bin/env bash
# The packed sequences' device run, from the folder holding gla_harness (e.g. .dev/glavarlen/):
# `--varlen` (its checks, then bench_gla.py's varlen case and others timed: one launch beside a
# launch per sequence), then `--quick` (the plain kernel's own checks, unchanged), then with
# `memcheck` compute-sanitizer's memcheck on `--varlen-quick`. Each under a time limit.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout 200 ./gla_harness --varlen
echo "varlen exit: $?"
timeout 90 ./gla_harness --quick
echo "quick exit: $?"
if [ "${1:-}" = memcheck ]; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout 240 "$cs" --tool memcheck ./gla_harness --varlen-quick | tail -4
  echo "memcheck exit: ${PIPESTATUS[0]}"
fi
