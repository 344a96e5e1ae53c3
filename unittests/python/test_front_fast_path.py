"""The front door's fast path (paddle_ops/_front.py, `functions`) against its full path
(`_front.call`, the table read for every call): for many argument forms, the public function of
each front gives bitwise the same outputs as the full path, or the same exception type and
message; the common forms never reach the full path; and paddle_ops' own functions and Tensor
methods pass their parameters to the layer's function in order.

The forms: each public op's valid call and the conformance table's good calls
(test_front_conformance.GOOD), every bad call of the bad-input table, and EDGES below (NumPy
scalars, int and str subclasses, values at the 32-bit edges, None where a bool goes, dtype=
equal to the input's, counts as a tuple or an int32 tensor, output_size with each kind of
counts, scale as an int, NaN or a NumPy float, ...): the forms next to the fast path's tests,
on either side of them.
"""
import ast
import inspect
import textwrap

import numpy as np
import pytest

import paddle_ops
from paddle_ops import _front
from paddle_ops import _front_native
from paddle_ops._front_native import front as native_front
from test_bad_input_table import BAD_INPUTS
from test_front_conformance import FRONTS, GOOD, PUBLIC, T, _bad_calls, _gates, _jax_x64, _same  # noqa: F401 (fixture)


class MyInt(int):
    pass


class MyStr(str):
    pass


def _q(shape=(1, 2, 6, 4), dtype="float32", seed=5):
    return T(shape, dtype, seed)


def _gla(**kwargs):
    return (_q(), _q(seed=6), _q((1, 2, 6, 3), seed=7), _gates()), kwargs


