"""tools/bench/report.py: the tables it writes into the benchmarks document (charts need
matplotlib, which the test command does not install; the tables are the same code path)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench"))
import report  # noqa: E402


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return str(p)


def test_ratios_to_the_rows_own_floor_and_absolute_without_one(tmp_path):
    f = write(tmp_path, "a.json", {"script": "bench_x", "environment": {"commit": "abc1234", "cpu": "X"},
                                   "rows": [{"case": "1-D", "dtype": "float32", "copy_ns": 0.5, "lcse_ns": 2.0,
                                             "np_lae_ns": 16.0},
                                            {"case": "gla", "ours_ms": 3.0}]})
    doc = tmp_path / "bench.md"
    doc.write_text("# title\n\ntext\n")
    assert report.main([f, "--doc", str(doc), "--no-charts"]) == 0
    text = doc.read_text()
    assert text.startswith("# title\n\ntext\n")
    assert "commit abc1234, cpu X" in text
    assert "| 1-D, float32 | copy_ns | 4.00 | 32.00 |  |" in text  # 2.0 / 0.5 and 16 / 0.5
    assert "| gla | absolute |  |  | 3.00 |" in text


def test_second_run_replaces_the_block_and_keeps_the_rest(tmp_path):
    rows = [{"case": "c", "copy_ms": 1.0, "ours_ms": 1.5}]
    f1 = write(tmp_path, "1.json", {"script": "s1", "environment": {}, "rows": rows})
    f2 = write(tmp_path, "2.json", rows)  # the old format: a bare list of rows
    doc = tmp_path / "bench.md"
    doc.write_text("# head\n")
    report.main([f1, "--doc", str(doc), "--no-charts"])
    doc.write_text(doc.read_text() + "\n## after\n")
    report.main([f2, "--doc", str(doc), "--no-charts"])
    text = doc.read_text()
    assert text.count(report.BEGIN) == 1 and text.count(report.END) == 1
    assert "### s1" not in text and "### 2.json" in text and "environment not recorded" in text
    assert text.startswith("# head\n") and text.rstrip().endswith("## after")
    assert "| c | copy_ms | 1.50 |" in text


def test_bench_torch_file_gives_a_report_per_table_against_the_direct_call(tmp_path):
    """bench_torch.py's own layout: per call and at 2^26 the torch op as a multiple of the
    direct call; gla beside fla in absolute ms, with the file's note."""
    f = write(tmp_path, "t.json", {
        "environment": {"commit": "abc1234", "torch_path": "cpp"},
        "overhead": [{"op": "cumsum", "direct": 5.0, "torch": 15.0, "trivial": 12.0, "torch_py": 20.0}],
        "large": [{"op": "cumsum", "elements": 1 << 26, "calls": 8, "direct_ms": 0.5, "torch_ms": 0.51}],
        "fla": [{"B": 1, "T": 64, "H": 2, "Dk": 16, "Dv": 16, "ours_fwd_ms": 2.0, "fla_fwd_ms": 1.0,
                 "ours_fwd_bwd_ms": 6.0, "fla_fwd_bwd_ms": 3.0}],
        "note": "one row"})
    doc = tmp_path / "bench.md"
    doc.write_text("# t\n")
    assert report.main([f, "--doc", str(doc), "--no-charts"]) == 0
    text = doc.read_text()
    assert text.count("### bench_torch.py") == 3
    assert "| cumsum, one small call | direct_ms | 3.00 | 2.40 | 4.00 |" in text  # 15 / 5, 12 / 5, 20 / 5
    assert "| cumsum, 2^26 elements, 8 call(s) per sync | direct_ms | 1.02 |" in text
    assert "| gla B 1 T 64 H 2 Dk 16 Dv 16, forward+backward | absolute | 6.00 | 3.00 |" in text
    assert "one row" in text


# ncu's CSV as `ncu --csv` prints it: a header line, then a line per kernel launch and metric.
NCU_HEAD = '"ID","Process ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"'


