"""Charts and tables from the benchmarks' JSON files, written into docs/benchmarks.md.

    python3 tools/bench/report.py OUT1.json [OUT2.json ...] [--doc docs/benchmarks.md] [--no-charts]

Each JSON is what a benchmark writes with --json (bench_common.write_json: the script, the
environment it ran in and its rows). For every file the report gives the environment (commit,
machine, GPU, versions) and one table and one chart of the row times as multiples of the row's
own floor measured in the same run: the copy of the same bytes (`copy_ns`, `copy_ms`) or the
script's floor (`floor_ms`), or for an integration's path the direct call (`direct_ms`); a row without
one is shown in absolute time. bench_torch.py's file (its own layout) gives one report per table. Every other timing key
of a row (ending in `_ns` or `_ms`) is a series: ours, NumPy, torch, JAX, Paddle, fla, as the
script measured them. Charts (matplotlib, `pip install matplotlib`) go to docs/img/; the text
goes between the markers `<!-- report:begin -->` and `<!-- report:end -->` of the document,
which are added at its end the first time.
"""
import argparse
import json
import os
import sys

BEGIN, END = "<!-- report:begin -->", "<!-- report:end -->"
FLOORS = ("copy_ns", "copy_ms", "floor_ms", "direct_ms")  # direct_ms: the direct call, for the integrations' paths
ROW_KEYS = ("case", "dtype", "backend", "op", "T", "form")


def load(path):
    """The reports of one JSON file: one, or for bench_torch.py's file (its own layout: the
    tables `overhead`, `large` and `fla`) one per table."""
    with open(path) as f:
        data = json.load(f)
    if isinstance(data, list):  # a file from before the environment was recorded
        data = {"script": os.path.basename(path), "environment": {}, "rows": data}
    if "rows" not in data and any(k in data for k in ("overhead", "large", "fla")):
        return torch_reports(data)
    return [data]


def torch_reports(data):
    """bench_torch.py's tables as reports. Per call and at 2^26 elements the floor is the direct
    call (`direct_ms`: the same op through _C on the same memory), so a bar is what the torch
    path costs as a multiple of it; gla beside fla's chunk_gla is in absolute ms."""
    env, out = data.get("environment", {}), []
    path = env.get("torch_path", "?")
    if data.get("overhead"):
        rows = [{"case": f"{r['op']}, one small call", "direct_ms": r["direct"] / 1e3,
                 f"torch_op_{path}_ms": r["torch"] / 1e3, "trivial_custom_op_ms": r["trivial"] / 1e3,
                 **({"torch_op_python_ms": r["torch_py"] / 1e3} if "torch_py" in r else {})}
                for r in data["overhead"]]
        out.append({"script": "bench_torch.py: per call, as a multiple of the direct call", "environment": env,
                    "rows": rows})
    if data.get("large"):
        rows = [{"case": f"{r['op']}, 2^{r['elements'].bit_length() - 1} elements, {r['calls']} call(s) per sync",
                 "direct_ms": r["direct_ms"], f"torch_op_{path}_ms": r["torch_ms"],
                 **({"torch_op_python_ms": r["torch_py_ms"]} if "torch_py_ms" in r else {})}
                for r in data["large"]]
        out.append({"script": "bench_torch.py: large, as a multiple of the direct call", "environment": env,
                    "rows": rows})
    if data.get("fla"):
        rows = []
        for r in data["fla"]:
            shape = f"B {r['B']} T {r['T']} H {r['H']} Dk {r['Dk']} Dv {r['Dv']}"
            rows.append({"case": f"gla {shape}, forward", "ours_ms": r["ours_fwd_ms"], "fla_ms": r["fla_fwd_ms"]})
            rows.append({"case": f"gla {shape}, forward+backward", "ours_ms": r["ours_fwd_bwd_ms"],
                         "fla_ms": r["fla_fwd_bwd_ms"]})
        out.append({"script": "bench_torch.py: gla beside fla's chunk_gla (ms)", "environment": env, "rows": rows,
                    "note": data.get("note")})
    return out


def row_label(r):
    return ", ".join(str(r[k]) for k in ROW_KEYS if k in r)


