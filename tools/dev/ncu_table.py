"""Nsight Compute's per-kernel metrics as a table, each kernel under the case it ran in, with
instructions and DRAM bytes per element (what issue 29's closing note asks of each missed cell).

On the GPU machine (gpu_machine.sh step `ncuinst`):
    ncu --profile-from-start off --csv --metrics <METRICS below> \
        python3 tools/bench/ncu_cases.py lcse lcse16 lcse64 lcse_grad cumsum > ncu_inst.csv
then, anywhere:
    python3 tools/dev/ncu_table.py ncu_inst.csv

ncu_cases.py prints "case: <op> <dtype> <shape> axis <a> elements <n>" before each profiled call;
rows of ncu's CSV (lines that start with a quote) are pivoted to one row per kernel launch, each
under the last case line printed before it. Where ncu prints its results only after the
application's output, every kernel falls under the last case: read them in launch order against
the case lines then.
"""
import argparse
import csv
import io
import re
import sys

METRICS = ["gpu__time_duration.sum", "dram__bytes.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed", "smsp__inst_executed.sum",
           "launch__registers_per_thread", "sm__warps_active.avg.pct_of_peak_sustained_active"]


def parse(text):
    """[(case or None, {metric: value, 'kernel': name, 'grid': ..., 'block': ...}), ...] in order."""
    header, launches, order, case = None, {}, [], None
    for line in text.splitlines():
        if line.startswith("case: "):
            case = line[6:].strip()
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
        scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6,
                 "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1.0)
        launches[key][name] = v * scale
    return [launches[k] for k in order]


def short(name, width=60):
    name = re.sub(r"phi::funcs::(scan_gpu::)?", "", name)
    return name if len(name) <= width else name[: width - 1] + "…"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--width", type=int, default=60)
    args = ap.parse_args()
    rows = parse(open(args.csv, errors="replace").read())
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
