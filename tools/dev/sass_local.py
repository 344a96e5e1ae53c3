#!/usr/bin/env python3
"""Local-memory traffic of GPU kernels, read from their SASS, without a GPU.

ptxas -v reports a kernel's stack frame and spills, but not where its local-memory accesses sit:
a 16-float array the compiler keeps in local memory from the loads on (written on every tile)
and one written only on a rare path give the same report. The twelfth session's float32
logcumsumexp 1-D +7 % on the H200 was the first kind (four STL.128 a thread after the loads,
BlockRowKernel<LseBlockTile<512, 16, float>>), found by reading the SASS.

For each kernel of each cubin this prints its STL / LDL counts and where the first STL lies: in
instructions from the kernel's start, and after how many barriers (BAR.SYNC) and predicated
branches (@P BRA) in program order. It is a comparison, not a verdict: two builds of the same
kernel side by side show a store that moved earlier (before the loads' first block reduction,
for instance: fewer barriers before it) or a new one at once. The +7 % kernel: 30 STL, the first
after 1 barrier; before the change and after the fix: 26, the first after 3.

Usage:
  nvcc ... -cubin -o k.cubin file.cu      (one cubin per build; -arch=sm_90a)
  python3 tools/dev/sass_local.py k_before.cubin k_after.cubin [--match LseBlockTile]

nvdisasm comes from the CUDA toolkit when it has one, or from PyPI's nvidia-cuda-nvdisasm wheel,
fetched once into ~/.cache/paddle_ops/nvdisasm (pip download; needs PyPI).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import zipfile

CACHE = os.path.expanduser("~/.cache/paddle_ops/nvdisasm")
WHEEL = "nvidia-cuda-nvdisasm==13.2.86"


def nvdisasm():
    for cand in (shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm"):
        if cand and os.path.exists(cand):
            return cand
    found = glob.glob(os.path.join(CACHE, "**", "bin", "nvdisasm"), recursive=True)
    if not found:
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", CACHE, WHEEL], check=True)
        for whl in glob.glob(os.path.join(CACHE, "*.whl")):
            zipfile.ZipFile(whl).extractall(CACHE)
        found = glob.glob(os.path.join(CACHE, "**", "bin", "nvdisasm"), recursive=True)
    if not found:
        sys.exit("sass_local.py: no nvdisasm (toolkit or wheel)")
    os.chmod(found[0], 0o755)
    return found[0]


def kernels(sass):
    """(name, [instruction mnemonics with predicate]) for each function of nvdisasm's output."""
    out, name, ins = [], None, []
    for line in sass.splitlines():
        m = re.match(r"\s*\.text\.(\S+):", line)
        if m:
            if name:
                out.append((name, ins))
            name, ins = m.group(1), []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and name and m.group(2) != "NOP":
            ins.append(((m.group(1) or "").strip(), m.group(2)))
    if name:
        out.append((name, ins))
    return out


def report(path, tool, match):
    sass = subprocess.run([tool, "-c", path], check=True, capture_output=True, text=True).stdout
    rows = []
    for name, ins in kernels(sass):
        if match and match not in name:
            continue
        stl = [i for i, (_, op) in enumerate(ins) if op.startswith("STL")]
        ldl = sum(1 for _, op in ins if op.startswith("LDL"))
        first, bars, branches = "-", "-", "-"
        if stl:
            first = stl[0]
            bars = sum(1 for _, op in ins[: stl[0]] if op.startswith("BAR.SYNC"))
            branches = sum(1 for pred, op in ins[: stl[0]] if op.startswith("BRA") and pred)
        rows.append((name, len(ins), len(stl), ldl, first, bars, branches))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cubins", nargs="+")
    ap.add_argument("--match", default="", help="only kernels whose mangled name holds this")
    a = ap.parse_args()
    tool = nvdisasm()
    print("| cubin | kernel | instructions | STL | LDL | first STL at | barriers before it | @P BRA before it |")
    print("|---|---|---|---|---|---|---|---|")
    for path in a.cubins:
        for name, n, stl, ldl, first, bars, br in report(path, tool, a.match):
            short = name if len(name) <= 90 else name[:60] + "..." + name[-27:]
            print(f"| {os.path.basename(path)} | {short} | {n} | {stl} | {ldl} | {first} | {bars} | {br} |")


if __name__ == "__main__":
    main()
