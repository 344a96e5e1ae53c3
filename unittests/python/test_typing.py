"""Typing (issue 31 item 7): the public API is annotated and re-exported explicitly, so a type
checker sees paddle_ops.<op> and reports a user's mistakes. mypy (PyPI; tools/setup_deps.sh
installs it) runs on a small user script with deliberate mistakes and must report each one, on
its line, and nothing else."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

import paddle_ops
import paddle_ops.tensor

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(paddle_ops.__file__)))

USER_SCRIPT = textwrap.dedent('''\
    import numpy as np
    import paddle_ops as paddle

    x: paddle.Tensor = paddle.to_tensor(np.ones((2, 3), np.float32))
    y = paddle.logcumsumexp(x, axis=1)
    s: paddle.Tensor = paddle.cumsum(x, 1, "float64")            # Paddle's order: fine
    o, h = paddle.gla(x, x, x, x, output_final_state=True)
    print(h.shape, paddle.right_flood(x, return_index=True)[1], paddle.pscan(x, x, reverse=True))
    r = paddle.repeat_interleave(x, [1, 2], axis=0, output_size=3)
    z: int = paddle.cumsum(x)                                     # MISTAKE: a Tensor, not an int
    w = paddle.cumsum(x, axis="1")                                # MISTAKE: axis is an int
    v = paddle.logcumsumexp(x, exclusive="yes")                   # MISTAKE: exclusive is a bool
    u = paddle.gla(x, x, x, x, scale="0.5")                       # MISTAKE: scale is a float
    t = paddle.pscan(x)                                           # MISTAKE: x is missing
    q = paddle.repeat_interleave(x, 2.5)                          # MISTAKE: repeats is no float
    k: paddle.Tensor = paddle.right_flood(x, return_index=True)   # MISTAKE: a tuple
''')


def _mypy():
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (tools/setup_deps.sh installs it from PyPI)")
    if not os.path.exists(os.path.join(PKG_PARENT, "paddle_ops", "_C", "__init__.pyi")):
        # The sanitizer build (tools/dev/test_sanitize.sh) generates no stubs for _C, so mypy sees
        # Tensor as Any there and cannot report the mistakes; the plain suite runs this test.
        pytest.skip("the package under test has no _C stubs (the sanitizer build makes none)")


def test_mypy_reports_each_deliberate_mistake(tmp_path):
    _mypy()
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    env = dict(os.environ, MYPYPATH=PKG_PARENT)
    r = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental",
                        "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(script)],
                       capture_output=True, text=True, env=env, timeout=600)
    errors = {int(m.group(1)) for m in re.finditer(r"user\.py:(\d+): error:", r.stdout)}
    mistakes = {i + 1 for i, line in enumerate(USER_SCRIPT.splitlines()) if "MISTAKE" in line}
    assert errors == mistakes, r.stdout + r.stderr


def test_top_level_names_are_reexported_explicitly():
    """paddle_ops/__init__.py names every op of tensor.__all__ as `name as name` (what mypy
    follows; a star import inside the import cycle it drops)."""
    with open(paddle_ops.__file__, encoding="utf-8") as f:
        text = f.read()
    explicit = set(re.findall(r"\b(\w+) as \1\b", text))
    assert set(paddle_ops.tensor.__all__) <= explicit, sorted(set(paddle_ops.tensor.__all__) - explicit)
    assert set(paddle_ops.tensor.__all__) <= set(paddle_ops.__all__)


def test_package_is_marked_typed_and_annotated():
    """py.typed is kept; each public op is annotated (on its overloads where it has several forms:
    Paddle's positional order, an output chosen by a bool)."""
    assert os.path.exists(os.path.join(os.path.dirname(paddle_ops.__file__), "py.typed"))
    get_overloads = getattr(__import__("typing"), "get_overloads", None)
    if get_overloads is None:
        pytest.skip("typing.get_overloads needs Python 3.11")
    for name in ("logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave", "gla"):
        fn = getattr(paddle_ops, name)
        forms = [fn] + list(get_overloads(fn))
        assert any("return" in f.__annotations__ for f in forms), name


def test_native_signatures_are_the_tables():
    """paddle_ops' own def lines (annotated, hand-written) take exactly the parameters and
    defaults of api_yaml's python signatures (the other fronts are made from the table)."""
    import inspect
    for name, e in paddle_ops._front.FRONT.items():
        params = inspect.signature(getattr(paddle_ops, name)).parameters
        assert tuple(params) == e["params"], name
        for p in params.values():
            assert (p.default is inspect.Parameter.empty) == (p.name not in e["defaults"]), (name, p.name)
            if p.name in e["defaults"]:
                assert p.default == e["defaults"][p.name], (name, p.name)
            assert (p.kind is inspect.Parameter.KEYWORD_ONLY) == (p.name in e["keyword_only"]), (name, p.name)
