"""Static graph mode (Paddle's paddle.static), generated from the same api_yaml/ as the
dynamic API.

    import paddle_ops as paddle
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data('x', [-1, 4], 'float32')
        y = paddle.logcumsumexp(x, axis=1)
        (dx,) = paddle.static.gradients([y], [x])
    exe = paddle.static.Executor('cpu')
    y_np, dx_np = exe.run(main, feed={'x': np.ones((2, 4), 'float32')}, fetch_list=[y, dx])
    paddle.disable_static()

In static mode each public API call appends an op (its YAML name, inputs, outputs and
attributes) to the current block, with shapes and dtypes from the op's own InferMeta
(unknown dims stay -1: see op_builder); Executor.run runs the ops in order through the same
C++ API (kernel lookup, InferMeta on the real shapes, kernel) as dynamic mode.
"""
from .backward import gradients  # noqa: F401
from .executor import Executor  # noqa: F401
from .framework import (  # noqa: F401
    Block, Operator, Program, Variable, data, default_main_program, default_startup_program, program_guard,
)
from .mode import disable_static, enable_static, in_dynamic_mode, in_static_mode  # noqa: F401

__all__ = ["Program", "Block", "Operator", "Variable", "data", "program_guard", "default_main_program",
           "default_startup_program", "Executor", "gradients", "enable_static", "disable_static",
           "in_dynamic_mode"]
