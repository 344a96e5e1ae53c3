#!/usr/bin/env bash
# The backward harness's device run, from the folder build.sh bwd wrote (copied as one folder,
# e.g. .dev/glabwd/): the host check of the chunk algorithm, then the GPU table (120 s at most).
# No arguments.
cd "$(dirname "$0")"
./gla_bwd_host_check | tail -1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout 120 ./gla_bwd_harness
echo "harness exit: $?"
