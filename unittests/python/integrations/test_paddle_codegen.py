"""tools/codegen/gen_paddle.py: the Paddle registrations come from api_yaml/ alone. On the real
YAML: deterministic, every forward op registered (with its grad op) or listed as skipped with
the reason. On the generator's fixture YAML (ops shaped otherwise: a float attribute, other
optional inputs and outputs): the operators appear with no hand-written code, and the Paddle
side compiles (g++ -fsyntax-only) against the installed Paddle's headers."""
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

from paddle_setup import paddle  # noqa: F401  (skips or fails as the other test_paddle_* files)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GEN = os.path.join(REPO, "tools", "codegen", "gen_paddle.py")
GEN_RUNTIME = os.path.join(REPO, "tools", "codegen", "gen_runtime.py")
# the Paddle side's helpers and the runtime's plain-C interface they include
SRC = [os.path.join(REPO, "paddle_ops", "python", "integrations_src", "paddle"), os.path.join(REPO, "paddle_ops", "runtime")]
sys.path.insert(0, os.path.join(REPO, "tools", "codegen"))
import op_model  # noqa: E402


def generate(ops, bwd, out):
    subprocess.run([sys.executable, GEN, "--ops", ops, "--backward", bwd, "--out", str(out)], check=True)
    subprocess.run([sys.executable, GEN_RUNTIME, "--ops", ops, "--backward", bwd, "--out",
                    os.path.join(out, "runtime_ops.cc")], check=True)
    return {n: open(os.path.join(out, n)).read() for n in sorted(os.listdir(out))}


def test_real_yaml_every_op_registered_or_skipped_with_reason(tmp_path):
    ops_yaml, bwd_yaml = (os.path.join(REPO, "api_yaml", f) for f in ("ops.yaml", "backward.yaml"))
    a = generate(ops_yaml, bwd_yaml, tmp_path / "a")
    assert a == generate(ops_yaml, bwd_yaml, tmp_path / "b")  # deterministic
    ops, bwds = op_model.load(ops_yaml, bwd_yaml)
    built = set(re.findall(r"PD_BUILD_OP\(paddle_ops_(\w+)\)", a["paddle_ext.cc"]))
    grads = set(re.findall(r"PD_BUILD_GRAD_OP\(paddle_ops_(\w+)\)", a["paddle_ext.cc"]))
    skipped = dict(line.split(": ", 1) for line in a["skipped.txt"].splitlines())
    assert {"logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave",
            "repeat_interleave_with_tensor_index", "gla"} <= built
    for op in ops:
        assert (op.name in built) != (op.name in skipped), op.name
        if op.name in built and op.backward:
            assert op.name in grads
    meta = json.loads(a["paddle_ops_meta.json"])
    assert set(meta) == built
    table = re.findall(r'\{"(\w+)", \d+, \d+, \d+, &Run_', a["runtime_ops.cc"])
    assert set(table) == built | {op.backward for op in ops if op.name in built and op.backward}


def test_fixture_ops_need_no_hand_written_code_and_compile_against_paddle(tmp_path):
    fix = os.path.join(REPO, "unittests", "python", "codegen_fixtures")
    files = generate(os.path.join(fix, "ops.yaml"), os.path.join(fix, "backward.yaml"), tmp_path)
    ext = files["paddle_ext.cc"]
    for op in ("pscan", "right_flood", "gla"):
        assert f"PD_BUILD_OP(paddle_ops_{op})" in ext and f"PD_BUILD_GRAD_OP(paddle_ops_{op})" in ext
    assert '"scale: float"' in ext  # the fixture's gla has a float attribute (the real one a double)
    assert "phi/" not in ext.replace("paddle/phi", "")  # the Paddle side names none of our headers
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed: the generated source was not compiled")
    from paddle.utils.cpp_extension.extension_utils import find_paddle_includes
    inc = [f"-I{p}" for p in find_paddle_includes() + [sysconfig.get_paths()["include"], *SRC]]
    res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-w", *inc, str(tmp_path / "paddle_ext.cc")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
