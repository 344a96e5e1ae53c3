#!/usr/bin/env bash
# A forward launch plan's device run, from the folder holding gla_harness (e.g. .dev/glasplit/):
#   run_fwd_plan.sh split|varlen [memcheck]
# split: `--split` (its checks on awkward shapes, then its timed shapes beside the unsplit kernel);
# varlen: `--varlen` (its checks, then bench_gla.py's varlen case and others timed: one launch
# beside a launch per sequence). Then `--quick` (the plain kernel's own checks, unchanged), then
# with `memcheck` compute-sanitizer's memcheck on `--split-quick` / `--varlen-quick`. Each under a
# time limit.
cd "$(dirname "$0")"
plan=${1:?"usage: run_fwd_plan.sh split|varlen [memcheck]"}
case "$plan" in
  split) limit=150; mc_limit=200 ;;
  varlen) limit=200; mc_limit=240 ;;
  *) echo "run_fwd_plan.sh: unknown plan '$plan' (split or varlen)" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout $limit ./gla_harness --$plan
echo "$plan exit: $?"
timeout 90 ./gla_harness --quick
echo "quick exit: $?"
if [ "${2:-}" = memcheck ]; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout $mc_limit "$cs" --tool memcheck ./gla_harness --$plan-quick | tail -4
  echo "memcheck exit: ${PIPESTATUS[0]}"
fi
