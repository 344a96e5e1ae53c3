"""The parts of paddle_ops.integrations.jax that need no JAX, so they run in CI (which installs
none): the op table tools/codegen/gen_jax.py generates from api_yaml/, and the runtime library
(libpaddle_ops_runtime.so, built with the package) called through ctypes the way the XLA FFI
handlers call it. test_jax_ops.py runs the whole path where JAX is installed.
"""
import ctypes
import os
import subprocess

import numpy as np
import pytest

import test_torch_codegen
from test_torch_codegen import BWD, OPS, REPO, literals  # the repository's YAML (a sibling test module)

GEN = os.path.join(REPO, "tools", "codegen", "gen_jax.py")


def run(ops, bwd, out):
    return test_torch_codegen.run(ops, bwd, out, gen=GEN)


def tables(path):
    """(OPS by name, YAML) of a generated file, read without importing it."""
    ops, yaml = literals(path, "OPS", "YAML")
    return {e["name"]: e for e in ops}, yaml


real = test_torch_codegen.real_table(run)


def test_deterministic_and_compiles(real, tmp_path):
    test_torch_codegen.check_deterministic_and_compiles(run, real, tmp_path)


def test_every_op_with_its_gradient(real):
    ops, yaml = tables(real)
    assert set(ops) == {"logcumsumexp", "cumsum", "pscan", "right_flood", "right_flood_with_index",
                        "repeat_interleave", "repeat_interleave_with_tensor_index", "gla", "gla_with_final_state"}
    for name, e in ops.items():
        assert e["op"] in yaml
        assert e["backward"] is not None and e["backward"]["op"] in yaml  # every op here is differentiable
    assert yaml["gla"]["attr_types"] == ["double", "bool", "bool"]
    assert yaml["pscan_grad"]["outputs"] == ["a_grad", "x_grad", "initial_state_grad"]
    assert yaml["right_flood"]["tensors"] == [True, False, False, False, False]
    assert ("const", True) in ops["right_flood_with_index"]["call"]
    assert ops["gla_with_final_state"]["outputs"] == [0, 1]


def test_a_new_op_needs_no_code(tmp_path):
    """An op added to the YAML gets its entry and gradient; one whose attribute one FFI call
    cannot carry (an IntArray) is left out of the table."""
    ops_text = open(OPS, encoding="utf-8").read() + """
- op : cummax_values
  args : (Tensor x, int axis=-1, bool reverse=false)
  output : Tensor(out)
  infer_meta :
    func : CumInferMeta
  kernel :
    func : cummax_values
  backward : cummax_values_grad

- op : windowed_sum
  args : (Tensor x, int[] sizes)
  output : Tensor(out)
  infer_meta :
    func : CumInferMeta
  kernel :
    func : windowed_sum
"""
    bwd_text = open(BWD, encoding="utf-8").read() + """
- backward_op : cummax_values_grad
  forward : cummax_values(Tensor x, int axis, bool reverse) -> Tensor(out)
  args : (Tensor x, Tensor out, Tensor out_grad, int axis, bool reverse)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : cummax_values_grad
"""
    (tmp_path / "ops.yaml").write_text(ops_text)
    (tmp_path / "backward.yaml").write_text(bwd_text)
    r = run(tmp_path / "ops.yaml", tmp_path / "backward.yaml", tmp_path / "g.py")
    assert r.returncode == 0, r.stderr
    ops, yaml = tables(tmp_path / "g.py")
    assert ops["cummax_values"]["backward"] == {
        "op": "cummax_values_grad", "args": [("input", 0), ("output", 0), ("grad", 0), ("attr", 1), ("attr", 2)]}
    assert yaml["cummax_values"]["attr_types"] == ["int", "bool"]
    assert "windowed_sum" not in ops and "windowed_sum" not in yaml  # an int[] is not one FFI attribute
    assert "sum" not in ops and "reshape" not in ops


# ---- the runtime library, through ctypes --------------------------------------------------------
class PoTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("ndim", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("device", ctypes.c_int32), ("device_id", ctypes.c_int32), ("present", ctypes.c_int32)]