def series_of(rows):
    """Timing keys in the order first seen; the floor keys are not series."""
    keys = []
    for r in rows:
        for k, v in r.items():
            if (k.endswith("_ns") or k.endswith("_ms")) and k not in FLOORS and isinstance(v, (int, float)) \
                    and k not in keys:
                keys.append(k)
    return keys


def floor_of(r):
    return next(((k, r[k]) for k in FLOORS if isinstance(r.get(k), (int, float)) and r[k] > 0), (None, None))


def ratios(data):
    """[(label, floor key, {series: value as a multiple of the floor, or absolute})]."""
    out = []
    for r in data["rows"]:
        fk, fv = floor_of(r)
        out.append((row_label(r), fk, {k: (r[k] / fv if fv else r[k]) for k in series_of([r])}))
    return out


def env_line(env):
    keys = ("time_utc", "commit", "cpu", "cores", "gpu", "paddle_ops", "numpy", "torch", "jax", "paddle", "fla")
    parts = []
    for k in keys:
        if env.get(k) is not None:
            v = env[k]
            parts.append(f"{k} {'; '.join(v) if isinstance(v, list) else v}")
    if env.get("dirty"):
        parts.append("uncommitted changes")
    return ", ".join(parts) or "environment not recorded"


def table(data):
    rows = ratios(data)
    keys = series_of(data["rows"])
    lines = ["| row | floor | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 2)]
    for label, fk, vals in rows:
        cells = [f"{vals[k]:.2f}" if k in vals else "" for k in keys]
        lines.append(f"| {label} | {fk or 'absolute'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = ratios(data)
    keys = series_of(data["rows"])
    height = max(2.5, 0.35 * len(rows) * max(1, len(keys)) / 2 + 1)
    fig, ax = plt.subplots(figsize=(9, height))
    bar = 0.8 / max(1, len(keys))
    for i, k in enumerate(keys):
        ys = [j + i * bar for j in range(len(rows))]
        ax.barh(ys, [vals.get(k, 0) for _, _, vals in rows], height=bar, label=k)
    ax.set_yticks([j + 0.4 - bar / 2 for j in range(len(rows))])
    ax.set_yticklabels([label for label, _, _ in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    floors = {floor_of(r)[0] for r in data["rows"]}
    ax.set_xlabel("ms, log scale" if floors == {None} else
                  "time as a multiple of the row's floor (the table's floor column), log scale")
    ax.set_title(data["script"], fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render(files, doc_dir, charts):
    parts = [BEGIN, "## Latest measured run (tools/bench/report.py)", "",
             "Generated from the benchmarks' JSON; each value is the row's time as a multiple of its floor "
             "measured in the same run (absolute ms or ns where the row has none).", ""]
    for data in [d for path in files for d in load(path)]:
        parts += [f"### {data['script']}", "", env_line(data.get("environment", {})), ""]
        if data.get("note"):
            parts += [data["note"], ""]
        if charts:
            img_dir = os.path.join(doc_dir, "img")
            os.makedirs(img_dir, exist_ok=True)
            name = "".join(c if c.isalnum() else "_" for c in data["script"]).strip("_") + ".png"
            chart(data, os.path.join(img_dir, name))
            parts += [f"![{data['script']}](img/{name})", ""]
        parts += [table(data), ""]
    parts.append(END)
    return "\n".join(parts)


def splice(text, block):
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--doc", default=os.path.join(os.path.dirname(__file__), "..", "..", "docs", "benchmarks.md"))
    p.add_argument("--no-charts", action="store_true", help="tables only (no matplotlib needed)")
    args = p.parse_args(argv)
    charts = not args.no_charts
    if charts:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("report.py: matplotlib is not installed (pip install matplotlib), or pass --no-charts",
                  file=sys.stderr)
            return 2
    with open(args.doc) as f:
        text = f.read()
    block = render(args.files, os.path.dirname(os.path.abspath(args.doc)), charts)
    with open(args.doc, "w") as f:
        f.write(splice(text, block))
    print(f"report.py: {len(args.files)} run(s) written into {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
