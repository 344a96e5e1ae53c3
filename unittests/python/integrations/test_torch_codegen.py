"""tools/codegen/gen_torch.py: the torch op table generated from api_yaml/.

Needs only Python and PyYAML (not torch, not paddle_ops), so it runs in CI, where torch is
not installed; test_torch_ops.py registers the table with torch where torch is.
"""
import ast
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GEN = os.path.join(REPO, "tools", "codegen", "gen_torch.py")
OPS = os.path.join(REPO, "api_yaml", "ops.yaml")
BWD = os.path.join(REPO, "api_yaml", "backward.yaml")


def run(ops, bwd, out, gen=GEN):
    """Runs a one-file emitter (gen_torch.py by default; test_jax_codegen.py passes gen_jax.py)."""
    return subprocess.run([sys.executable, gen, "--ops", str(ops), "--backward", str(bwd), "--out", str(out)],
                          capture_output=True, text=True, timeout=60)


def literals(path, *names):
    """The literal values of the top-level assignments `names` of a generated file, read without
    importing it (it imports paddle_ops)."""
    found = {}
    for node in ast.parse(open(path, encoding="utf-8").read()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id in names:
            found[node.targets[0].id] = ast.literal_eval(node.value)
    missing = set(names) - set(found)
    assert not missing, f"no {sorted(missing)} in {path}"
    return [found[n] for n in names]


def table(path):
    """The OPS table of a generated file, by name."""
    (ops,) = literals(path, "OPS")
    return {e["name"]: e for e in ops}


def real_table(gen_run):
    """A module fixture: the file `gen_run` (a generator's run(ops, bwd, out)) writes from the
    real YAML (also test_jax_codegen.py's)."""
    @pytest.fixture(scope="module")
    def real(tmp_path_factory):
        out = tmp_path_factory.mktemp("gen") / "_generated.py"
        r = gen_run(OPS, BWD, out)
        assert r.returncode == 0, r.stderr
        return out
    return real


def check_deterministic_and_compiles(gen_run, real, tmp_path):
    again = tmp_path / "again.py"
    assert gen_run(OPS, BWD, again).returncode == 0
    assert real.read_text() == again.read_text()
    compile(real.read_text(), str(real), "exec")  # valid Python


real = real_table(run)


def test_deterministic_and_compiles(real, tmp_path):
    check_deterministic_and_compiles(run, real, tmp_path)


def test_every_op_and_output_set(real):
    t = table(real)
    sys.path.insert(0, os.path.dirname(GEN))
    try:
        import gen_torch
        import op_model
    finally:
        sys.path.pop(0)
    fwd, bwd = op_model.load(OPS, BWD)
    for op in fwd:  # every op of the YAML but the tensor arithmetic, and its grad op
        assert (op.name in t) == (op.name not in gen_torch.HELPERS)
        if op.name in t and op.backward:
            assert op.backward in t
    assert set(t) >= {
        "logcumsumexp", "logcumsumexp_grad", "cumsum", "cumsum_grad", "pscan", "pscan_grad",
        "pscan_grad_with_initial_state_grad", "right_flood", "right_flood_with_index", "right_flood_grad",
        "repeat_interleave", "repeat_interleave_grad", "repeat_interleave_with_tensor_index",
        "repeat_interleave_with_tensor_index_grad", "gla", "gla_with_final_state", "gla_grad",
        "gla_grad_with_initial_state_grad"}
    assert t["logcumsumexp"]["schema"] == ("(Tensor x, int axis=-1, bool flatten=False, bool exclusive=False, "
                                           "bool reverse=False) -> Tensor")
    assert t["cumsum"]["schema"].startswith("(Tensor x, Scalar axis=-1,")
    assert t["pscan"]["schema"] == "(Tensor a, Tensor x, Tensor? initial_state=None, bool reverse=False) -> Tensor"
    # the attribute that chooses the optional output is held, not in the schema
    assert t["right_flood"]["schema"] == '(Tensor x, int axis=-1, bool reverse=False, str hole="zero") -> Tensor'
    assert t["right_flood_with_index"]["schema"].endswith("-> (Tensor, Tensor)")
    assert ("const", True) in t["right_flood_with_index"]["call"]
    assert ("const", False) in t["right_flood"]["call"]
    # an optional tensor followed by an attribute without default takes no default
    assert t["gla"]["schema"] == ("(Tensor q, Tensor k, Tensor v, Tensor gk, Tensor? initial_state, "
                                  "Tensor? cu_seqlens, float scale, bool head_first=True) -> Tensor")
    assert t["gla"]["defaults"] == [True]
    # gla's backward without a final state passes None for final_state_grad; with it, its grad
    bw, bw2 = t["gla"]["backward"], t["gla_with_final_state"]["backward"]
    assert bw["args"][7] == ("const", None) and bw2["args"][7] == ("grad", 1)
    # the grad op that returns initial_state_grad is used when initial_state was given
    assert [(n, need) for n, need, _ in bw["variants"]] == [
        ("gla_grad", []), ("gla_grad_with_initial_state_grad", ["initial_state"])]
    assert bw["variants"][1][2] == [0, 1, 2, 3, 4]  # grads of q, k, v, gk, initial_state


def test_kernels_call_our_ops(real):
    text = real.read_text()
    assert ("def right_flood_with_index(x, axis=-1, reverse=False, hole='zero'):\n"
            "    to_ours, to_torch, leave = _converters(x)\n"
            "    try:\n"
            "        r = _ops.right_flood(to_ours(x), axis, reverse, hole, True)\n"
            "        return to_torch(r[0]), to_torch(r[1])\n"
            "    finally:\n"
            "        leave()") in text
    assert "r = _run('pscan_grad', [to_ours(a), None if initial_state is None else to_ours(initial_state)" in text


GEN_CPP = os.path.join(REPO, "tools", "codegen", "gen_torch_cpp.py")


def cpp_registrations(text):
    """{dispatch key: [torch op names]} of the TORCH_LIBRARY_IMPL blocks of a generated torch_ext.cc,
    and the names its KERNELS line lists."""
    blocks, key = {}, None
    for line in text.splitlines():
        if line.startswith("TORCH_LIBRARY_IMPL(paddle_ops, "):
            key = line.split(", ")[1]
            blocks[key] = []
        elif key and line.startswith('  m.impl("'):
            name = line.split('"')[1]
            assert f"TORCH_FN(po_torch_ops::{name}))" in line
            blocks[key].append(name)
        elif line.startswith("}"):
            key = None
    listed = next(ln for ln in text.splitlines() if ln.startswith("// KERNELS: "))[len("// KERNELS: "):].split(", ")
    return blocks, listed


def test_cpp_kernels_cover_every_op(real, tmp_path):
    """gen_torch_cpp.py gives every op of the torch table a C++ kernel, registered for CPU and
    (under PO_TORCH_CUDA) CUDA, with the schema's signature and the YAML argument order."""
    t = table(real)
    out = tmp_path / "torch_ext.cc"
    r = run(OPS, BWD, out, gen=GEN_CPP)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert run(OPS, BWD, tmp_path / "again.cc", gen=GEN_CPP).returncode == 0
    assert (tmp_path / "again.cc").read_text() == text  # deterministic
    assert all(e["cpp"] for e in t.values())  # every op of api_yaml/ is in the runtime's table
    blocks, listed = cpp_registrations(text)
    assert set(blocks) == {"CPU", "CUDA"}
    assert sorted(blocks["CPU"]) == sorted(blocks["CUDA"]) == sorted(listed) == sorted(t)
    assert text.index("#ifdef PO_TORCH_CUDA") < text.index("TORCH_LIBRARY_IMPL(paddle_ops, CUDA")
    for name in t:
        assert f'po_torch::Call po_call(po_op, "{name}", ' in text
    assert ("at::Tensor logcumsumexp(const at::Tensor& x, int64_t axis, bool flatten, bool exclusive, "
            "bool reverse) {") in text
    assert ("std::tuple<at::Tensor, at::Tensor> gla_with_final_state(const at::Tensor& q, const at::Tensor& k, "
            "const at::Tensor& v, const at::Tensor& gk, const std::optional<at::Tensor>& initial_state, "
            "const std::optional<at::Tensor>& cu_seqlens, double scale, bool head_first) {") in text
    # right_flood's return_index held false (our 5th argument), the str attribute kept for the call
    body = text[text.index("at::Tensor right_flood("):text.index("right_flood_with_index(")]
    assert 'const std::string hole_s(hole.data(), hole.size());' in body and "po_attrs[3].i = 0;" in body
    assert "po_call.Run(po_attrs, 4);" in body and "return po_call.Out(0);" in body
    # int attributes are range-checked, Scalar ones must be integers
    assert 'po_attrs[0].i = po_torch::Int32(axis, "logcumsumexp", "axis");' in text
    assert 'po_attrs[0].i = po_torch::IntScalar(axis, "cumsum", "axis");' in text


def test_new_op_needs_no_code(tmp_path):
    """An op added to the YAML gets its torch op, variants and backward with no other change."""
    ops = open(OPS, encoding="utf-8").read() + """
- op : scan_demo
  args : (Tensor x, Tensor w, float alpha, int64_t[] dims={0, 1}, DataType dtype=DataType::UNDEFINED, bool return_count=false)
  output : Tensor(out), Tensor(count)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : scan_demo
  optional : [w, count]
  backward : scan_demo_grad
"""
    bwd = open(BWD, encoding="utf-8").read() + """
- backward_op : scan_demo_grad
  forward : scan_demo(Tensor x, Tensor w, float alpha, int64_t[] dims, DataType dtype, bool return_count) -> Tensor(out), Tensor(count)
  args : (Tensor x, Tensor w, Tensor out_grad, float alpha, bool scale_by_w=true)
  output : Tensor(x_grad), Tensor(w_grad)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : scan_demo_grad
  optional : [w, w_grad]
"""
    (tmp_path / "ops.yaml").write_text(ops)
    (tmp_path / "backward.yaml").write_text(bwd)
    r = run(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "g.py")
    assert r.returncode == 0, r.stderr
    t = table(tmp_path / "g.py")
    assert t["scan_demo"]["schema"] == ("(Tensor x, Tensor? w, float alpha, int[] dims=[0, 1], "
                                        "ScalarType? dtype=None) -> Tensor")
    assert t["scan_demo"]["kinds"] == ["tensor", "tensor?", "value", "value", "dtype?"]
    assert t["scan_demo_with_count"]["schema"].endswith("-> (Tensor, Tensor)")
    # a grad-only attribute takes its YAML default
    assert t["scan_demo"]["backward"]["args"][-1] == ("const", True)
    assert "scan_demo_grad_with_w_grad" in t
    assert "_dtype(dtype)" in (tmp_path / "g.py").read_text()
    # its list and DataType attributes are not in the runtime's op table: no C++ kernel, the
    # Python kernel serves it on the C++ path too; the other ops keep theirs
    assert not t["scan_demo"]["cpp"] and not t["scan_demo_grad"]["cpp"] and t["cumsum"]["cpp"]
    r = run(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "ext.cc", gen=GEN_CPP)
    assert r.returncode == 0, r.stderr
    blocks, listed = cpp_registrations((tmp_path / "ext.cc").read_text())
    assert "cumsum" in listed and not [n for n in listed if n.startswith("scan_demo")]


def test_new_op_of_plain_attributes_gets_cpp_kernels(tmp_path):
    """An op whose attributes are plain values gets a C++ kernel for each of its torch ops
    (variants and grad ops) with no other change."""
    ops = open(OPS, encoding="utf-8").read() + """
- op : scan_plain
  args : (Tensor x, Tensor w, double alpha, int k=3, str mode="a", bool return_count=false)
  output : Tensor(out), Tensor(count)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : scan_plain
  optional : [w, count]
  backward : scan_plain_grad
"""
    bwd = open(BWD, encoding="utf-8").read() + """
- backward_op : scan_plain_grad
  forward : scan_plain(Tensor x, Tensor w, double alpha, int k, str mode, bool return_count) -> Tensor(out), Tensor(count)
  args : (Tensor x, Tensor out_grad, double alpha, int k)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : scan_plain_grad
"""
    (tmp_path / "ops.yaml").write_text(ops)
    (tmp_path / "backward.yaml").write_text(bwd)
    r = run(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "ext.cc", gen=GEN_CPP)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "ext.cc").read_text()
    blocks, listed = cpp_registrations(text)
    assert {"scan_plain", "scan_plain_with_count", "scan_plain_grad"} <= set(blocks["CPU"]) == set(listed)
    assert ("std::tuple<at::Tensor, at::Tensor> scan_plain_with_count(const at::Tensor& x, "
            "const std::optional<at::Tensor>& w, double alpha, int64_t k, c10::string_view mode) {") in text
    body = text[text.index("scan_plain_with_count("):]
    assert "po_attrs[3].i = 1;" in body and "return std::make_tuple(po_call.Out(0), po_call.Out(1));" in body


@pytest.mark.parametrize("entry, message", [
    # an optional output that no bool attribute asks for: torch needs a fixed output list
    ("""- op : bad
  args : (Tensor x)
  output : Tensor(out), Tensor(extra)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : bad
  optional : extra
""", "entry 'bad', field 'optional': optional output 'extra' needs exactly one bool attribute named '*_extra'"),
    ("""- op : bad
  args : (Tensor x, DataType dtype=DataType::FLOAT32)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : bad
""", "entry 'bad', field 'args': 'dtype': only DataType::UNDEFINED can be a default"),
])
def test_malformed_entries_fail_clearly(tmp_path, entry, message):
    (tmp_path / "ops.yaml").write_text(entry)
    (tmp_path / "backward.yaml").write_text("")
    r = run(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "g.py")
    assert r.returncode == 1
    assert message in r.stderr
    assert not (tmp_path / "g.py").exists()