class PoAttr(ctypes.Structure):
    _fields_ = [("i", ctypes.c_int64), ("f", ctypes.c_double), ("s", ctypes.c_char_p)]


PO_FLOAT32, PO_FLOAT64, PO_VALUE_ERROR, PO_INDEX_ERROR = 8, 9, 1, 3


@pytest.fixture(scope="module")
def runtime():
    pytest.importorskip("paddle_ops", reason="paddle_ops is not built (PYTHONPATH=build/python)")
    import paddle_ops
    path = os.path.join(os.path.dirname(paddle_ops.__file__), "integrations", "_native",
                        "libpaddle_ops_runtime.so")
    lib = ctypes.CDLL(path)
    lib.po_jax_op_id.restype = ctypes.c_int32
    lib.po_jax_run.restype = ctypes.c_int32
    lib.po_jax_last_error.restype = ctypes.c_char_p
    lib.path = path
    return lib


def tensor(a, keep, dtype=PO_FLOAT64):
    dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    keep.append(dims)
    return PoTensor(a.ctypes.data, dims, None, a.ndim, dtype, 0, 0, 1)


def call(lib, op, ins, attrs, outs, keep):
    t_in = (PoTensor * len(ins))(*[tensor(a, keep) for a in ins])
    t_out = (PoTensor * len(outs))(*[tensor(a, keep) for a in outs])
    t_attr = (PoAttr * max(len(attrs), 1))(*[PoAttr(int(v), 0.0, b"") for v in attrs])
    return lib.po_jax_run(lib.po_jax_op_id(op.encode()), t_in, len(ins), t_attr, len(attrs), t_out, len(outs), None)


def test_runtime_exports_only_its_c_entries(runtime):
    """The one runtime of the integrations exports its plain-C entries alone."""
    nm = subprocess.run(["nm", "-D", "--defined-only", runtime.path], capture_output=True, text=True)
    if nm.returncode != 0:
        pytest.skip("nm is not available")
    names = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    assert {"po_jax_op_id", "po_jax_run", "po_jax_last_error", "po_jax_last_pointers", "po_runtime_run",
            "po_runtime_follow"} <= names
    assert all(n.startswith(("po_jax_", "po_runtime_")) for n in names), names


def test_runtime_writes_into_the_callers_buffer(runtime):
    x = np.random.RandomState(0).randn(3, 5)
    out = np.full_like(x, np.nan)
    keep = []
    assert runtime.po_jax_op_id(b"logcumsumexp") >= 0 and runtime.po_jax_op_id(b"no_such_op") == -1
    assert call(runtime, "logcumsumexp", [x], [1, 0, 0, 0], [out], keep) == 0
    np.testing.assert_allclose(out, np.logaddexp.accumulate(x, axis=1), rtol=1e-14)
    ins, outs = (ctypes.c_void_p * 4)(), (ctypes.c_void_p * 4)()
    assert runtime.po_jax_last_pointers(ins, outs, 4) >= 1
    assert ins[0] == x.ctypes.data and outs[0] == out.ctypes.data  # no copies
    # XLA's buffers are bound for this call alone: the Paddle entry's setting (the same library) stays
    runtime.po_runtime_caller_allocates.restype = ctypes.c_int32
    assert runtime.po_runtime_caller_allocates() == 0


def test_runtime_errors(runtime):
    x, keep = np.zeros((3, 5)), []
    assert call(runtime, "logcumsumexp", [x], [7, 0, 0, 0], [np.zeros((3, 5))], keep) == PO_INDEX_ERROR
    assert b"axis" in runtime.po_jax_last_error()
    # XLA's buffer of another shape than the op's InferMeta gives: refused, never overrun
    assert call(runtime, "logcumsumexp", [x], [1, 0, 0, 0], [np.zeros((2, 5))], keep) != 0
    assert b"XLA allocated [2, 5]" in runtime.po_jax_last_error()
