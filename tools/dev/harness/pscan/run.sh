#!/usr/bin/env bash
# pscan's harness on the GPU machine (built by build.sh beside this script), about a minute:
# the host emulation's verdict; pscan_lib on every case (the op's tiles, the generic ones and
# the one-pass configurations "1p"); the persistent one-pass configurations ("1pp") apart, on
# the [N, T] gate cases (a hang there cannot cost the rows before); pscan_lib1p (the library's
# column launch with the one pass) on the [N, T] gate cases. Extra options go to every run.
cd "$(dirname "$0")"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
./pscan_onepass_emu | tail -1
echo "== pscan_lib --no-persistent $*"
timeout "${HARNESS_LIMIT:-30}" ./pscan_lib --no-persistent "$@" || echo "(pscan_lib: exit $?)"
echo "== pscan_lib --persistent-only --only 'per row' --only seed $*"
timeout "${HARNESS_LIMIT_1PP:-14}" ./pscan_lib --persistent-only --only 'per row' --only seed "$@" || echo "(pscan_lib 1pp: exit $?)"
echo "== pscan_lib1p --no-onepass --only 'per row' --only seed $*"
timeout "${HARNESS_LIMIT_1P:-14}" ./pscan_lib1p --no-onepass --only 'per row' --only seed "$@" || echo "(pscan_lib1p: exit $?)"
