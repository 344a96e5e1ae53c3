"""Tests of the op generator (tools/codegen/gen.py + op_model.py).

The fixtures in codegen_fixtures/ are YAML entries shaped like the ops still to come
(docs/spec.md §3-5: pscan, right_flood, gla): several inputs and outputs, optional inputs, an int64
output, float and string attributes, forward outputs saved for backward, several grads, an
optional output and an optional incoming grad. The tests check the generated C++ text, then
syntax-check it with g++ against the real runtime headers and codegen_fixtures/stub_infermeta.h
(passed to gen.py with --infermeta-header). The real api_yaml must generate deterministically,
and every kind of malformed entry must fail with exit code 1 and a message naming the entry
and the field.

Needs only Python, PyYAML and (for the compile tests) g++ and pybind11; not paddle_ops.
    python3 -m pytest unittests/python/test_codegen.py -q      (from the repository root)
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(REPO, "tools", "codegen", "gen.py")
FIXTURES = os.path.join(HERE, "codegen_fixtures")
FIX_OPS = os.path.join(FIXTURES, "ops.yaml")
FIX_BWD = os.path.join(FIXTURES, "backward.yaml")
# Repo-relative, so the #include in api.cc resolves through -I<repo>.
STUB_HEADER = "unittests/python/codegen_fixtures/stub_infermeta.h"
REAL_OPS = os.path.join(REPO, "api_yaml", "ops.yaml")
REAL_BWD = os.path.join(REPO, "api_yaml", "backward.yaml")
GEN_FILES = ["api.cc", "api.h", "dygraph_functions.cc", "dygraph_functions.h", "infermeta_all.h", "nodes.cc",
             "nodes.h", "pybind_ops.cc", "static_ops.inc"]


def run_gen(ops, bwd, out, *extra, env=None):
    return subprocess.run([sys.executable, GEN, "--ops", str(ops), "--backward", str(bwd),
                           "--out", str(out), *extra],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=60)


def read_all(out):
    return {name: open(os.path.join(out, name), encoding="utf-8").read() for name in GEN_FILES}


def function(text, name):
    """The definition of top-level function `name` (from its first line to the closing '}')."""
    m = re.search(r"^[A-Za-z][^\n]*?[ :]" + re.escape(name) + r"\((?:[^\n]*)\{\n.*?^\}$",
                  text, re.M | re.S)
    assert m, f"no definition of {name}() in the generated text"
    return m.group(0)


def block(text, start):
    """From the line that starts with `start` to the next line that is just '};' or '}'."""
    i = text.find(start)
    assert i >= 0, f"{start!r} not found"
    m = re.compile(r"^\}\;?$", re.M).search(text, i)
    return text[i:m.end()]


@pytest.fixture(scope="module")
def fixture_gen(tmp_path_factory):
    root = tmp_path_factory.mktemp("codegen_fixture")
    out = root / "paddle_ops_gen"
    r = run_gen(FIX_OPS, FIX_BWD, out, "--infermeta-header", STUB_HEADER)
    assert r.returncode == 0, r.stderr
    return root, read_all(out)


# ---- generation of the fixtures ---------------------------------------------------------------
def test_fixtures_generate_all_files(tmp_path):
    r = run_gen(FIX_OPS, FIX_BWD, tmp_path / "paddle_ops_gen", "--infermeta-header", STUB_HEADER)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert sorted(os.listdir(tmp_path / "paddle_ops_gen")) == GEN_FILES


def test_infermeta_header_option_replaces_default_includes(fixture_gen):
    infermeta_all = fixture_gen[1]["infermeta_all.h"]
    assert f'#include "{STUB_HEADER}"' in infermeta_all
    assert '#include "infermeta/' not in infermeta_all
    assert '#include "paddle_ops_gen/infermeta_all.h"' in fixture_gen[1]["api.cc"]


def test_api_h_signatures(fixture_gen):
    api_h = fixture_gen[1]["api.h"]
    expected = [
        "Tensor pscan(const Tensor& a, const Tensor& x, "
        "const paddle::optional<Tensor>& initial_state, bool reverse);",
        "std::tuple<Tensor, Tensor, Tensor> pscan_grad(const Tensor& a, const Tensor& x, "
        "const paddle::optional<Tensor>& initial_state, const Tensor& y, const Tensor& y_grad, "
        "bool reverse);",
        "std::tuple<Tensor, Tensor> right_flood(const Tensor& x, int axis, bool reverse, "
        "const std::string& hole);",
        "Tensor right_flood_grad(const Tensor& index, const Tensor& out_grad, int axis, bool reverse);",
        "std::tuple<Tensor, Tensor> gla(const Tensor& q, const Tensor& k, const Tensor& v, "
        "const Tensor& gk, const paddle::optional<Tensor>& initial_state, float scale, "
        "bool output_final_state, bool head_first);",
        "std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gla_grad(const Tensor& q, "
        "const Tensor& k, const Tensor& v, const Tensor& gk, "
        "const paddle::optional<Tensor>& initial_state, const Tensor& o, const Tensor& o_grad, "
        "const paddle::optional<Tensor>& final_state_grad, float scale, bool output_final_state, "
        "bool head_first);",
    ]
    lines = api_h.splitlines()
    for sig in expected:
        assert sig in lines, f"api.h lacks: {sig}"


def test_dygraph_h_declares_forward_ad_funcs_only(fixture_gen):
    dy_h = fixture_gen[1]["dygraph_functions.h"]
    assert ("std::tuple<Tensor, Tensor> gla_ad_func(const Tensor& q, const Tensor& k, "
            "const Tensor& v, const Tensor& gk, const paddle::optional<Tensor>& initial_state, "
            "float scale, bool output_final_state, bool head_first);") in dy_h.splitlines()
    assert "pscan_ad_func(" in dy_h and "right_flood_ad_func(" in dy_h
    assert "_grad_ad_func" not in dy_h


# The generated shims in api.cc: per op, the text its definition must hold and must not hold.
SHIM_TEXT = {
    # Optional inputs do not take part in the required-place check the same way.
    "pscan": ([
        'detail::CommonPlace(kOp, {{"a", &a}, {"x", &x}}, {{"initial_state", &initial_state}});',
        "phi::DataLayout::ALL_LAYOUT, x.dtype());",          # kernel.data_type : x
        "const paddle::optional<phi::DenseTensor> initial_state_d = detail::OptionalDense(initial_state);",
        "phi::PscanInferMeta(phi::MetaTensor(a_d), phi::MetaTensor(x_d), "
        "(initial_state_d ? phi::MetaTensor(*initial_state_d) : phi::MetaTensor()), reverse, &y_m);",
        "kernel.Call<const phi::DenseTensor&, const phi::DenseTensor&, "
        "const paddle::optional<phi::DenseTensor>&, bool, phi::DenseTensor*>"
        "(dev_ctx, a_d, x_d, initial_state_d, reverse, y_d.get());",
        'return detail::MakeOutput(y_d, false, kOp, "y");',
    ], []),
    # Two outputs and a string attribute.
    "right_flood": ([
        "phi::RightFloodInferMeta(phi::MetaTensor(x_d), axis, reverse, hole, &out_m, &index_m);",
        "kernel.Call<const phi::DenseTensor&, int, bool, const std::string&, phi::DenseTensor*, phi::DenseTensor*>"
        "(dev_ctx, x_d, axis, reverse, hole, out_d.get(), index_d.get());",
        'return std::make_tuple(detail::MakeOutput(out_d, false, kOp, "out"), '
        'detail::MakeOutput(index_d, false, kOp, "index"));',
    ], []),
    # The kernel key must come from out_grad (data_type), not from the int64 index (first
    # input); infer_meta.param [index, out_grad, axis] selects those args, the kernel gets all.
    "right_flood_grad": ([
        "phi::DataLayout::ALL_LAYOUT, out_grad.dtype());",
        "phi::RightFloodGradInferMeta(phi::MetaTensor(index_d), phi::MetaTensor(out_grad_d), axis, &x_grad_m);",
        "kernel.Call<const phi::DenseTensor&, const phi::DenseTensor&, int, bool, phi::DenseTensor*>"
        "(dev_ctx, index_d, out_grad_d, axis, reverse, x_grad_d.get());",
    ], ["index.dtype()"]),
    # A float attribute; o is required, final_state optional (a kernel may leave it
    # unallocated -> None).
    "gla": ([
        "phi::DataLayout::ALL_LAYOUT, q.dtype());",
        "kernel.Call<const phi::DenseTensor&, const phi::DenseTensor&, const phi::DenseTensor&, "
        "const phi::DenseTensor&, const paddle::optional<phi::DenseTensor>&, float, bool, bool, "
        "phi::DenseTensor*, phi::DenseTensor*>(dev_ctx, q_d, k_d, v_d, gk_d, initial_state_d, "
        "scale, output_final_state, head_first, o_d.get(), final_state_d.get());",
        'return std::make_tuple(detail::MakeOutput(o_d, false, kOp, "o"), '
        'detail::MakeOutput(final_state_d, true, kOp, "final_state"));',
    ], []),
    # An optional incoming grad and an optional grad output.
    "gla_grad": ([
        "const paddle::optional<phi::DenseTensor> final_state_grad_d = detail::OptionalDense(final_state_grad);",
        "const phi::DenseTensor& o_grad_d = o_grad.dense();",
        "kernel.Call<const phi::DenseTensor&, const phi::DenseTensor&, const phi::DenseTensor&, "
        "const phi::DenseTensor&, const paddle::optional<phi::DenseTensor>&, "
        "const phi::DenseTensor&, const phi::DenseTensor&, "
        "const paddle::optional<phi::DenseTensor>&, float, bool, bool, phi::DenseTensor*, "
        "phi::DenseTensor*, phi::DenseTensor*, phi::DenseTensor*, phi::DenseTensor*>",
    ] + [f'detail::MakeOutput({name}_d, false, kOp, "{name}")' for name in ("q_grad", "k_grad", "v_grad", "gk_grad")]
      + ['detail::MakeOutput(initial_state_grad_d, true, kOp, "initial_state_grad")'], []),
}


@pytest.mark.parametrize("op", list(SHIM_TEXT))
def test_shim_text(fixture_gen, op):
    body = function(fixture_gen[1]["api.cc"], op)
    present, absent = SHIM_TEXT[op]
    for text in present:
        assert text in body, f"the {op} shim lacks: {text}"
    for text in absent:
        assert text not in body, f"the {op} shim holds: {text}"


def test_grad_node_gla_saves_forward_output(fixture_gen):
    decl = block(fixture_gen[1]["nodes.h"], "class GlaGradNode ")
    assert "GlaGradNode() : GradNodeBase(5, 2) {}" in decl       # 5 forward inputs, 2 outputs
    members = re.findall(r"^  TensorWrapper (\w+);$", decl, re.M)
    assert members == ["q_", "k_", "v_", "gk_", "initial_state_", "o_"]
    for m in members:
        assert f" {m}.Clear();" in decl
    assert "  float scale_;" in decl and "  bool output_final_state_;" in decl
    assert "  bool head_first_;" in decl
    # Grads are not saved; the unused forward output is not saved.
    assert not re.search(r"\bo_grad_\b", decl) and not re.search(r"\bfinal_state_\b", decl)

    ad = function(fixture_gen[1]["dygraph_functions.cc"], "gla_ad_func")
    assert "node->o_ = TensorWrapper(std::get<0>(result));" in ad
    assert "node->initial_state_ = TensorWrapper(initial_state);" in ad
    assert "node->scale_ = scale;" in ad
    assert ("if (egr::RequiresGrad({&q, &k, &v, &gk}) || egr::RequiresGrad({&initial_state})) {"
            in ad)
    edges = re.findall(r"node->SetEdge\((\d+), (\w+)\);", ad)
    assert edges == [("0", "q"), ("1", "k"), ("2", "v"), ("3", "gk"), ("4", "initial_state")]
    hist = re.findall(r"egr::SetHistory\((.+?), node, (\d+)\);", ad)
    assert hist == [("std::get<0>(result)", "0"), ("std::get<1>(result)", "1")]


def test_grad_node_gla_reads_grads(fixture_gen):
    impl = function(fixture_gen[1]["nodes.cc"], "GlaGradNode::operator()")
    assert 'const Tensor o = o_.Recover("GlaGradNode", "o");' in impl
    assert ('const paddle::optional<Tensor> initial_state = '
            'initial_state_.RecoverOptional("GlaGradNode", "initial_state");') in impl
    # Required incoming grad: zeros when nothing flowed into o; optional one: passed as is.
    assert "const Tensor o_grad = grads[0] ? *grads[0] : ZerosForOutput(0);" in impl
    assert "const paddle::optional<Tensor> final_state_grad = grads[1];" in impl
    assert ("auto result = experimental::gla_grad(q, k, v, gk, initial_state, o, o_grad, "
            "final_state_grad, scale_, output_final_state_, head_first_);") in impl
    assert "std::vector<OptionalTensor> input_grads(5);" in impl
    slots = re.findall(r"input_grads\[(\d)\] = std::get<(\d)>\(result\);", impl)
    assert slots == [(str(i), str(i)) for i in range(5)]


def test_grad_node_pscan_three_grads(fixture_gen):
    files = fixture_gen[1]
    decl = block(files["nodes.h"], "class PscanGradNode ")
    assert "GradNodeBase(3, 1)" in decl
    assert re.findall(r"^  TensorWrapper (\w+);$", decl, re.M) == ["a_", "x_", "initial_state_", "y_"]
    impl = function(files["nodes.cc"], "PscanGradNode::operator()")
    assert "const Tensor y_grad = grads[0] ? *grads[0] : ZerosForOutput(0);" in impl
    assert "initial_state_.RecoverOptional(" in impl
    assert "auto result = experimental::pscan_grad(a, x, initial_state, y, y_grad, reverse_);" in impl
    assert re.findall(r"input_grads\[(\d)\] = std::get<(\d)>\(result\);", impl) == [
        ("0", "0"), ("1", "1"), ("2", "2")]
    ad = function(files["dygraph_functions.cc"], "pscan_ad_func")
    assert "node->y_ = TensorWrapper(result);" in ad              # single output: result itself
    assert "node->SetEdge(2, initial_state);" in ad
    assert "egr::SetHistory(result, node, 0);" in ad


def test_grad_node_right_flood_saves_index_output(fixture_gen):
    files = fixture_gen[1]
    decl = block(files["nodes.h"], "class RightFloodGradNode ")
    assert "GradNodeBase(1, 2)" in decl
    assert re.findall(r"^  TensorWrapper (\w+);$", decl, re.M) == ["index_"]
    assert "  int axis_;" in decl and "  bool reverse_;" in decl
    assert not re.search(r"\bhole_\b", decl)  # not an arg of the grad op
    ad = function(files["dygraph_functions.cc"], "right_flood_ad_func")
    assert "node->index_ = TensorWrapper(std::get<1>(result));" in ad
    assert "egr::SetHistory(std::get<1>(result), node, 1);" in ad
    impl = function(files["nodes.cc"], "RightFloodGradNode::operator()")
    assert "const Tensor out_grad = grads[0] ? *grads[0] : ZerosForOutput(0);" in impl
    assert "auto result = experimental::right_flood_grad(index, out_grad, axis_, reverse_);" in impl
    assert "if (result.defined()) input_grads[0] = result;" in impl


def test_pybind_casts(fixture_gen):
    py = fixture_gen[1]["pybind_ops.cc"]
    # Plain parse: 'auto <arg>_v = <Cast>(<arg>, "<op>", "<arg>");'
    found = {(op, arg): fn for arg, fn, arg2, op, arg3 in
             re.findall(r'auto (\w+)_v = (\w+)\((\w+), "(\w+)", "(\w+)"\);', py)
             if arg == arg2 == arg3}
    assert found == {
        ("pscan", "a"): "CastTensor", ("pscan", "x"): "CastTensor",
        ("pscan", "initial_state"): "CastOptionalTensor", ("pscan", "reverse"): "CastBool",
        ("right_flood", "x"): "CastTensor", ("right_flood", "axis"): "CastInt",
        ("right_flood", "reverse"): "CastBool", ("right_flood", "hole"): "CastString",
        ("gla", "q"): "CastTensor", ("gla", "k"): "CastTensor", ("gla", "v"): "CastTensor",
        ("gla", "gk"): "CastTensor", ("gla", "initial_state"): "CastOptionalTensor",
        ("gla", "scale"): "CastFloat", ("gla", "output_final_state"): "CastBool",
        ("gla", "head_first"): "CastBool",
    }
    assert ("return gla_ad_func(q_v, k_v, v_v, gk_v, initial_state_v, scale_v, "
            "output_final_state_v, head_first_v);") in py
    assert ('py::arg("q"), py::arg("k"), py::arg("v"), py::arg("gk"), py::arg("initial_state"), '
            'py::arg("scale"), py::arg("output_final_state"), py::arg("head_first"));') in py
    assert sorted(re.findall(r'm\.def\("(\w+)"', py)) == ["gla", "pscan", "right_flood"]


def test_grads_follow_forward_input_slots_not_output_order(tmp_path):
    """Grad outputs listed out of input order (and one input without a grad) land in the right
    slots; the incoming grad of the second forward output reads grads[1]; grad-only attributes
    get their YAML defaults as C++ expressions."""
    ops = tmp_path / "ops.yaml"
    bwd = tmp_path / "backward.yaml"
    ops.write_text(
        "- op : mix\n"
        "  args : (Tensor x, Tensor y, Tensor z, int64_t n=0)\n"
        "  output : Tensor(out), Tensor(aux)\n"
        "  infer_meta :\n    func : MixInferMeta\n"
        "  kernel :\n    func : mix\n"
        "  backward : mix_grad\n")
    bwd.write_text(
        "- backward_op : mix_grad\n"
        "  forward : mix(Tensor x, Tensor y, Tensor z, int64_t n) -> Tensor(out), Tensor(aux)\n"
        "  args : (Tensor z, Tensor aux_grad, int64_t n, str mode=\"sum\", float eps=1e-6)\n"
        "  output : Tensor(z_grad), Tensor(x_grad)\n"
        "  infer_meta :\n    func : MixGradInferMeta\n"
        "  kernel :\n    func : mix_grad\n")
    out = tmp_path / "paddle_ops_gen"
    r = run_gen(ops, bwd, out)
    assert r.returncode == 0, r.stderr
    files = read_all(out)
    impl = function(files["nodes.cc"], "MixGradNode::operator()")
    assert "const Tensor aux_grad = grads[1] ? *grads[1] : ZerosForOutput(1);" in impl
    assert 'experimental::mix_grad(z, aux_grad, n_, std::string("sum"), 1e-6);' in impl
    assert "std::vector<OptionalTensor> input_grads(3);" in impl
    assert re.findall(r"input_grads\[(\d)\] = std::get<(\d)>\(result\);", impl) == [
        ("2", "0"), ("0", "1")]
    decl = block(files["nodes.h"], "class MixGradNode ")
    assert "  int64_t n_;" in decl
    assert not re.search(r"\b(mode|eps)_\b", decl)
    assert re.findall(r"^  TensorWrapper (\w+);$", decl, re.M) == ["z_"]


# ---- compiling the generated fixture code ------------------------------------------------------
def _gxx():
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: cannot syntax-check the generated code")
    return gxx


def _compile(args):
    r = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, "g++ failed:\n" + " ".join(args) + "\n" + r.stderr[-6000:]


def test_compile_generated_cpp(fixture_gen):
    gxx = _gxx()
    root, _ = fixture_gen
    out = root / "paddle_ops_gen"
    _compile([gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror=return-type",
              f"-I{REPO}", f"-I{root}", "-I/usr/include/eigen3",
              str(out / "api.cc"), str(out / "nodes.cc"), str(out / "dygraph_functions.cc")])


def test_compile_generated_pybind(fixture_gen):
    gxx = _gxx()
    r = subprocess.run([sys.executable, "-m", "pybind11", "--includes"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        pytest.skip("pybind11 not importable: cannot syntax-check pybind_ops.cc")
    root, _ = fixture_gen
    _compile([gxx, "-std=c++17", "-fsyntax-only", f"-I{REPO}", f"-I{root}",
              "-I/usr/include/eigen3", *r.stdout.split(), str(root / "paddle_ops_gen" / "pybind_ops.cc")])


def test_stub_rejects_inexact_infermeta_call(fixture_gen, tmp_path):
    """The stub's deleted catch-alls make the compile test see argument-type mismatches: a
    stand-in whose declared types differ from what api.cc passes must fail to compile."""
    gxx = _gxx()
    root, files = fixture_gen
    stub = open(os.path.join(REPO, STUB_HEADER)).read()
    wrong = stub.replace("const MetaTensor& initial_state, float scale,",
                         "const MetaTensor& initial_state, double scale,", 1)
    assert wrong != stub
    (tmp_path / "stub_wrong.h").write_text(wrong)
    (tmp_path / "paddle_ops_gen").mkdir()  # found first: beside api.cc
    (tmp_path / "paddle_ops_gen" / "infermeta_all.h").write_text(files["infermeta_all.h"].replace(
        f'#include "{STUB_HEADER}"', f'#include "{tmp_path / "stub_wrong.h"}"'))
    (tmp_path / "api.cc").write_text(files["api.cc"])
    r = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", f"-I{REPO}", f"-I{root}",
                        "-I/usr/include/eigen3", str(tmp_path / "api.cc")],
                       cwd=REPO, capture_output=True, text=True, timeout=240)
    assert r.returncode != 0
    assert "GlaInferMeta" in r.stderr and "deleted" in r.stderr


# ---- the real api_yaml ---------------------------------------------------------------------------
def test_real_yaml_generates(tmp_path):
    r = run_gen(REAL_OPS, REAL_BWD, tmp_path / "paddle_ops_gen")
    assert r.returncode == 0, r.stderr
    files = read_all(tmp_path / "paddle_ops_gen")
    assert "Tensor logcumsumexp(const Tensor& x, int axis, bool flatten, bool exclusive, bool reverse)" \
        in files["api.h"]
    assert "class LogcumsumexpGradNode " in files["nodes.h"]
    assert 'm.def("logcumsumexp"' in files["pybind_ops.cc"]
    # Without --infermeta-header: every infermeta/*.h of the repository, found by gen.py, sorted.
    found = sorted(n for n in os.listdir(os.path.join(REPO, "infermeta")) if n.endswith(".h"))
    assert "unary.h" in found
    includes = [ln for ln in files["infermeta_all.h"].splitlines() if ln.startswith("#include")]
    assert includes == [f'#include "infermeta/{n}"' for n in found]


@pytest.mark.parametrize("which", ["real", "fixtures"])
def test_output_is_deterministic(tmp_path, which):
    ops, bwd = (REAL_OPS, REAL_BWD) if which == "real" else (FIX_OPS, FIX_BWD)
    outs = []
    for seed in ("0", "4242"):   # different set/dict hash orders must not change the text
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = tmp_path / f"run{seed}" / "paddle_ops_gen"
        r = run_gen(ops, bwd, out, env=env)
        assert r.returncode == 0, r.stderr
        outs.append({n: (out / n).read_bytes() for n in GEN_FILES})
    assert outs[0] == outs[1]


def test_unchanged_rerun_keeps_mtimes(tmp_path):
    out = tmp_path / "paddle_ops_gen"
    assert run_gen(REAL_OPS, REAL_BWD, out).returncode == 0
    old = 1_000_000_000
    for n in GEN_FILES:
        os.utime(out / n, (old, old))
    # One file edited by hand: the re-run must restore it and touch only it.
    original = (out / "nodes.h").read_text()
    (out / "nodes.h").write_text(original + "// stale\n")
    os.utime(out / "nodes.h", (old, old))
    r = run_gen(REAL_OPS, REAL_BWD, out)
    assert r.returncode == 0, r.stderr
    assert (out / "nodes.h").read_text() == original
    assert os.stat(out / "nodes.h").st_mtime != old
    for n in GEN_FILES:
        if n != "nodes.h":
            assert os.stat(out / n).st_mtime == old, f"{n} rewritten although unchanged"


# ---- malformed entries ---------------------------------------------------------------------------
GOOD_OPS = """\
- op : foo
  args : (Tensor x, Tensor y, int axis=-1, float alpha=1.0)
  output : Tensor(out)
  infer_meta :
    func : FooInferMeta
  kernel :
    func : foo
  backward : foo_grad
