"""The conformance table (issue 31): the same good and bad calls of the public ops through every
installed front give bitwise the same values and the same exception types as paddle_ops' own
functions.

Fronts: paddle_ops (the reference), the Tensor methods, paddle_ops.integrations.paddle (with real
Paddle: CI installs it), .torch and .jax (where installed: not in CI; the GPU machine and a local
venv have them). Every front is the one signature layer (paddle_ops/_front.py) with its
framework's adapter, so a difference here is a rule applied differently, or a framework's
behaviour leaking through.

The bad calls are those of the bad-input table (test_bad_input_table.py: every argument of every
public op, its wrong types, values, dtypes and axes) with the front's tensors in place of
paddle_ops' own; the good calls are each op's valid call there and the rows of GOOD below (other
positional orders, axis=None, promotion, dtype=, output variants, counts as a list or a
tensor, computed scale).
"""
import importlib
import os

import numpy as np
import pytest

import paddle_ops
from op_test import gpu_available
from test_bad_input_table import BAD_INPUTS

PUBLIC = ("logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave", "gla")
METHODS = ("logcumsumexp", "cumsum", "right_flood", "repeat_interleave")  # Tensor methods


def _installed(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class Front:
    """One front: how its tensors are made from NumPy arrays on a place ("cpu" or "gpu") and read
    back, whether it has the GPU, and its ops."""

    def __init__(self, name, module, tensor, numpy, method=False, gpu=True):
        self.name, self.module, self.tensor, self.numpy, self.method = name, module, tensor, numpy, method
        self.gpu = gpu

    def op(self, op):
        if self.method:
            return lambda x, *args, **kwargs: getattr(x, op)(*args, **kwargs)
        return getattr(self.module, op)


def _native_numpy(t):
    return (t.astype("float32") if t.dtype == paddle_ops.bfloat16 else t).numpy()


def _fronts():
    def native(a, place):
        return paddle_ops.to_tensor(a, place=place)

    fronts = [Front("paddle_ops", paddle_ops, native, _native_numpy),
              Front("methods", paddle_ops, native, _native_numpy, method=True)]
    reasons = {}
    if "asan" in os.environ.get("LD_PRELOAD", ""):  # as integrations/paddle_setup.py says why
        reasons["paddle"] = ("real Paddle under ASan: libpaddle.so's own alloc-dealloc mismatch aborts the process; "
                             "the plain suite runs this front")
    elif _installed("paddle") is not None:
        import paddle
        from paddle_ops.integrations import paddle as po
        fronts.append(Front("paddle", po, lambda a, place: paddle.to_tensor(
                                a, place=paddle.CUDAPlace(0) if place == "gpu" else paddle.CPUPlace()),
                            lambda t: (paddle.cast(t, "float32") if t.dtype == paddle.bfloat16 else t).numpy(),
                            gpu=paddle.is_compiled_with_cuda()))
    else:
        reasons["paddle"] = "Paddle is not installed (tools/setup_deps.sh installs it)"
    if _installed("torch") is not None:
        import torch
        import paddle_ops.integrations.torch as pt
        fronts.append(Front("torch", pt, lambda a, place: torch.from_numpy(np.array(a)).to(
                                "cuda" if place == "gpu" else "cpu"),
                            lambda t: (t.float() if t.dtype == torch.bfloat16 else t).detach().cpu().numpy()))
    else:
        reasons["torch"] = "torch is not installed (CI installs none; the GPU machine has it)"
    if _installed("jax") is not None:
        import jax
        import jax.numpy as jnp
        from paddle_ops.integrations import jax as pj
        # on the place asked for, not JAX's default device (the GPU where there is one)
        fronts.append(Front("jax", pj, lambda a, place: jax.device_put(np.asarray(a), jax.devices(place)[0]),
                            lambda t: np.asarray(t.astype(jnp.float32) if t.dtype == jnp.bfloat16 else t)))
    else:
        reasons["jax"] = "JAX is not installed (CI installs none; the GPU machine has it)"
    return fronts, reasons


FRONTS, MISSING = _fronts()
OTHERS = [f for f in FRONTS if f.name != "paddle_ops"]


@pytest.fixture(autouse=True)
def _jax_x64():
    """JAX holds float64 and int64 only with x64 on (the table has both)."""
    jax = _installed("jax")
    if jax is None:
        yield
        return
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


def _convert(front, v, place):
    """An argument for `front`: paddle_ops' tensors become the front's on `place` (through NumPy);
    everything else (bad values, lists, NumPy arrays, dtypes) is passed as it is."""
    if isinstance(v, paddle_ops.Tensor):
        return front.tensor(v.numpy(), place)
    if isinstance(v, np.ndarray) and v.dtype == object:
        return v
    return v


def _outcome(front, op, args, kwargs, place="cpu"):
    """('ok', [(dtype name, values)...]) or ('error', exception type, message)."""
    try:
        out = front.op(op)(*[_convert(front, a, place) for a in args],
                           **{k: _convert(front, v, place) for k, v in kwargs.items()})
    except Exception as e:  # noqa: BLE001  (the type is what is compared)
        return ("error", type(e), str(e))
    outs = out if isinstance(out, tuple) else (out,)
    return ("ok", [None if o is None else (str(o.dtype).split(".")[-1], front.numpy(o)) for o in outs])


def _same(ref, got):
    """Bitwise the same values and dtypes, or the same exception type."""
    if ref[0] == "error" or got[0] == "error":
        return ref[:2] == got[:2]
    if len(ref[1]) != len(got[1]):
        return False
    for a, b in zip(ref[1], got[1]):
        if (a is None) != (b is None):
            return False
        if a is None:
            continue
        if a[0] != b[0] or a[1].shape != b[1].shape or a[1].dtype != b[1].dtype:
            return False
        if a[1].tobytes() != b[1].tobytes():
            return False
    return True


# ---- the good calls beyond each op's valid call -------------------------------------------------

def _arr(shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    if dtype in ("int32", "int64", "int16", "int8", "uint8"):
        return rng.integers(0, 5, shape).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def T(shape, dtype="float32", seed=0):
    return paddle_ops.to_tensor(_arr(shape, dtype, seed))


def _gates():
    return paddle_ops.to_tensor(-np.abs(_arr((1, 2, 6, 4), seed=3)) / 4)


GOOD = {
    "logcumsumexp axis=None": ("logcumsumexp", lambda: (T((3, 4)),), {}),
    "logcumsumexp Paddle order (x, axis, dtype)": ("logcumsumexp", lambda: (T((3, 4)), 1, "float64"), {}),
    "logcumsumexp int32 promoted": ("logcumsumexp", lambda: (T((3, 4), "int32"), 0), {}),
    "logcumsumexp bool promoted": ("logcumsumexp", lambda: (T((5,), "bool"),), {}),
    "logcumsumexp exclusive reverse": ("logcumsumexp", lambda: (T((3, 4)), -1, True, True), {}),
    "logcumsumexp float64": ("logcumsumexp", lambda: (T((2, 5), "float64"),), {"axis": 1}),
    "cumsum Paddle order": ("cumsum", lambda: (T((3, 4), "int32"), 1, "int64"), {}),
    "cumsum dtype= float64": ("cumsum", lambda: (T((3, 4)),), {"axis": 0, "dtype": "float64"}),
    "cumsum uint8 promoted to int64": ("cumsum", lambda: (T((6,), "uint8"),), {}),
    "cumsum int16 promoted": ("cumsum", lambda: (T((2, 3), "int16"), 1), {}),
    "cumsum bool promoted": ("cumsum", lambda: (T((2, 3), "bool"),), {"axis": -1, "reverse": True}),
    "cumsum NumPy scalars": ("cumsum", lambda: (T((2, 3)),), {"axis": np.int64(1), "exclusive": np.bool_(True)}),
    "pscan per-step gates": ("pscan", lambda: (T((2, 5), seed=1), T((2, 5, 3), seed=2)), {}),
    "pscan with a state, reversed": ("pscan", lambda: (T((2, 5, 3), seed=1), T((2, 5, 3), seed=2), T((2, 3), seed=4),
                                                       True), {}),
    "right_flood return_index": ("right_flood", lambda: (paddle_ops.to_tensor([[1., 0., 0., 2.], [0., 3., 0., 0.]]),),
                                 {"return_index": True}),
    "right_flood hole nan reversed": ("right_flood", lambda: (paddle_ops.to_tensor([np.nan, 1., np.nan, 2.]), 0, True,
                                                              "nan"), {}),
    "right_flood int64": ("right_flood", lambda: (paddle_ops.to_tensor([0, 5, 0, 7]),), {}),
    "repeat_interleave int": ("repeat_interleave", lambda: (T((2, 3)), 2), {"axis": 1}),
    "repeat_interleave axis=None": ("repeat_interleave", lambda: (T((2, 3)), 2), {}),
    "repeat_interleave list": ("repeat_interleave", lambda: (T((2, 3)), [1, 0, 2]), {"axis": 1}),
    "repeat_interleave NumPy counts": ("repeat_interleave", lambda: (T((2, 3)), np.array([2, 1])), {"axis": 0}),
    "repeat_interleave tensor counts": ("repeat_interleave",
                                        lambda: (T((2, 3)), paddle_ops.to_tensor(np.array([3, 0, 1]))), {"axis": -1}),
    "repeat_interleave output_size": ("repeat_interleave", lambda: (T((2, 3)), [1, 2, 1]), {"axis": 1, "output_size": 4}),
    "gla scale None": ("gla", lambda: (T((1, 2, 6, 4), seed=5), T((1, 2, 6, 4), seed=6), T((1, 2, 6, 3), seed=7),
                                       _gates()), {}),
    "gla final state, scale given": ("gla", lambda: (T((1, 2, 6, 4), seed=5), T((1, 2, 6, 4), seed=6),
                                                     T((1, 2, 6, 3), seed=7), _gates()),
                                     {"scale": 0.5, "output_final_state": True}),
    "gla with a state, positional": ("gla", lambda: (T((1, 2, 6, 4), seed=5), T((1, 2, 6, 4), seed=6),
                                                     T((1, 2, 6, 3), seed=7), _gates(), 0.25, T((1, 2, 4, 3), seed=8),
                                                     True), {}),
    "gla varlen": ("gla", lambda: (T((1, 2, 6, 4), seed=5), T((1, 2, 6, 4), seed=6), T((1, 2, 6, 3), seed=7),
                                   _gates()),
                   {"cu_seqlens": paddle_ops.to_tensor(np.array([0, 1, 1, 6], np.int32)), "output_final_state": True,
                    "initial_state": T((3, 2, 4, 3), seed=9)}),
    "gla varlen [B, T, H, D], int64": ("gla", lambda: (T((1, 6, 2, 4), seed=5), T((1, 6, 2, 4), seed=6),
                                                      T((1, 6, 2, 3), seed=7),
                                                      paddle_ops.to_tensor(np.full((1, 6, 2, 4), -0.25, np.float32))),
                                       {"cu_seqlens": paddle_ops.to_tensor(np.array([0, 4, 6])), "head_first": False}),
    "gla float32 gate beside float16": ("gla", lambda: (T((1, 2, 6, 4), "float16", seed=5),
                                                         T((1, 2, 6, 4), "float16", seed=6),
                                                         T((1, 2, 6, 3), "float16", seed=7), _gates()),
                                         {"output_final_state": True}),
}


def _good_calls():
    for name in PUBLIC:
        spec = BAD_INPUTS[name]
        yield f"{name} valid", name, lambda spec=spec: ((), spec.valid("cpu"))
    for desc, (op, args, kwargs) in GOOD.items():
        yield desc, op, lambda args=args, kwargs=kwargs: (args(), kwargs)


def _bad_calls():
    for name in PUBLIC:
        spec = BAD_INPUTS[name]
        for arg, bads in spec.bad.items():
            for i, bad in enumerate(bads):
                def make(spec=spec, arg=arg, bad=bad):
                    kwargs = spec.valid("cpu")
                    kwargs[arg] = bad.make("cpu")
                    return (), kwargs
                yield f"{name} {arg} #{i}", name, arg, bad, make


def _front_param(front):
    return pytest.param(front, id=front.name)


def _skip_unless_applies(front, op, arg=None, bad=None):
    if front.method and op not in METHODS:
        pytest.skip(f"{op} is not a Tensor method")
    if front.method and arg == "x":
        pytest.skip("a method's x is the tensor it is called on")
    if front.name == "jax" and bad is not None and isinstance(bad.value, np.ndarray) and arg in ("x", "q", "k", "v",
                                                                                                "gk", "a"):
        pytest.skip("JAX's functions take NumPy arrays as arrays (JAX's convention), so this one is no bad input")


@pytest.mark.parametrize("place", ["cpu", "gpu"])
@pytest.mark.parametrize("front", [_front_param(f) for f in OTHERS])
@pytest.mark.parametrize("desc,op,make", [pytest.param(d, o, m, id=d) for d, o, m in _good_calls()])
def test_good_call_gives_bitwise_the_same(front, desc, op, make, place):
    """On the CPU and on the GPU: each front against paddle_ops' own function on the same place."""
    _skip_unless_applies(front, op)
    if place == "gpu":
        if not gpu_available():
            pytest.skip("no GPU here (the GPU machine runs these)")
        if not front.gpu:
            pytest.skip(f"the {front.name} front here is a CPU build")
    args, kwargs = make()
    ref = _outcome(FRONTS[0], op, args, kwargs, place)
    assert ref[0] == "ok", ref
    got = _outcome(front, op, args, kwargs, place)
    assert _same(ref, got), (desc, ref if ref[0] == "error" else [o and o[0] for o in ref[1]], got)


@pytest.mark.parametrize("front", [_front_param(f) for f in OTHERS])
@pytest.mark.parametrize("desc,op,arg,bad,make", [pytest.param(*c, id=c[0]) for c in _bad_calls()])
def test_bad_call_raises_the_same_type(front, desc, op, arg, bad, make):
    _skip_unless_applies(front, op, arg, bad)
    args, kwargs = make()
    ref = _outcome(FRONTS[0], op, args, kwargs)
    assert ref[0] == "error" and ref[1] is bad.error, ref
    got = _outcome(front, op, args, kwargs)
    assert got[0] == "error", f"{front.name}: {desc} raised nothing"
    assert got[1] is ref[1], (front.name, desc, ref, got)


def test_table_has_every_public_op_and_the_fronts_installed():
    """Every public op of api_yaml's python fields is in the table, with good and bad calls; the
    fronts that are not installed are named with the reason."""
    assert set(PUBLIC) == set(paddle_ops._front.FRONT)
    good = {op for _, op, _ in _good_calls()}
    bad = {op for _, op, _, _, _ in _bad_calls()}
    assert good == bad == set(PUBLIC)
    assert sum(1 for _ in _bad_calls()) >= 80
    names = {f.name for f in FRONTS} | set(MISSING)
    assert names == {"paddle_ops", "methods", "paddle", "torch", "jax"}, (names, MISSING)


@pytest.mark.parametrize("name", ["paddle", "torch", "jax"])
def test_front_is_installed_or_says_why_not(name):
    if name in MISSING:
        pytest.skip(MISSING[name])
    assert any(f.name == name for f in FRONTS)
