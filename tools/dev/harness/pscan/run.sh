#!/usr/bin/env bash
# pscan's harness on the GPU machine (built by build.sh beside this script), about a minute:
# the host emulation's verdict, then pscan_lib on every case (the op's tiles, the generic ones
# and the one-pass configurations), then pscan_lib1p (the library's column launch with the
# one pass) on the [N, T] gate cases without the one-pass rows. Extra options go to both.
cd "$(dirname "$0")"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
./pscan_onepass_emu | tail -1
echo "== pscan_lib $*"
timeout "${HARNESS_LIMIT:-40}" ./pscan_lib "$@" || echo "(pscan_lib: exit $?)"
echo "== pscan_lib1p --no-onepass --only 'per row' --only seed $*"
timeout "${HARNESS_LIMIT1P:-18}" ./pscan_lib1p --no-onepass --only 'per row' --only seed "$@" || echo "(pscan_lib1p: exit $?)"
