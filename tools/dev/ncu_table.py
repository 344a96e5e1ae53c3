"""Nsight Compute's per-kernel metrics as a table, each kernel under the case it ran in, with
instructions and DRAM bytes per element (what issue 29's closing note asks of each missed cell).

On the GPU machine (gpu_machine.sh step `ncuinst`):
    ncu --profile-from-start off --csv --metrics <METRICS below> \
        python3 tools/bench/ncu_cases.py lcse lcse16 lcse64 lcse_grad cumsum > ncu_inst.csv
then, anywhere:
    python3 tools/dev/ncu_table.py ncu_inst.csv

ncu_cases.py prints "case: <op> <dtype> <shape> axis <a> elements <n>" before each profiled call
and, inside the profiled range, launches an empty kernel `ncu_case_marker` first. ncu prints its
CSV only after the application's output, so the case lines cannot sit between the rows: the k-th
marker launch opens the k-th case line's case (the markers themselves are left out of the table).
Without markers each launch falls under the last case line printed before it; `--per-case
1,1,3,...` (kernels a case launched, in order) gives the attribution by hand for such a run.
"""
import argparse
import csv
import io
import re
import sys

METRICS = ["gpu__time_duration.sum", "dram__bytes.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed", "smsp__inst_executed.sum",
           "launch__registers_per_thread", "sm__warps_active.avg.pct_of_peak_sustained_active"]


MARKER = "ncu_case_marker"
_SCALE = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6,
          "second": 1e6, "byte": 1.0, "Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9}


def parse(text, per_case=None):
    """[{metric: value, 'kernel': name, 'grid': ..., 'block': ..., 'case': label or None}, ...] in
    launch order. per_case: kernels each case launched, in the order of the case lines."""
    header, launches, order, case, cases = None, {}, [], None, []
    for line in text.splitlines():
        if line.startswith("case: "):
            case = line[6:].strip()
            cases.append(case)
            continue
        if not line.startswith('"'):
            continue
        row = next(csv.reader(io.StringIO(line)))
        if header is None or row[0] == "ID":
            header = row
            continue
        rec = dict(zip(header, row))
        key = (rec.get("Process ID", ""), rec.get("ID", ""))
        if key not in launches:
            launches[key] = {"kernel": rec.get("Kernel Name", "?"), "grid": rec.get("Grid Size", ""),
                             "block": rec.get("Block Size", ""), "case": case}
            order.append(key)
        name, unit, value = rec.get("Metric Name"), rec.get("Metric Unit", ""), rec.get("Metric Value", "")
        try:
            v = float(value.replace(",", ""))
        except ValueError:
            continue
        launches[key][name] = v * _SCALE.get(unit, 1.0)
    rows = [launches[k] for k in order]
    if per_case:
        if sum(per_case) != len(rows) or len(per_case) != len(cases):
            raise ValueError("--per-case: %d cases of %d launches, but the file has %d case lines and %d launches"
                             % (len(per_case), sum(per_case), len(cases), len(rows)))
        labels = [c for c, n in zip(cases, per_case) for _ in range(n)]
        for r, c in zip(rows, labels):
            r["case"] = c
    elif any(MARKER in r["kernel"] for r in rows):
        k = -1
        for r in rows:
            if MARKER in r["kernel"]:
                k += 1
            r["case"] = cases[k] if 0 <= k < len(cases) else None
        rows = [r for r in rows if MARKER not in r["kernel"]]
    return rows


def short(name, width=60):
    name = re.sub(r"^void |\b(phi|funcs|scan_gpu)::", "", name)  # ncu names them fully or not, by version
    return name if len(name) <= width else name[: width - 1] + "…"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--width", type=int, default=60)
    ap.add_argument("--per-case", help="kernels each case launched, in order (e.g. 1,1,3): a run without markers")
    args = ap.parse_args()
    per_case = [int(n) for n in args.per_case.split(",")] if args.per_case else None
    rows = parse(open(args.csv, errors="replace").read(), per_case)
    if not rows:
        sys.exit("no ncu rows in %s" % args.csv)
    print("| case | kernel | grid x block | regs | µs | DRAM % | SM % | warps % | inst / elem | DRAM B / elem |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        m = re.search(r"elements (\d+)", r["case"] or "")
        n = int(m.group(1)) if m else 0
        per = lambda v: "%.1f" % (v / n) if n and v is not None else "-"
        inst = r.get("smsp__inst_executed.sum")
        print("| %s | %s | %s x %s | %s | %.1f | %.0f | %.0f | %.0f | %s | %s |" % (
            (r["case"] or "-").replace(" elements", " n"), short(r["kernel"], args.width), r["grid"], r["block"],
            "%.0f" % r.get("launch__registers_per_thread", 0), r.get("gpu__time_duration.sum", 0),
            r.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", 0),
            r.get("sm__throughput.avg.pct_of_peak_sustained_elapsed", 0),
            r.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0),
            per(inst * 32 if inst is not None else None), per(r.get("dram__bytes.sum"))))
    print("\ninst / elem: thread instructions (warp instructions x 32, inactive lanes included) per element of the case.")


if __name__ == "__main__":
    main()
