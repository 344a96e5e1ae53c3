#!/usr/bin/env python3
"""The per-ISA leak check: no code beyond the x86-64 baseline outside the run-time dispatched kernels.

    python3 tools/dev/check_isa_leaks.py [--objdump PATH] [--list] FILE.so ...

The library is compiled for the x86-64 baseline (SSE2), except the per-ISA translation units
(kernels/**/*_avx2.cc, *_avx512.cc, built with -mavx2 ... / -mavx512* in the PADDLE_OPS_CPU_SIMD
block of CMakeLists.txt), which are only called after cpu_isa.cc's CPUID check. A function those
objects compile that the linker could also hand to baseline callers (an inline function or a
template: a weak/COMDAT symbol, one copy kept per shared library) would run AVX code on a CPU
without it. This script disassembles each FILE (objdump -d) and finds every function containing
an instruction beyond the baseline:
  - VEX- or EVEX-encoded (first opcode byte C4/C5/62: AVX, AVX2, FMA, F16C, BMI, AVX-512),
  - any %ymm, %zmm or %k mask register operand,
  - popcnt / lzcnt (enabled by -mavx2's implied SSE4.2/POPCNT, legacy-encoded),
and reports those that are not per-ISA code. A function is per-ISA code when its demangled name
lies in (or is a template over) an instruction set's own namespace (`avx2::`, `avx512::`,
`paddle_ops_eigen_avx2::`, `paddle_ops_eigen_avx512::`) or in a Highway target's (`N_AVX2::`,
`N_AVX3::`, ...: the one-source kernels of hwy/foreach_target.h), or when it carries the clone suffix that
the build gives the per-ISA objects' private copies (`.isa_<object>`, see
tools/privatize_isa_objects.py); an AVX2 one must also hold no AVX-512 instruction (EVEX,
%zmm, %k). Everything else, with the first offending instruction, is a leak.

Exits 1 when a leak is found (or objdump fails), 0 otherwise. --list prints every function with
instructions beyond the baseline and its class instead (for inspection).
"""
import argparse
import re
import subprocess
import sys

# The namespaces of per-ISA code, by level ("avx2" code may use VEX, "avx512" code also EVEX).
ISA_NAMESPACE = re.compile(r"(?<![A-Za-z0-9_])(?:paddle_ops_eigen_)?(avx2|avx512)::")
# Highway's per-target namespaces (hwy/foreach_target.h compiles a target's code in N_<TARGET>::,
# under that target's attributes, and calls it only through the run-time dispatch): x86 targets
# below AVX2 may use SSE4.2 / POPCNT, AVX2 VEX, AVX3 also EVEX.
HWY_NAMESPACE = re.compile(r"(?<![A-Za-z0-9_])N_(SSSE3|SSE4|AVX2|AVX3|AVX3_DL)::")
HWY_LEVEL = {"SSSE3": 1, "SSE4": 1, "AVX2": 1, "AVX3": 2, "AVX3_DL": 2}
# The suffix of the per-ISA objects' private copies (tools/privatize_isa_objects.py): "[clone
# .isa_<object>]" once demangled, or as it is on a name that is not mangled (".omp_outlined.").
PRIVATE_CLONE = re.compile(r"\.isa_[a-z0-9_]*?_(avx2|avx512)\b")
# Legacy-encoded instructions past SSE2 that the per-ISA flags enable. tzcnt is not here: it runs
# as bsf on older CPUs and the compiler emits it (rep bsf) for the baseline too.
LEGACY_BEYOND = {"popcnt", "lzcnt"}
# Prefix bytes that may precede a VEX/EVEX opcode byte in 64-bit mode (segment, address size).
SKIP_PREFIX = {"26", "2e", "36", "3e", "64", "65", "67"}

UNNAMED = "<unnamed code at 0x"

FUNC_RE = re.compile(r"^([0-9a-f]+) <(.*)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$")


def insn_level(raw, text):
    """0: baseline; 1: AVX/AVX2/FMA/F16C/BMI (VEX) or POPCNT; 2: AVX-512 (EVEX, zmm, k masks)."""
    op = next((b for b in raw.split() if b not in SKIP_PREFIX), "")
    if op == "62" or "%zmm" in text or re.search(r"%k[0-7]\b", text):
        return 2
    if op in ("c4", "c5") or "%ymm" in text:
        return 1
    mnemonic = text.split(None, 1)[0] if text else ""
    return 1 if mnemonic in LEGACY_BEYOND else 0