EDGES = {
    "logcumsumexp": [
        ((T((3, 4)), 0), {}), ((T((3, 4)), -2), {}), ((T((3, 4)), 2), {}), ((T((3, 4)), 2 ** 31 - 1), {}),
        ((T((3, 4)), 2 ** 31), {}), ((T((3, 4)), -2 ** 31), {}), ((T((3, 4)), -2 ** 31 - 1), {}),
        ((T((3, 4)), np.int64(1)), {}), ((T((3, 4)), np.int32(-1)), {}), ((T((3, 4)), MyInt(1)), {}),
        ((T((3, 4)), True), {}), ((T((3, 4)), 1.0), {}), ((T((3, 4)), None), {}),
        ((T((3, 4)), 1, np.bool_(True)), {}), ((T((3, 4)), 1, None), {}), ((T((3, 4)), 1, 1), {}),
        ((T((3, 4)), 1, False, None), {}), ((T((3, 4)), 1, False, 0), {}),
        ((T((3, 4)), 1, "float32"), {}), ((T((3, 4)), 1, "float64"), {}), ((T((3, 4)), 1, "int32"), {}),
        ((T((3, 4)),), {"dtype": "float32"}), ((T((3, 4)),), {"dtype": np.float64}),
        ((T((3, 4)),), {"dtype": paddle_ops.float16}), ((T((3, 4), "float16"),), {"axis": 1}),
        ((T((3, 4)).astype("bfloat16"),), {"axis": 1}), ((T((3, 4), "int64"),), {"axis": 1}),
        ((T((3, 4), "bool"),), {}), ((T((3, 4)),), {"name": "y"}), ((T((3, 4)),), {"name": 3}),
        ((np.ones(3, np.float32),), {}), (([1.0, 2.0],), {}), ((None,), {}),
        ((T(()),), {"axis": 0}), ((T(()),), {"axis": -1}), ((T(()),), {"axis": 1}), ((T((0, 3)),), {"axis": 0}),
    ],
    "cumsum": [
        ((T((3, 4)), 1), {}), ((T((3, 4), "int32"), 0, True, True), {}), ((T((3, 4)), 2), {}),
        ((T((3, 4)), paddle_ops.to_tensor(1)), {}), ((T((3, 4)), paddle_ops.to_tensor([1])), {}),
        ((T((3, 4)), paddle_ops.to_tensor(1.0)), {}), ((T((3, 4)), np.int64(0)), {}),
        ((T((3, 4)), 0, "int64"), {}), ((T((3, 4), "int64"),), {"dtype": "int64"}),
        ((T((3, 4), "int8"),), {}), ((T((3, 4), "float64"),), {"axis": -1, "reverse": np.bool_(False)}),
        ((T((3, 4)), 2 ** 31), {}), ((T((3, 4)), 0, MyInt(1)), {}),
    ],
    "pscan": [
        ((T((2, 5)), T((2, 5, 3))), {}), ((T((2, 5, 3)), T((2, 5, 3)), None, True), {}),
        ((T((2, 5, 3)), T((2, 5, 3)), T((2, 3))), {}), ((T((2, 5, 3)), T((2, 5, 3)), T((2, 3), "float64")), {}),
        ((T((2, 5, 3)), T((2, 5, 3), "float64")), {}), ((T((2, 5, 3), "int32"), T((2, 5, 3))), {}),
        ((T((2, 5, 3)), T((2, 5, 3)), None, np.bool_(True)), {}), ((T((2, 5, 3)), T((2, 5, 3)), None, 1), {}),
        ((T((2, 5, 3)), T((2, 5, 3)), [0.0, 1.0]), {}), ((T((2, 5, 3)), T((4, 5, 3))), {}),
        ((T((2, 5, 3), "float16"), T((2, 5, 3), "float16")), {"reverse": True}),
    ],
    "right_flood": [
        ((paddle_ops.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]),), {}),
        ((paddle_ops.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), 0, True, "zero", True), {}),
        ((paddle_ops.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), None), {}),
        ((paddle_ops.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), None), {"return_index": True}),
        ((paddle_ops.to_tensor([np.nan, 1.0, np.nan]),), {"hole": "nan"}),
        ((paddle_ops.to_tensor([np.nan, 1.0, np.nan]),), {"hole": np.str_("nan")}),
        ((paddle_ops.to_tensor([np.nan, 1.0, np.nan]),), {"hole": MyStr("nan")}),
        ((paddle_ops.to_tensor([np.nan, 1.0, np.nan]),), {"hole": "none"}),
        ((paddle_ops.to_tensor([np.nan, 1.0, np.nan]),), {"hole": None}),
        ((paddle_ops.to_tensor([0, 3, 0]),), {"return_index": np.bool_(True)}),
        ((paddle_ops.to_tensor([0, 3, 0]),), {"return_index": 1}),
        ((paddle_ops.to_tensor([0, 3, 0], dtype="int16"),), {}),
        ((paddle_ops.to_tensor([0, 3, 0]), 1), {}), ((paddle_ops.to_tensor([0, 3, 0]), 2 ** 31), {}),
    ],
    "repeat_interleave": [
        ((T((2, 3)), 2), {}), ((T((2, 3)), 2), {"axis": 0}), ((T((2, 3)), 0), {"axis": 1}),
        ((T((2, 3)), -1), {"axis": 1}), ((T((2, 3)), 2 ** 31), {"axis": 1}), ((T((2, 3)), True), {"axis": 1}),
        ((T((2, 3)), np.int64(2)), {"axis": 1}), ((T((2, 3)), MyInt(2)), {"axis": 1}),
        ((T((2, 3)), 2.0), {"axis": 1}), ((T((2, 3)), None), {"axis": 1}), ((T((2, 3)), "2"), {}),
        ((T((2, 3)), (1, 2, 0)), {"axis": 1}), ((T((2, 3)), []), {"axis": 1}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0], np.int32))), {"axis": 1}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0]))), {"axis": 1, "output_size": 3}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0]))), {"axis": 1, "output_size": 4}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0]))), {"axis": 1, "output_size": np.int64(3)}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0]))), {"axis": 1, "output_size": 2 ** 63}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0]))), {"axis": 1, "output_size": 3.0}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1, 2, 0, 1, 1, 1]))), {}),
        ((T((2, 3)), paddle_ops.to_tensor(np.array([1.0, 2.0, 0.0]))), {"axis": 1}),
        ((T((2, 3)), 2), {"axis": 1, "output_size": 6}), ((T((2, 3)), 2), {"axis": 1, "output_size": 5}),
        ((T((2, 3)), 2), {"output_size": 12}), ((T((2, 3)), 2), {"axis": 2}), ((T((2, 3)), 2), {"axis": 1.0}),
        ((T((2, 3), "bool"), 2), {"axis": 1}), ((T((2, 3), "int8"), 2), {}), ((T((2, 3), "float16"), 3), {}),
        ((T(()), 3), {}), ((T(()), 3), {"axis": 0}),
    ],
    "gla": [
        _gla(), _gla(scale=0.5), _gla(scale=1), _gla(scale=np.float32(0.5)), _gla(scale=np.float64(0.5)),
        _gla(scale=float("nan")), _gla(scale=float("inf")), _gla(scale=True), _gla(scale="0.5"),
        _gla(output_final_state=True), _gla(output_final_state=np.bool_(True)), _gla(output_final_state=1),
        _gla(head_first=None), _gla(initial_state=T((1, 2, 4, 3), seed=8), output_final_state=True),
        _gla(initial_state=T((1, 2, 4, 3), "float64", seed=8)),
        _gla(cu_seqlens=paddle_ops.to_tensor(np.array([0, 2, 6])), initial_state=T((2, 2, 4, 3))),
        _gla(cu_seqlens=paddle_ops.to_tensor(np.array([0.0, 6.0]))),
        ((_q((2, 6, 4)), _q((2, 6, 4)), _q((2, 6, 3)), _q((2, 6, 4))), {}),
        ((_q((2, 6, 4)), _q((2, 6, 4)), _q((2, 6, 3)), _q((2, 6, 4))), {"scale": 0.5}),
        ((_q((1, 2, 6, 0)), _q((1, 2, 6, 0)), _q((1, 2, 6, 3)), _q((1, 2, 6, 0))), {}),
        ((_q(dtype="float16"), _q(dtype="float16"), _q((1, 2, 6, 3), "float16"), _gates()), {}),
        ((_q(dtype="int32"), _q(), _q((1, 2, 6, 3)), _gates()), {}),
        ((_q(), _q(dtype="int32"), _q((1, 2, 6, 3)), _gates()), {}),
    ],
}