"""
GOOD_BWD = """\
- backward_op : foo_grad
  forward : foo(Tensor x, Tensor y, int axis, float alpha) -> Tensor(out)
  args : (Tensor x, Tensor y, Tensor out_grad, int axis, float alpha)
  output : Tensor(x_grad), Tensor(y_grad)
  infer_meta :
    func : FooGradInferMeta
  kernel :
    func : foo_grad
"""


def _edit(text, old, new):
    assert old in text, f"test bug: {old!r} not in the base YAML"
    return text.replace(old, new, 1)


# id: (ops edit or None, backward edit or None, entry, field, a word the message must hold)
MALFORMED = {
    "missing_args": (("  args : (Tensor x, Tensor y, int axis=-1, float alpha=1.0)\n", ""), None,
                     "foo", "args", "missing"),
    "unparsable_arg": (("int axis=-1,", "axis=-1,"), None, "foo", "args", "axis=-1"),
    "unknown_type": (("float alpha=1.0", "complex alpha=1.0"), None, "foo", "args", "complex"),
    "tensor_with_default": (("Tensor y,", "Tensor y=None,"), None, "foo", "args", "'y'"),
    "duplicate_arg": (("float alpha=1.0", "float axis=1.0"), None, "foo", "args", "'axis'"),
    "bad_output": (("output : Tensor(out)", "output : Tensor[out]"), None, "foo", "output",
                   "Tensor[out]"),
    "optional_non_tensor": (("  backward : foo_grad\n", "  backward : foo_grad\n  optional : [axis]\n"),
                            None, "foo", "optional", "'axis'"),
    "infer_meta_without_func": (("    func : FooInferMeta\n", "    param : [x]\n"), None,
                                "foo", "infer_meta", "func"),
    "data_type_non_tensor": (("    func : foo\n", "    func : foo\n    data_type : alpha\n"), None,
                             "foo", "kernel.data_type", "'alpha'"),
    "unknown_field": (("  backward : foo_grad\n", "  backward : foo_grad\n  inplace : (x -> out)\n"),
                      None, "foo", "inplace", "unknown field"),
    "backward_not_in_backward_yaml": (("backward : foo_grad", "backward : foo_grd"), None,
                                      "foo", "backward", "foo_grd"),
    "backward_arg_not_forward_tensor": (None, ("Tensor out_grad, int", "Tensor w_grad, int"),
                                        "foo_grad", "args", "'w_grad'"),
    "backward_output_not_input_grad": (None, ("Tensor(y_grad)", "Tensor(out_grad)"),
                                       "foo_grad", "output", "'out_grad'"),
    "attr_type_mismatch": (None, ("int axis, float alpha)\n  output", "int axis, double alpha)\n  output"),
                           "foo_grad", "args", "'alpha'"),
    "duplicate_op_name": (("  backward : foo_grad\n", "  backward : foo_grad\n"
                           "- op : foo\n  args : (Tensor x)\n  output : Tensor(out)\n"
                           "  infer_meta :\n    func : UnchangedInferMeta\n"
                           "  kernel :\n    func : foo\n"),
                          None, "foo", "op", "twice"),
}


def _gen_malformed(tmp_path, ops_text, bwd_text):
    (tmp_path / "ops.yaml").write_text(ops_text)
    (tmp_path / "backward.yaml").write_text(bwd_text)
    return run_gen(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "out")


def test_malformed_base_is_valid(tmp_path):
    """The entries the malformed cases edit are themselves fine (so each failure below is
    caused by its edit)."""
    r = _gen_malformed(tmp_path, GOOD_OPS, GOOD_BWD)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_entry_fails_naming_entry_and_field(tmp_path, case):
    ops_edit, bwd_edit, entry, field, word = MALFORMED[case]
    ops_text = _edit(GOOD_OPS, *ops_edit) if ops_edit else GOOD_OPS
    bwd_text = _edit(GOOD_BWD, *bwd_edit) if bwd_edit else GOOD_BWD
    r = _gen_malformed(tmp_path, ops_text, bwd_text)
    assert r.returncode == 1, f"exit {r.returncode}; stderr: {r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    err = r.stderr.strip()
    assert err.startswith("error: "), err
    assert f"entry '{entry}'" in err, err
    assert f"field '{field}'" in err, err
    assert word in err, err
    src = "backward.yaml" if bwd_edit else "ops.yaml"
    assert src in err, err                                  # names the file too
    assert not (tmp_path / "out").exists()                  # nothing generated


# Entries whose C++ could not compile (the error would point at generated code, not at the
# YAML), so op_model rejects them up front.
NAME_ERRORS = {
    "output_named_like_an_arg": (("output : Tensor(out)", "output : Tensor(x)"), "foo", "output", "'x'"),
    "duplicate_output": (("output : Tensor(out)", "output : Tensor(out), Tensor(out)"),
                         "foo", "output", "'out'"),
    "op_name_not_an_identifier": (("- op : foo\n", "- op : foo-bar\n"), "foo-bar", "op", "foo-bar"),
}


@pytest.mark.parametrize("case", sorted(NAME_ERRORS))
def test_malformed_names_fail_naming_entry_and_field(tmp_path, case):
    ops_edit, entry, field, word = NAME_ERRORS[case]
    ops_text = _edit(GOOD_OPS, *ops_edit).replace("  backward : foo_grad\n", "")
    r = _gen_malformed(tmp_path, ops_text, "")
    assert r.returncode == 1, f"exit {r.returncode}; stderr: {r.stderr}"
    assert f"entry '{entry}'" in r.stderr and f"field '{field}'" in r.stderr and word in r.stderr
