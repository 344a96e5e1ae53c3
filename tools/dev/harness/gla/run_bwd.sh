#!/usr/bin/env bash
# The backward harness's device run, from the folder build.sh bwd wrote (copied as one folder,
# e.g. .dev/glabwd/): the GPU table (120 s at most), then with `memcheck` compute-sanitizer's
# memcheck on the small cases (--quick). The host checks (gla_bwd_host_check, the CPU emulation
# of the kernels) run on the build machine, not here.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout 120 ./gla_bwd_harness
echo "harness exit: $?"
if [ "${1:-}" = memcheck ]; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout 100 "$cs" --tool memcheck ./gla_bwd_harness --quick | tail -4
  echo "memcheck exit: ${PIPESTATUS[0]}"
fi
