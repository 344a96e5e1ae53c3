"""`import paddle` as paddle_ops, for running Paddle's own unit tests of logcumsumexp, cumsum and
repeat_interleave unchanged (tools/dev/paddle_tests/run.py; docs/testing.md).

install() makes `paddle` (and the few `paddle.*` modules those tests import) name paddle_ops,
with the small set of Paddle names they use besides the ops, each mapped onto paddle_ops' own:
`paddle.base` (places, Executor, Program, program_guard, dygraph.guard, core), `core` (build
queries, VarDesc.VarType dtypes), `paddle.pir_utils` (IR switches: this project has one static
graph, so they do nothing), `paddle.framework.in_pir_mode` (True: Paddle 3's default) and
`paddle.get_device_place`. What lies outside this project (`paddle.inference`, `paddle.nn`,
`paddle.optimizer`) stays absent: a test that needs it fails with an error naming it, and
run.py lists it as excluded with that reason. Nothing here changes paddle_ops outside this
process.
"""
import contextlib
import sys
import types

import paddle_ops


class _OutsideScope(types.ModuleType):
    """A Paddle module outside this project: importable (so a test file that imports it loads),
    any use is an error naming it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(f"{self.__name__}.{name}: {self.__name__} is outside paddle_ops' scope")


# run.py --gpu-as-cpu: the tests' GPU cases (Paddle's float16 and bfloat16 classes, which Paddle runs
# on CUDA places only) run on the CPU instead, which takes every dtype here.
GPU_AS_CPU = False


def _gpu_count():
    if GPU_AS_CPU:
        return 1
    try:
        return paddle_ops.device.cuda.device_count() if paddle_ops.is_compiled_with_cuda() else 0
    except Exception:  # noqa: BLE001  (a CUDA build on a machine without a GPU)
        return 0


def get_device_place():
    return _cuda_place(0) if _gpu_count() else paddle_ops.CPUPlace()


def _cuda_place(device_id=0):
    return paddle_ops.CPUPlace() if GPU_AS_CPU else paddle_ops.CUDAPlace(device_id)


@contextlib.contextmanager
def _nothing(*args, **kwargs):
    yield


@contextlib.contextmanager
def _dygraph_guard(place=None):
    """paddle.base.dygraph.guard: dynamic mode within the block, the mode before restored."""
    was_dynamic = paddle_ops.in_dynamic_mode()
    if not was_dynamic:
        paddle_ops.disable_static()
    try:
        yield
    finally:
        if not was_dynamic:
            paddle_ops.enable_static()


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


def install():
    """Make `paddle` paddle_ops in sys.modules (idempotent)."""
    if sys.modules.get("paddle") is paddle_ops:
        return
    p = paddle_ops
    var_type = types.SimpleNamespace(FP16=p.float16, BF16=p.bfloat16, FP32=p.float32, FP64=p.float64,
                                     INT32=p.int32, INT64=p.int64, BOOL=p.bool, UINT8=p.uint8, INT8=p.int8,
                                     INT16=p.int16)
    core = _module(
        "paddle.base.core",
        is_compiled_with_cuda=lambda: _gpu_count() > 0,
        is_bfloat16_supported=lambda place=None: True,   # every dtype on every place here
        is_float16_supported=lambda place=None: True,
        op_support_gpu=lambda op_type: True,
        CPUPlace=p.CPUPlace,
        CUDAPlace=_cuda_place,
        VarDesc=types.SimpleNamespace(VarType=var_type),
    )
    dygraph = _module("paddle.base.dygraph", guard=_dygraph_guard)
    base = _module(
        "paddle.base",
        core=core,
        dygraph=dygraph,
        CPUPlace=p.CPUPlace,
        CUDAPlace=_cuda_place,
        Executor=p.static.Executor,
        Program=p.static.Program,
        program_guard=p.static.program_guard,
        default_main_program=p.static.default_main_program,
        default_startup_program=p.static.default_startup_program,
    )
    pir_utils = _module("paddle.pir_utils", OldIrGuard=_nothing, IrGuard=_nothing,
                        test_with_pir_api=lambda fn: fn)
    inference = _OutsideScope("paddle.inference")
    p.base = base
    p.pir_utils = pir_utils
    p.inference = inference
    p.get_device_place = get_device_place
    if GPU_AS_CPU:
        p.CUDAPlace = _cuda_place
        p.is_compiled_with_cuda = lambda: True
    p.framework.in_pir_mode = lambda: True
    sys.modules.update({
        "paddle": p,
        "paddle.base": base,
        "paddle.base.core": core,
        "paddle.base.dygraph": dygraph,
        "paddle.pir_utils": pir_utils,
        "paddle.framework": p.framework,
        "paddle.static": p.static,
        "paddle.inference": inference,
    })