def ncu_row(i, name, metric, unit, value, block="(512, 1, 1)", grid="(64, 1, 1)"):
    return '"%d","7","%s","%s","%s","%s","%s","%s"' % (i, name, block, grid, metric, unit, value)


def import_ncu_table():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "dev"))
    import ncu_table
    return ncu_table


def test_ncu_table_pivots_metrics_per_launch_under_its_case(tmp_path, monkeypatch, capsys):
    """tools/dev/ncu_table.py: ncu's CSV rows (one per metric) become one row per kernel launch,
    under the case line printed before it, with units scaled and per-element figures."""
    ncu_table = import_ncu_table()
    head, row = NCU_HEAD, ncu_row
    text = "\n".join([
        "==PROF== Connected", "case: cumsum float32 [1024] axis 0 elements 1024", head,
        row(0, "K0", "gpu__time_duration.sum", "nsecond", "2,000"),
        row(0, "K0", "smsp__inst_executed.sum", "inst", "64"),
        row(0, "K0", "dram__bytes.sum", "Kbyte", "8"),
        "case: cumsum int64 [512] axis 0 elements 512", head,
        row(1, "K1", "gpu__time_duration.sum", "usecond", "3.5"),
        row(1, "K1", "smsp__inst_executed.sum", "inst", "n/a")])
    rows = ncu_table.parse(text)
    assert [r["kernel"] for r in rows] == ["K0", "K1"]
    assert rows[0]["case"].startswith("cumsum float32") and rows[1]["case"].startswith("cumsum int64")
    assert rows[0]["gpu__time_duration.sum"] == 2.0  # µs
    assert rows[0]["dram__bytes.sum"] == 8000.0 and rows[0]["smsp__inst_executed.sum"] == 64.0
    assert rows[1]["gpu__time_duration.sum"] == 3.5 and "smsp__inst_executed.sum" not in rows[1]
    f = tmp_path / "ncu.csv"
    f.write_text(text)
    monkeypatch.setattr(sys, "argv", ["ncu_table.py", str(f)])
    ncu_table.main()
    out = capsys.readouterr().out
    assert "| K0 | (64, 1, 1) x (512, 1, 1) | 0 | 2.0 |" in out
    assert out.splitlines()[2].endswith("| 2.0 | 7.8 |")  # 64 x 32 / 1024 instructions, 8000 / 1024 bytes


def test_ncu_table_attributes_launches_by_marker_or_counts():
    """ncu prints its CSV after the application's case lines: the k-th ncu_case_marker launch opens
    the k-th case (markers left out), or --per-case gives each case's launch count; ncu 2025's
    unit names (ns, byte) are scaled like the older ones."""
    ncu_table = import_ncu_table()
    head = NCU_HEAD

    def row(i, name, value):
        return ncu_row(i, name, "gpu__time_duration.sum", "ns", value, "(256, 1, 1)", "(8, 1, 1)")
    cases = ["case: a float32 [4] axis 0 elements 4", "case: b float32 [8] axis 0 elements 8"]
    marked = "\n".join(cases + [head, row(0, "ncu_case_marker", "1,000"), row(1, "KA", "4,000"),
                                row(2, "ncu_case_marker", "1,000"), row(3, "KB1", "2,000"), row(4, "KB2", "3,000")])
    rows = ncu_table.parse(marked)
    assert [(r["kernel"], r["case"][0]) for r in rows] == [("KA", "a"), ("KB1", "b"), ("KB2", "b")]
    assert rows[0]["gpu__time_duration.sum"] == 4.0  # ns -> µs
    plain = "\n".join(cases + [head, row(0, "KA", "1"), row(1, "KB1", "1"), row(2, "KB2", "1")])
    assert [r["case"][0] for r in ncu_table.parse(plain)] == ["b", "b", "b"]  # no markers: the last case line
    assert [r["case"][0] for r in ncu_table.parse(plain, [1, 2])] == ["a", "b", "b"]
    with pytest.raises(ValueError):
        ncu_table.parse(plain, [2, 2])
