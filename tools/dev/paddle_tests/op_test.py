"""A stand-in for Paddle's test/legacy_test/op_test.py, written for paddle_ops (not Paddle's code):
the part of its OpTest interface that Paddle's unit tests of logcumsumexp, cumsum and
repeat_interleave use, with the same rules, run on paddle_ops (tools/dev/paddle_tests/run.py).

What it does, following Paddle's OpTest:
- check_output: the op's python_api on the test's inputs, in dynamic mode and as a static Program
  fed with the NumPy inputs (a uint16 array into a bfloat16 variable: bfloat16 bits, Paddle's
  convention), against `self.outputs`; for float16 and bfloat16 ops against the same op run on
  the inputs' float32 values ("compared with fp32"). Tolerances as Paddle's: float64 atol 0,
  rtol 1e-5; float16 atol 1e-3, rtol 1e-3; bfloat16 atol 1e-2, rtol 1e-2.
- check_grad: the gradient of mean(output) (dynamic, and static through
  paddle.static.gradients) against `user_defined_grads`, or the fp32 run's gradient for 16-bit
  ops, or central differences of mean(output) in the op's dtype (float64: delta 1e-5 and a
  relative error of 1e-7, scaled up where the numeric gradient is tiny, as Paddle's
  _assert_is_close scales it).
- Places: the CPU, and the GPU when one is present; float16 ops only on a GPU (Paddle runs its
  float16 OpTests on CUDA places only).
- Inputs map onto python_api's parameters by name (`X` -> `x`, an attribute of the same name), and
  for repeat_interleave as Paddle's op signature maps them (X, RepeatsTensor or Repeats, dim).
"""
import inspect
import random
import unittest

import numpy as np

import shim

shim.install()
import paddle  # noqa: E402  (paddle_ops, through shim)

get_device_place = shim.get_device_place


def is_custom_device():
    return False


def get_places():
    if shim.GPU_AS_CPU:
        return [paddle.CPUPlace()]
    return [paddle.CPUPlace()] + ([paddle.CUDAPlace(0)] if shim._gpu_count() else [])


def convert_float_to_uint16(float_list, data_format="NCHW"):
    """bfloat16 bits of float values as Paddle's helper makes them: the top 16 bits of each float32
    (truncation, not rounding)."""
    a = np.asarray(float_list, dtype=np.float32)
    if data_format == "NHWC":
        a = np.transpose(a, [0, 3, 1, 2])
    bits = (np.ascontiguousarray(a).view(np.uint32) >> 16).astype(np.uint16)
    return np.transpose(bits, [0, 2, 3, 1]) if data_format == "NHWC" else bits


def convert_uint16_to_float(in_list):
    a = np.ascontiguousarray(np.asarray(in_list, dtype=np.uint16))
    return (a.astype(np.uint32) << 16).view(np.float32).reshape(a.shape)


def skip_check_grad_ci(reason=None):
    if not isinstance(reason, str):
        raise AssertionError("The reason for skipping check_grad is required.")
    return lambda cls: cls


# Paddle's op signatures where the python_api's parameters have other names than the op's.
_ALIASES = {"repeat_interleave": {"x": ("X",), "repeats": ("RepeatsTensor", "Repeats"), "axis": ("dim",)}}


class OpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._np_state = np.random.get_state()
        cls._py_state = random.getstate()
        cls.dtype = None
        np.random.seed(123)
        random.seed(124)

    @classmethod
    def tearDownClass(cls):
        np.random.set_state(cls._np_state)
        random.setstate(cls._py_state)

    # ---- dtype and places ------------------------------------------------------------------
    def _dtype(self):
        if getattr(self, "dtype", None) is not None:
            return np.dtype(self.dtype)
        for v in list(getattr(self, "inputs", {}).values()) + list(getattr(self, "outputs", {}).values()):
            a = np.asarray(v)
            if a.dtype.kind == "f" or a.dtype == np.uint16:
                return a.dtype
        return np.dtype(np.float64)

    def is_bfloat16_op(self):
        return self._dtype() == np.uint16

    def is_float16_op(self):
        return self._dtype() == np.float16

    def is_compared_with_fp32(self):
        return self.is_bfloat16_op() or self.is_float16_op()

    def _get_places(self):
        if self.is_float16_op():
            return [shim._cuda_place(0)] if shim._gpu_count() else []
        return get_places()

    # ---- running the op --------------------------------------------------------------------
    def _args(self):
        """{python_api parameter: (input or attribute name, value, is_input)}."""
        inputs, attrs = getattr(self, "inputs", {}), getattr(self, "attrs", {})
        aliases = _ALIASES.get(self.op_type, {})
        args = {}
        for name in inspect.signature(self.python_api).parameters:
            if name == "name":
                continue
            for key in aliases.get(name, (name, name.upper(), name.capitalize())):
                if key in inputs:
                    args[name] = (key, inputs[key], True)
                    break
                if key in attrs:
                    args[name] = (key, attrs[key], False)
                    break
        return args

    def _input_array(self, a, ref):
        """The NumPy input as the op gets it (ref: the float32 values of 16-bit float inputs)."""
        a = np.asarray(a)
        if ref and self.is_bfloat16_op() and a.dtype == np.uint16:
            return convert_uint16_to_float(a)
        if ref and a.dtype == np.float16:
            return a.astype(np.float32)
        return a

    def _run(self, place, ref=False, grad_inputs=(), overrides=None):
        """(output tensor, {input name: tensor}) of python_api in dynamic mode."""
        kwargs, tensors = {}, {}
        with shim._dygraph_guard():
            for name, (key, value, is_input) in self._args().items():
                if not is_input:
                    kwargs[name] = value
                    continue
                a = overrides[key] if overrides and key in overrides else self._input_array(value, ref)
                t = paddle.to_tensor(a, place=place, stop_gradient=key not in grad_inputs)
                kwargs[name], tensors[key] = t, t
            out = self.python_api(**kwargs)
        return (out[0] if isinstance(out, (tuple, list)) else out), tensors

    def _static_program(self, grad_inputs=()):
        """(program, {input name: data Variable}, output Variable, gradient Variables)."""
        was_dynamic = paddle.in_dynamic_mode()
        paddle.enable_static()
        main = paddle.static.Program()
        try:
            with paddle.static.program_guard(main, paddle.static.Program()):
                kwargs, data = {}, {}
                for name, (key, value, is_input) in self._args().items():
                    if not is_input:
                        kwargs[name] = value
                        continue
                    a = np.asarray(value)
                    dt = "bfloat16" if (a.dtype == np.uint16 and self.is_bfloat16_op()) else str(a.dtype)
                    v = paddle.static.data(key, list(a.shape), dt)
                    v.stop_gradient = key not in grad_inputs
                    kwargs[name], data[key] = v, v
                out = self.python_api(**kwargs)
                out = out[0] if isinstance(out, (tuple, list)) else out
                grads = paddle.static.gradients([paddle.mean(out)], [data[k] for k in grad_inputs]) if grad_inputs else []
        finally:
            if was_dynamic:
                paddle.disable_static()
        return main, data, out, grads

    def _run_static(self, place, grad_inputs=()):
        """[output, gradients...] as NumPy arrays from a static Program fed with the NumPy inputs."""
        main, data, out, grads = self._static_program(grad_inputs)
        feed = {key: np.asarray(self.inputs[key]) for key in data}
        return paddle.static.Executor(place).run(main, feed=feed, fetch_list=[out] + list(grads))

    @staticmethod
    def _as_float(a):
        a = np.asarray(a)
        return convert_uint16_to_float(a) if a.dtype == np.uint16 else a

    # ---- outputs ---------------------------------------------------------------------------
    def _expected(self, place):
        if self.is_compared_with_fp32():
            out, _ = self._run(place, ref=True)
            return out.numpy()
        return np.asarray(next(iter(self.outputs.values())))

    def check_output_with_place(self, place, atol=0, rtol=0, no_check_set=None, equal_nan=False, check_dygraph=True,
                                **kwargs):
        if self._dtype() == np.float64:
            atol = 0
        if self.is_bfloat16_op():
            atol = max(atol, 0.01)
        if self.is_float16_op():
            atol = max(atol, 0.001)
        expected = self._as_float(self._expected(place))
        actuals = [("static", self._run_static(place)[0])]
        if check_dygraph:
            actuals.append(("dygraph", self._run(place)[0].numpy()))
        for how, actual in actuals:
            actual = np.asarray(actual)
            tol = 1e-2 if actual.dtype == np.uint16 else 1e-3 if actual.dtype == np.float16 else 1e-5
            self.assertEqual(actual.shape, expected.shape, f"{self.op_type}: {how} output shape")
            np.testing.assert_allclose(self._as_float(actual), expected, atol=atol, rtol=tol, equal_nan=equal_nan,
                                       err_msg=f"Operator ({self.op_type}) output has diff at {place} ({how})")

    def check_output(self, atol=1e-5, rtol=1e-5, no_check_set=None, equal_nan=False, check_dygraph=True, **kwargs):
        for place in self._get_places():
            self.check_output_with_place(place, atol, rtol, no_check_set, equal_nan, check_dygraph)

    def check_output_with_place_customized(self, checker, place, **kwargs):
        checker([np.array(self._run(place)[0].numpy())])
        checker([np.array(self._run_static(place)[0])])

    def check_output_customized(self, checker, custom_place=None, **kwargs):
        for place in self._get_places() + ([custom_place] if custom_place else []):
            self.check_output_with_place_customized(checker, place)

    # ---- gradients -------------------------------------------------------------------------
    def _analytic(self, place, keys, ref=False):
        out, tensors = self._run(place, ref=ref, grad_inputs=keys)
        with shim._dygraph_guard():
            grads = paddle.grad([paddle.mean(out)], [tensors[k] for k in keys])
        return [self._as_float(g.numpy()) for g in grads]

    def _numeric(self, place, keys, delta):
        """Central differences of mean(output), each input element moved by delta in its dtype."""
        grads = []
        for key in keys:
            base = np.array(self._input_array(self.inputs[key], ref=False))
            flat = base.reshape(-1)
            g = np.zeros(flat.size, dtype=np.float64)
            for i in range(flat.size):
                values = []
                for step in (delta, -delta):
                    moved = flat.copy()
                    moved[i] = moved[i] + moved.dtype.type(step)
                    out, _ = self._run(place, overrides={key: moved.reshape(base.shape)})
                    values.append(np.float64(self._as_float(out.numpy()).astype(flat.dtype).mean()))
                g[i] = (values[0] - values[1]) / delta / 2
            grads.append(g.reshape(base.shape))
        return grads

    def _assert_is_close(self, numeric, analytic, names, max_relative_error, msg_prefix, atol=1e-5):
        for a, b, name in zip(numeric, analytic, names):
            a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
            self.assertEqual(a.shape, b.shape, f"{self.op_type}: gradient of {name}: shape")
            if self.is_bfloat16_op():
                np.testing.assert_allclose(b, a, rtol=max_relative_error, atol=atol,
                                           err_msg=f"{self.op_type}: {msg_prefix} gradient of {name}")
                continue
            scale = np.abs(a)
            if self._dtype() == np.float64:
                scale = np.where(scale < 1e-10, 1e-3, np.where(scale <= 1e-8, scale * 1e4,
                                                                np.where(scale <= 1e-6, scale * 1e2, scale)))
            else:
                scale = np.where(scale < 1e-3, 1.0, scale)
            diff = np.abs(a - b) / scale
            worst = float(np.max(diff)) if diff.size else 0.0
            self.assertLessEqual(worst, max_relative_error,
                                 f"{self.op_type}: {msg_prefix} gradient of {name}: max relative diff {worst:e} over "
                                 f"{max_relative_error:e}")

    def check_grad_with_place(self, place, inputs_to_check, output_names, no_grad_set=None, numeric_grad_delta=0.005,
                              in_place=False, max_relative_error=0.005, user_defined_grads=None,
                              user_defined_grad_outputs=None, check_dygraph=True, numeric_place=None, atol=1e-5,
                              **kwargs):
        if user_defined_grad_outputs is not None:
            raise NotImplementedError("user_defined_grad_outputs is not supported by this stand-in")
        keys = list(inputs_to_check)
        if self.is_bfloat16_op():
            atol = max(atol, 0.01)
            max_relative_error = max(max_relative_error, 0.01)
        if self.is_float16_op():
            atol = max(atol, 0.001)
            max_relative_error = max(max_relative_error, 0.001)
        if self._dtype() == np.float64:
            numeric_grad_delta, max_relative_error = 1e-5, 1e-7
        if user_defined_grads is not None:
            numeric = user_defined_grads
        elif self.is_compared_with_fp32():
            numeric = self._analytic(place, keys, ref=True)
        else:
            numeric = self._numeric(place, keys, numeric_grad_delta)
        static = [self._as_float(g) for g in self._run_static(place, grad_inputs=keys)[1:]]
        self._assert_is_close(numeric, static, keys, max_relative_error, f"static on {place}", atol)
        if check_dygraph:
            self._assert_is_close(numeric, self._analytic(place, keys), keys, max_relative_error,
                                  f"dygraph on {place}", atol)

    def check_grad(self, inputs_to_check, output_names, no_grad_set=None, numeric_grad_delta=0.005, in_place=False,
                   max_relative_error=0.005, user_defined_grads=None, user_defined_grad_outputs=None,
                   check_dygraph=True, atol=1e-5, **kwargs):
        for place in self._get_places():
            self.check_grad_with_place(place, inputs_to_check, output_names, no_grad_set, numeric_grad_delta,
                                       in_place, max_relative_error, user_defined_grads, user_defined_grad_outputs,
                                       check_dygraph, atol=atol)
