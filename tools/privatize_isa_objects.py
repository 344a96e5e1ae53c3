#!/usr/bin/env python3
"""Makes each per-ISA object's shared definitions private to it (a build step, CMakeLists.txt).

    python3 tools/privatize_isa_objects.py --out-dir DIR [--objcopy P] [--readelf P] OBJ ...

The per-ISA objects (kernels/**/*_avx2.cc, *_avx512.cc) are compiled with -mavx2 / -mavx512*.
Every inline function or template instance they emit out of line (std::, Eigen::, fmt::, our own
headers' inline helpers) is a weak COMDAT definition that baseline objects may also emit: the
linker keeps one copy per shared library for every caller, and if it kept the AVX copy, baseline
code would run AVX on a CPU without it. So, for each OBJ, this writes DIR/<stem>.o (stem: the
source's name, e.g. scan_simd_avx2) in which every function outside an instruction set's own
namespaces (`avx2::`, `avx512::`, `paddle_ops_eigen_avx2::`, `paddle_ops_eigen_avx512::`; the
dispatch entry points are there) is renamed <symbol>.isa_<stem> (it demangles as
"... [clone .isa_<stem>]") and made local, with the COMDAT groups they sign and the vtables (which
point at them). Nothing outside the object can then bind to its copies, nor it to anyone else's;
the link order no longer matters. Other shared data (typeinfo, static locals of inline functions,
their guards) holds no code and stays shared, so it stays one object for the whole library.

A strong global function outside the ISA namespaces is an error (a baseline caller would reach it
by name without the dispatch): put it in the object's ISA namespace.
"""
import argparse
import os
import re
import subprocess
import sys

ISA_NAMESPACE = re.compile(r"(?<![A-Za-z0-9_])(?:paddle_ops_eigen_)?(avx2|avx512)::")
# Data that holds code addresses: vtables, VTTs, construction vtables.
CODE_POINTER_DATA = ("_ZTV", "_ZTT", "_ZTC")
SYM_RE = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+\d+\s+(\w+)\s+(\w+)\s+\w+\s+(\w+)\s+(.*)$")


def symbols(path, readelf, demangle):
    """[(type, bind, section index, name)] of the object's symbol table, in order."""
    args = [readelf, "-W", "-s"] + (["-C"] if demangle else []) + [path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    in_symtab, rows = False, []
    for line in out.splitlines():
        if line.startswith("Symbol table"):
            in_symtab = "'.symtab'" in line
            continue
        m = SYM_RE.match(line)
        if in_symtab and m:
            rows.append(m.groups())
    return rows


def group_signatures(path, readelf):
    out = subprocess.run([readelf, "-W", "-g", path], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^COMDAT group section \[\s*\d+\] `[^']*' \[(.*)\] contains", out, re.M))


def demangled(name, raw, dem):
    return next((d[3] for r, d in zip(raw, dem) if r[3] == name), name)


def plan(path, readelf, stem):
    """(renames {old: new}, names to localize) for one object."""
    raw = symbols(path, readelf, False)
    dem = symbols(path, readelf, True)
    if len(raw) != len(dem):
        raise RuntimeError(f"{path}: readelf gave {len(raw)} symbols, {len(dem)} demangled")
    signatures = group_signatures(path, readelf)
    renames, localize, errors = {}, [], []
    suffix = ".isa_" + stem
    for (typ, bind, ndx, name), (_, _, _, pretty) in zip(raw, dem):
        if ndx == "UND" or not name or ISA_NAMESPACE.search(pretty):
            continue
        if typ == "FUNC" or (typ == "OBJECT" and name.startswith(CODE_POINTER_DATA)):
            if bind == "GLOBAL" and typ == "FUNC":
                errors.append(f"{path}: global function outside the ISA namespaces: {pretty}")
                continue
            renames[name] = name + suffix
            if bind != "LOCAL":
                localize.append(name + suffix)
    # A group signed by a symbol that is not itself defined code or data (a constructor's or
    # destructor's C5/D5 group: its members are the C1/C2 or D0/D1/D2 functions) is renamed too.
    types = {name: typ for typ, _, ndx, name in raw}
    for sig in signatures:
        if types.get(sig) == "NOTYPE" and not ISA_NAMESPACE.search(demangled(sig, raw, dem)):
            renames[sig] = sig + suffix
    if errors:
        raise RuntimeError("\n".join(errors))
    return renames, localize


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objects", nargs="+")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--objcopy", default="objcopy")
    ap.add_argument("--readelf", default="readelf")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    for obj in args.objects:
        stem = os.path.basename(obj).split(".")[0]
        if not re.search(r"_(avx2|avx512)$", stem):
            print(f"{obj}: not a per-ISA object (<name>_avx2 / <name>_avx512)", file=sys.stderr)
            return 1
        try:
            renames, localize = plan(obj, args.readelf, stem)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            print(e, file=sys.stderr)
            return 1
        out = os.path.join(args.out_dir, stem + ".o")
        map_file, loc_file = out + ".redefine", out + ".localize"
        with open(map_file, "w") as f:
            f.writelines(f"{old} {new}\n" for old, new in sorted(renames.items()))
        with open(loc_file, "w") as f:
            f.writelines(f"{name}\n" for name in sorted(localize))
        # (objcopy fails, saying nothing, on an empty --localize-symbols file)
        opts = [f"--redefine-syms={map_file}"] + ([f"--localize-symbols={loc_file}"] if localize else [])
        res = subprocess.run([args.objcopy, *opts, obj, out], capture_output=True, text=True)
        if res.returncode != 0:
            print(f"{args.objcopy} {obj}: {res.stderr.strip()}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
