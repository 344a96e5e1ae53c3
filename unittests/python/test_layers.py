"""The layer check tools/dev/check_layers.py: on the real tree, and on small fake trees that break
each rule (an upward include, an include cycle, a stale include, an import cycle).

Needs only Python; not paddle_ops.
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(REPO, "tools", "dev", "check_layers.py")


def run_check(root):
    return subprocess.run([sys.executable, CHECK, str(root)], capture_output=True, text=True,
                          timeout=120)


def write_tree(root, files):
    for path, text in files.items():
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text)


def test_real_tree_passes():
    r = run_check(REPO)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "check_layers: ok" in r.stdout


def test_clean_fake_tree_passes(tmp_path):
    write_tree(tmp_path, {
        "paddle_ops/common/a.h": "#pragma once\n#include <vector>\n#include \"cute/tensor.hpp\"\n",
        "paddle_ops/core/b.h": "#include \"paddle_ops/common/a.h\"\n",
        "kernels/funcs/e.h": "#include \"paddle_ops/core/b.h\"\n",
        "kernels/impl/k.h": "#include \"kernels/funcs/e.h\"\n#include \"e2.h\"\n",
        "kernels/impl/e2.h": "#include \"paddle_ops/common/a.h\"\n",
        "paddle_ops/api/x.cc": "#include \"kernels/impl/k.h\"\n#include \"paddle_ops_gen/api.h\"\n",
        "unittests/cpp/t.cc": "#include \"paddle_ops/api/nothing.h\"\n",   # not checked
        "paddle_ops/python/paddle_ops/__init__.py": "from . import _C\nfrom . import a\n",
        "paddle_ops/python/paddle_ops/a.py": "from . import _C\n\ndef f():\n    from . import b\n",
        "paddle_ops/python/paddle_ops/b.py": "from . import _C\n",
    })
    r = run_check(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


# Fake trees that break a rule, and what the report must say (each line names the file).
BAD_TREES = {
    "upward": ({
        "paddle_ops/common/x.h": "#pragma once\n\n#include \"kernels/funcs/y.h\"\n",
        "kernels/funcs/y.h": "#pragma once\n",
    }, ['paddle_ops/common/x.h:3: #include "kernels/funcs/y.h": upward']),
    "engine_to_op_and_kernels_to_infermeta": ({
        "kernels/funcs/gpu/t.cuh": "#include \"kernels/impl/op.h\"\n",
        "kernels/impl/op.h": "#include \"infermeta/unary.h\"\n",
        "infermeta/unary.h": "#include \"paddle_ops/core/c.h\"\n",
        "paddle_ops/core/c.h": "\n",
    }, ['kernels/funcs/gpu/t.cuh:1: #include "kernels/impl/op.h": upward',
        'kernels/impl/op.h:1: #include "infermeta/unary.h": upward']),
    "include_cycle": ({
        "kernels/impl/a.h": "#include \"kernels/impl/b.h\"\n",
        "kernels/impl/b.h": "#include \"c.h\"\n",
        "kernels/impl/c.h": "#include \"kernels/impl/a.h\"\n",
    }, ["kernels/impl/a.h:1: cycle: include circle kernels/impl/a.h -> kernels/impl/b.h -> "
        "kernels/impl/c.h -> kernels/impl/a.h"]),
    "stale": ({
        "kernels/cpu/k.cc": "#include \"kernels/funcs/moved_away.h\"\n",
    }, ['kernels/cpu/k.cc:1: #include "kernels/funcs/moved_away.h": stale']),
    "python_import_cycle": ({
        "paddle_ops/python/paddle_ops/__init__.py": "from . import a\n",
        "paddle_ops/python/paddle_ops/a.py": "from .b import f\n",
        "paddle_ops/python/paddle_ops/b.py": "if True:\n    from . import a\n",
    }, ["paddle_ops/python/paddle_ops/a.py:1: import cycle: paddle_ops.a -> paddle_ops.b -> paddle_ops.a"]),
    # issue 31: framework.py imported device/ inside a function, device/ framework at the top
    "python_import_cycle_in_a_function": ({
        "paddle_ops/python/paddle_ops/__init__.py": "from . import framework\n",
        "paddle_ops/python/paddle_ops/framework.py": "def place():\n    from .device import current\n",
        "paddle_ops/python/paddle_ops/device/__init__.py": "from ..framework import place\n",
    }, ["paddle_ops/python/paddle_ops/device/__init__.py:1: import cycle: paddle_ops.device -> "
        "paddle_ops.framework -> paddle_ops.device"]),
}


@pytest.mark.parametrize("case", sorted(BAD_TREES))
def test_bad_tree_fails(tmp_path, case):
    files, expected = BAD_TREES[case]
    write_tree(tmp_path, files)
    r = run_check(tmp_path)
    assert r.returncode == 1, r.stdout
    lines = r.stdout.splitlines()
    for want in expected:
        assert any(line.startswith(want) for line in lines), (want, r.stdout)
    assert len(lines) == len(expected) + 1, r.stdout   # nothing else reported, then the count