def fde_starts(path, readelf):
    """The start addresses of the file's functions by their unwind entries (.eh_frame FDEs)."""
    try:
        out = subprocess.run([readelf, "--debug-dump=frames", path], capture_output=True, text=True,
                             errors="replace").stdout
    except OSError:
        return set()
    return {int(m.group(1), 16) for m in re.finditer(r" FDE cie=\S+ pc=([0-9a-f]+)\.\.", out)}


def functions_beyond_baseline(path, objdump, readelf="readelf"):
    """Yields (name, level, first instruction at that level) for each function past the baseline.

    A function starts at a symbol or at an unwind entry (FDE); one with no symbol (a stripped
    file's local and hidden functions) is named UNNAMED + its address."""
    starts = fde_starts(path, readelf)
    proc = subprocess.Popen([objdump, "-d", "-w", "-C", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace")
    name, start, level, first, skip = None, -1, 0, "", -1
    for line in proc.stdout:
        m = FUNC_RE.match(line)
        if m:
            if name is not None and level:
                yield name, level, first
            name, start, level, first = m.group(2), int(m.group(1), 16), 0, ""
            continue
        m = INSN_RE.match(line)
        if m and name is not None:
            addr, raw = int(m.group(1), 16), m.group(2).split()
            if addr in starts and addr != start:
                if level:
                    yield name, level, first
                name, start, level, first = f"{UNNAMED}{addr:x}>", addr, 0, ""
            if addr == start and raw[0] == "eb" and len(raw) == 2 and int(raw[1], 16) <= 16:
                # A function that opens by jumping over a few bytes: data, not code (clang's
                # -fsanitize=function signature); its bytes would decode as anything.
                skip = addr + 2 + int(raw[1], 16)
            if addr < skip or "(bad)" in m.group(3):
                continue
            lv = insn_level(m.group(2), m.group(3))
            if lv > level:
                level, first = lv, f"{m.group(1)}: {m.group(3).strip()}"
    if name is not None and level:
        yield name, level, first
    err = proc.stderr.read()
    if proc.wait() != 0:
        raise RuntimeError(f"{objdump} -d {path} failed: {err.strip()}")


def allowed_level(name):
    """The highest level the function may use: 0 for baseline code, 1 or 2 for per-ISA code."""
    isas = ISA_NAMESPACE.findall(name) + PRIVATE_CLONE.findall(name)
    hwy = max((HWY_LEVEL[t] for t in HWY_NAMESPACE.findall(name)), default=0)
    if not isas:
        return hwy
    return max(hwy, 2 if "avx512" in isas else 1)


def leaks_of(functions):
    """([(name, level, first instruction)] of the named functions past their allowed level, the
    number of unnamed functions past the baseline) of functions_beyond_baseline's list."""
    leaks, unnamed = [], 0
    for n, lv, first in functions:
        if n.startswith(UNNAMED):
            unnamed += 1
        elif lv > allowed_level(n):
            leaks.append((n, lv, first))
    return leaks, unnamed


def find_leaks(path, objdump="objdump", readelf="readelf"):
    return leaks_of(functions_beyond_baseline(path, objdump, readelf))


LEVEL_NAME = {1: "AVX/VEX", 2: "AVX-512"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--readelf", default="readelf")
    ap.add_argument("--list", action="store_true", help="list every function past the baseline")
    args = ap.parse_args(argv)
    bad = 0
    for path in args.files:
        try:
            if args.list:
                for n, lv, first in functions_beyond_baseline(path, args.objdump, args.readelf):
                    kind = "unnamed" if n.startswith(UNNAMED) else "leak" if lv > allowed_level(n) else "per-ISA"
                    print(f"{path}: {kind} {LEVEL_NAME[lv]}: {n}   ({first})")
                continue
            leaks, unnamed = find_leaks(path, args.objdump, args.readelf)
        except (OSError, RuntimeError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad = 1
            continue
        for n, lv, first in leaks:
            print(f"{path}: {LEVEL_NAME[lv]} outside the dispatched code: {n}   ({first})")
        note = f"; {unnamed} unnamed function(s) past the baseline not checked (no symbol: stripped)" if unnamed else ""
        print(f"{path}: {len(leaks)} leak(s){note}")
        bad |= bool(leaks)
    return bad


if __name__ == "__main__":
    sys.exit(main())
