"""The package as installed: its metadata and license, `python -m paddle_ops`, the type stubs and
py.typed, the Tensor methods' docstrings, the CUDA architectures it is built for, and the NumPy
inputs to_tensor must take without misreading them (big-endian, ml_dtypes.bfloat16)."""
import ast
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import paddle_ops as paddle
from paddle_ops import _C
from paddle_ops.tensor import methods
from op_test import available_places

PLACES = available_places()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_DIR = os.path.dirname(paddle.__file__)


def _run(args, **kw):
    """`python <args>` in a child process that imports this same paddle_ops."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(PACKAGE_DIR)] + sys.path))
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env, timeout=600, **kw)


# ---- metadata and license --------------------------------------------------------------------


def _pyproject():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_pyproject_metadata_is_complete():
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert project["authors"] == [{"name": "paddle_ops developers"}]
    assert project["version"] == paddle.__version__
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(project["urls"])
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers and "Environment :: GPU :: NVIDIA CUDA" in classifiers
    # PEP 639: with a license expression, no license classifier.
    assert not [c for c in classifiers if c.startswith("License ::")]


def test_license_is_the_apache_2_text():
    text = open(os.path.join(ROOT, "LICENSE"), encoding="utf-8").read()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert text.count("\n") > 190  # the whole text, not a pointer to it


# ---- CUDA architectures ----------------------------------------------------------------------


def test_default_cuda_architectures_cover_ampere_ada_and_hopper():
    cmake = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    default = re.search(r'set\(PADDLE_OPS_CUDA_ARCHS "([^"]+)"', cmake).group(1).split(";")
    assert default == ["80-real", "86-real", "89-real", "90a-real", "80-virtual"]
    build_sh = open(os.path.join(ROOT, "tools", "build.sh"), encoding="utf-8").read()
    assert '-DPADDLE_OPS_CUDA_ARCHS="$PADDLE_OPS_CUDA_ARCHS"' in build_sh


def test_build_config_names_the_architectures_of_this_build():
    from paddle_ops import _build_config as cfg
    assert cfg.WITH_GPU == paddle.is_compiled_with_cuda()
    assert bool(cfg.CUDA_ARCHITECTURES) == cfg.WITH_GPU


@pytest.mark.parametrize("cap,want", [
    ((8, 0), "machine code for sm_80"),
    ((8, 6), "machine code for sm_86"),
    ((8, 7), "machine code for sm_86"),  # sm_86 code runs on later minor versions of 8.x
    ((8, 9), "machine code for sm_89"),
    ((9, 0), "machine code for sm_90a"),
    ((10, 0), "PTX for compute_80, compiled by the driver"),
    ((12, 0), "PTX for compute_80, compiled by the driver"),
    ((7, 5), None),
])
def test_arch_coverage_of_the_default_list(cap, want):
    from paddle_ops.__main__ import arch_coverage
    assert arch_coverage("80-real;86-real;89-real;90a-real;80-virtual", cap) == want


def test_arch_coverage_of_one_architecture():
    from paddle_ops.__main__ import arch_coverage
    assert arch_coverage("90a-real", (9, 0)) == "machine code for sm_90a"
    assert arch_coverage("90a-real", (8, 0)) is None
    assert arch_coverage("90a-real", (10, 0)) is None  # sm_90a code runs on 9.0 only
    assert arch_coverage("native", (9, 0)).startswith("unknown")


# ---- python -m paddle_ops --------------------------------------------------------------------


def test_python_m_paddle_ops_reports_and_checks_every_op():
    r = _run(["-m", "paddle_ops"])
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert out.startswith(f"paddle_ops {paddle.__version__} (")
    for line in ("CUDA backend:", "CPU scan path:", "flags:", "devices: cpu"):
        assert line in out, line
    # The child's own thread count (this process's may have been changed by an earlier test).
    threads = re.search(r"^OpenMP threads: (\d+)$", out, re.M)
    assert threads and int(threads.group(1)) >= 1, out
    from paddle_ops.__main__ import CHECKS
    devices = ["cpu"] + [f"gpu:{i}" for i in range(paddle.device.cuda.device_count())] \
        if paddle.is_compiled_with_cuda() else ["cpu"]
    for dev in devices:
        for name in CHECKS:
            assert re.search(rf"^ok +{dev} +{re.escape(name)}$", out, re.M), (dev, name, out)
    assert f"all {len(CHECKS) * len(devices)} checks passed" in out


def test_python_m_paddle_ops_help_and_unknown_arguments():
    """--help prints the usage and exits 0 without running the check; an unknown argument is a usage
    error, exit 2, before anything runs (both ran the whole check and exited 0 before)."""
    r = _run(["-m", "paddle_ops", "--help"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("usage: python -m paddle_ops") and "checks passed" not in r.stdout
    assert "devices:" not in r.stdout
    for bad in (["--bogus"], ["cpu"], ["-v"]):
        r = _run(["-m", "paddle_ops"] + bad)
        assert r.returncode == 2, (bad, r.stdout + r.stderr)
        assert r.stdout == "" and "usage: python -m paddle_ops" in r.stderr and "unrecognized arguments" in r.stderr


def test_python_m_paddle_ops_exits_nonzero_on_a_wrong_result():
    code = (
        "import sys\n"
        "import paddle_ops.__main__ as m\n"
        "def wrong(place):\n"
        "    raise AssertionError('forward: off by 3 x the tolerance')\n"
        "checks = dict(m.CHECKS)\n"
        "checks['cumsum'] = (wrong, ['cumsum'])\n"
        "sys.exit(m.main([], checks))\n")
    r = _run(["-c", code])
    assert r.returncode == 1, r.stdout + r.stderr
    # The wrong check fails on every device: the CPU and each visible GPU.
    devices = ["cpu"] + [f"gpu:{i}" for i in range(paddle.device.cuda.device_count())] \
        if paddle.is_compiled_with_cuda() else ["cpu"]
    for dev in devices:
        assert re.search(rf"^FAIL +{dev} +cumsum: AssertionError: forward: off by 3", r.stdout, re.M), (dev, r.stdout)
    assert f"\n{len(devices)} check(s) FAILED" in r.stdout


def test_every_generated_op_has_a_check():
    from paddle_ops.__main__ import CHECKS, unchecked_ops
    assert unchecked_ops() == []
    without_gla = {k: v for k, v in CHECKS.items() if k != "gla"}
    assert unchecked_ops(without_gla) == ["gla"]
    lines = []
    from paddle_ops.__main__ import run_checks
    assert run_checks([], without_gla, out=lines.append) == 1
    assert lines[0].startswith("FAIL  gla: an op of the generated API with no check")


# ---- stubs, py.typed, docstrings -------------------------------------------------------------


def test_package_is_marked_typed():
    assert os.path.isfile(os.path.join(PACKAGE_DIR, "py.typed"))


def test_native_module_has_generated_stubs():
    stub_dir = os.path.join(PACKAGE_DIR, "_C")
    if not os.path.isdir(stub_dir):
        pytest.skip("this build had no pybind11-stubgen (tools/setup_deps.sh installs it)")
    trees = {}
    for name in ("__init__", "ops", "static"):
        path = os.path.join(stub_dir, name + ".pyi")
        trees[name] = ast.parse(open(path, encoding="utf-8").read(), path)
    classes = {n.name: n for n in trees["__init__"].body if isinstance(n, ast.ClassDef)}
    tensor_methods = {n.name for n in classes["Tensor"].body if isinstance(n, ast.FunctionDef)}
    assert set(methods.METHODS) - {"__deepcopy__", "__reduce_ex__"} <= tensor_methods | {"__str__"}
    stub_ops = {n.name for n in trees["ops"].body if isinstance(n, ast.FunctionDef)}
    assert stub_ops == {n for n in dir(_C.ops) if not n.startswith("_")}


@pytest.mark.parametrize("name", sorted(methods.METHODS))
def test_tensor_method_has_a_docstring(name):
    fn = getattr(paddle.Tensor, name)
    assert fn is methods.METHODS[name]
    assert fn.__name__ != "<lambda>"
    assert fn.__doc__ and len(fn.__doc__.strip()) > 10


# ---- to_tensor: byte order and ml_dtypes.bfloat16 -------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int16", "int32", "int64", "uint8", "bool"])
def test_to_tensor_converts_big_endian_arrays(place, dtype):
    if dtype == "bool":
        native = (np.arange(12) % 3 == 0).reshape(3, 4)
    elif dtype == "uint8":
        native = np.arange(12, dtype=np.uint8).reshape(3, 4)
    else:
        native = (np.arange(-3, 9).reshape(3, 4) * 1.5).astype(dtype)
    big = native.astype(native.dtype.newbyteorder(">"))
    assert big.dtype.byteorder in (">", "|")
    t = paddle.to_tensor(big, place=place)
    assert t.dtype == paddle.to_tensor(native).dtype
    np.testing.assert_array_equal(t.numpy(), native)
    # a strided big-endian view, and a cast on the way in
    np.testing.assert_array_equal(paddle.to_tensor(big[:, ::2], place=place).numpy(), native[:, ::2])
    if dtype != "bool":
        np.testing.assert_array_equal(paddle.to_tensor(big, dtype="float64", place=place).numpy(),
                                      native.astype(np.float64))


@pytest.mark.parametrize("place", PLACES)
def test_to_tensor_big_endian_scalar_and_bfloat16_bits(place):
    assert paddle.to_tensor(np.array(2.5, dtype=">f8"), place=place).item() == 2.5
    bits = np.array([0x3FC0, 0xC040], dtype=">u2")  # 1.5, -3.0 as bfloat16 bit patterns
    t = paddle.to_tensor(bits, place=place)
    assert t.dtype == paddle.bfloat16
    np.testing.assert_array_equal(t.numpy(), [1.5, -3.0])


def _ml_dtypes():
    return pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed (tools/setup_deps.sh installs it)")


@pytest.mark.parametrize("place", PLACES)
def test_to_tensor_takes_ml_dtypes_bfloat16(place):
    ml = _ml_dtypes()
    values = np.array([[1.5, -2.0, 3.0e38], [np.inf, -0.0, 1.0e-40]], dtype=np.float32)
    a = values.astype(ml.bfloat16)
    t = paddle.to_tensor(a, place=place)
    assert t.dtype == paddle.bfloat16 and t.shape == [2, 3]
    want = a.astype(np.float32)
    np.testing.assert_array_equal(t.numpy(), want)
    assert np.signbit(t.numpy()[1, 1])
    # into another dtype: through float32, which holds every bfloat16 exactly
    np.testing.assert_array_equal(paddle.to_tensor(a, dtype="float64", place=place).numpy(),
                                  want.astype(np.float64))
    # a 0-D array, a strided view and a scalar
    assert paddle.to_tensor(a[0, 0], place=place).item() == 1.5
    np.testing.assert_array_equal(paddle.to_tensor(a[:, ::2], place=place).numpy(), want[:, ::2])
    s = paddle.to_tensor(ml.bfloat16(-2.5), place=place)
    assert s.dtype == paddle.bfloat16 and s.shape == [] and s.item() == -2.5


@pytest.mark.parametrize("place", PLACES)
def test_ml_dtypes_bfloat16_tensor_is_differentiable(place):
    ml = _ml_dtypes()
    x = paddle.to_tensor(np.array([0.0, 1.0, 2.0], dtype=ml.bfloat16), place=place, stop_gradient=False)
    y = paddle.logcumsumexp(x)
    y.sum().backward()
    assert x.grad.dtype == paddle.bfloat16
    want = np.array([1 / 1 + 1 / (1 + np.e) + 1 / (1 + np.e + np.e ** 2),
                     np.e / (1 + np.e) + np.e / (1 + np.e + np.e ** 2),
                     np.e ** 2 / (1 + np.e + np.e ** 2)])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=2 ** -7)


def test_to_tensor_refuses_other_ml_dtypes():
    ml = _ml_dtypes()
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        paddle.to_tensor(np.array([1.0], dtype=ml.float8_e4m3fn))