def _forms():
    for desc, op, _, _, make in _bad_calls():
        yield f"bad {desc}", op, make
    for op in PUBLIC:
        spec = BAD_INPUTS[op]
        yield f"{op} valid", op, lambda spec=spec: ((), spec.valid("cpu"))
        for i, (args, kwargs) in enumerate(EDGES[op]):
            yield f"{op} edge #{i}", op, lambda args=args, kwargs=kwargs: (args, dict(kwargs))
    for desc, (op, args, kwargs) in GOOD.items():
        yield desc, op, lambda args=args, kwargs=kwargs: (args(), dict(kwargs))


FORMS = [pytest.param(op, make, id=desc) for desc, op, make in _forms()]


def _outcome(fn, front, args, kwargs):
    """('ok', [(dtype, values)...]) or ('error', type, message) of fn(*args, **kwargs)."""
    try:
        out = fn(*[_convert(front, a) for a in args], **{k: _convert(front, v) for k, v in kwargs.items()})
    except Exception as e:  # noqa: BLE001  (type and message are compared)
        return ("error", type(e), str(e))
    outs = out if isinstance(out, tuple) else (out,)
    return ("ok", [None if o is None else (str(o.dtype).split(".")[-1], front.numpy(o)) for o in outs])


def _convert(front, v):
    return front.tensor(v.numpy(), "cpu") if isinstance(v, paddle_ops.Tensor) else v


def _full_path(front, op, adapter):
    """`op` of `front` through _front.call alone: the arguments bound to the op's signature."""
    fn = getattr(front.module, op)

    def full(*args, **kwargs):
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        return _front.call(adapter, op, dict(bound.arguments))
    return full


def _adapter(front):
    """The front's adapter: the one its functions were made with."""
    fn = native_front.cumsum if front.name == "paddle_ops" else front.op("cumsum")
    return fn.__globals__["_adapter"]


CHECKED = [f for f in FRONTS if f.name != "methods"]


@pytest.mark.parametrize("front", [pytest.param(f, id=f.name) for f in CHECKED])
@pytest.mark.parametrize("op,make", FORMS)
def test_fast_path_is_the_full_path(front, op, make):
    """Bitwise the same outputs, or the same exception type and message."""
    args, kwargs = make()
    fast = _outcome(front.op(op), front, args, kwargs)
    full = _outcome(_full_path(front, op, _adapter(front)), front, args, kwargs)
    _assert_agree(fast, full)


def _assert_agree(fast, full):
    if full[0] == "error" or fast[0] == "error":
        assert fast == full
    else:
        assert _same(full, fast), (fast, full)


class _Recording(type(_front_native.NATIVE)):
    """The native adapter, recording each YAML op it runs and its arguments."""

    def __init__(self):
        self.calls = []

    def run(self, op, args):
        self.calls.append((op, [_value(a) for a in args]))
        return super().run(op, args)


def _value(a):
    if isinstance(a, paddle_ops.Tensor):
        return ("Tensor", str(a.dtype), tuple(a.shape), a.numpy().tobytes())
    return (type(a), a)


