"""pytest setup for the paddle_ops Python tests.

Run from the repository root after a build:
    PYTHONPATH=build/python python3 -m pytest unittests/python
paddle_ops itself comes from PYTHONPATH; this file only makes the shared test modules
(op_test.py, op_db.py) importable.
"""

import os
import sys

# JAX takes 75% of a GPU's memory at its first array unless told not to; the tests that follow in
# the same process (the > 2^31-element cases of test_gpu_limits.py need ~21 GiB) would then run out.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_report_header(config):
    try:
        import paddle_ops
        from op_test import available_places
        return 'paddle_ops from %s; places: %s' % (
            os.path.dirname(paddle_ops.__file__), ', '.join(available_places()))
    except Exception as e:  # the header is informational; collection reports the real error
        return 'paddle_ops not importable: %s: %s' % (type(e).__name__, e)