RECORDING = _Recording()
RECORDING_FUNCTIONS = _front.functions(RECORDING)


@pytest.mark.parametrize("op,make", FORMS)
def test_fast_path_runs_the_same_call(op, make):
    """The YAML op each path runs and its arguments (their types and values; a tensor's dtype,
    shape and bytes) are the same: not only the same results."""
    args, kwargs = make()
    fast = _outcome(RECORDING_FUNCTIONS[op], FRONTS[0], args, kwargs)
    fast_calls, RECORDING.calls[:] = list(RECORDING.calls), []
    sig = inspect.signature(RECORDING_FUNCTIONS[op])
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:  # not a call of the op's signature: Python's own error, before either path
        assert fast[0] == "error" and fast[1] is TypeError and not fast_calls
        return
    bound.apply_defaults()
    full = _outcome(lambda: _front.call(RECORDING, op, dict(bound.arguments)), FRONTS[0], (), {})
    full_calls, RECORDING.calls[:] = list(RECORDING.calls), []
    assert fast_calls == full_calls
    _assert_agree(fast, full)


COMMON = {
    "logcumsumexp": [((T((3, 4)),), {}), ((T((3, 4)), 1, True, False), {}), ((T((3, 4), "float64"), -1), {})],
    "cumsum": [((T((3, 4), "int64"),), {"axis": 0, "reverse": True}), ((T((3, 4)), 1), {})],
    "pscan": [((T((2, 5, 3)), T((2, 5, 3)), T((2, 3)), True), {}), ((T((2, 5)), T((2, 5, 3))), {})],
    "right_flood": [((T((3, 4)),), {"return_index": True}), ((T((3, 4)), None, True, "nan"), {})],
    "repeat_interleave": [((T((2, 3)), 2), {}), ((T((2, 3)), paddle_ops.to_tensor([1, 0, 2])), {"axis": 1}),
                          ((T((2, 3)), paddle_ops.to_tensor([1, 0, 2])), {"axis": -1, "output_size": 3})],
    "gla": [_gla(), _gla(scale=0.25, output_final_state=True, initial_state=T((1, 2, 4, 3)))],
}


@pytest.mark.parametrize("op", PUBLIC)
def test_common_forms_never_reach_the_full_path(op, monkeypatch):
    """The common forms are the fast path's: with _front.call replaced by a failure, paddle_ops'
    functions, its Tensor methods and each other front still answer them."""
    def full_path(adapter, op_, arguments):
        raise AssertionError(f"{op_} reached _front.call with {sorted(arguments)}")
    for fn in [getattr(native_front, op)] + [f.op(op) for f in CHECKED if f.name != "paddle_ops"]:
        monkeypatch.setitem(fn.__globals__, "_call", full_path)
    for args, kwargs in COMMON[op]:
        for f in CHECKED:
            f.op(op)(*[_convert(f, a) for a in args], **{k: _convert(f, v) for k, v in kwargs.items()})
    # and a bad form still reaches it
    with pytest.raises(AssertionError, match="reached _front.call"):
        getattr(paddle_ops, op)(*(["not a tensor"] * 4))


def _front_call(fn):
    """The `front.<op>(...)` call that is `fn`'s body: (op, positional names, keyword names)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0].body
    ret = body[-1]
    assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call), fn
    call = ret.value
    assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name), fn
    assert call.func.value.id == "front", fn
    return (call.func.attr, [a.id for a in call.args], {k.arg: k.value.id for k in call.keywords})


@pytest.mark.parametrize("op", list(_front.FRONT))
def test_native_functions_pass_their_parameters_in_order(op):
    """paddle_ops.<op> and Tensor.<op> are `return front.<op>(their parameters)`, positional in
    order, keyword-only by keyword (a parameter passed in the wrong place would be a bug no other
    test names)."""
    e = _front.FRONT[op]
    positional = [p for p in e["params"] if p not in e["keyword_only"]]
    keywords = {p: p for p in e["keyword_only"]}
    assert _front_call(getattr(paddle_ops, op)) == (op, positional, keywords)
    method = getattr(paddle_ops.Tensor, op, None)
    if method is not None:
        assert _front_call(method) == (op, ["self"] + positional[1:], keywords)


def test_every_op_has_a_fast_path():
    """Each public op's function tests for the common case (not call() alone)."""
    for op, e in _front.FRONT.items():
        assert _front._fast_source(op, e) is not None, op
        assert "_adapter.run(" in getattr(native_front, op).__source__, op
