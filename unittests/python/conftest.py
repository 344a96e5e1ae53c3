"""pytest setup for the paddle_ops Python tests.

Run from the repository root after a build:
    PYTHONPATH=build/python python3 -m pytest unittests/python
paddle_ops itself comes from PYTHONPATH; this file only makes the shared test modules
(op_test.py, op_db.py) importable.
"""

import fcntl
import os
import sys
import tempfile

import pytest

# JAX takes 75% of a GPU's memory at its first array unless told not to; the tests that follow in
# the same process (the > 2^31-element cases of test_gpu_limits.py need ~21 GiB) would then run out.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_collection_modifyitems(config, items):
    """A test module may define not_applicable(item): the reason a collected combination of its
    parameters does not apply (a flag that does not reach that place or dtype), or None. Those
    combinations are deselected at collection, counted by reason in the summary, instead of
    each being reported as a skip (the module's fixtures still skip them when run directly)."""
    keep, drop, reasons = [], [], {}
    for item in items:
        judge = getattr(getattr(item, 'module', None), 'not_applicable', None)
        why = judge(item) if judge and hasattr(item, 'callspec') else None
        if why:
            drop.append(item)
            key = (item.module.__name__, why)
            reasons[key] = reasons.get(key, 0) + 1
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        config._paddle_ops_not_applicable = reasons


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    reasons = getattr(config, '_paddle_ops_not_applicable', None)
    if reasons:
        terminalreporter.section('deselected: parameter combinations that do not apply')
        for (module, why), n in sorted(reasons.items()):
            terminalreporter.write_line('%d %s: %s' % (n, module, why))


def pytest_report_header(config):
    try:
        import paddle_ops
        from op_test import available_places
        return 'paddle_ops from %s; places: %s' % (
            os.path.dirname(paddle_ops.__file__), ', '.join(available_places()))
    except Exception as e:  # the header is informational; collection reports the real error
        return 'paddle_ops not importable: %s: %s' % (type(e).__name__, e)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "whole_gpu: fills the GPU's memory; under pytest-xdist it runs while no other test does")


@pytest.fixture(autouse=True)
def _whole_gpu_turns(request):
    """Under pytest-xdist every worker shares the one GPU, and a test that fills its memory (the
    out-of-memory tests of test_gpu_limits.py, marked whole_gpu) made another worker's ordinary
    allocation fail (H200, 2026-11-30: test_gla_op.py's to_tensor). Two file locks per run: a test
    passes a gate, then holds the GPU lock shared; a whole_gpu test keeps the gate closed while it
    waits for the GPU lock alone and runs, so no test starts meanwhile and none starves it."""
    # A worker is known by its config (workerinput), not by PYTEST_XDIST_WORKER: a test that runs
    # pytest in a child process (test_torch_ops.py's Python path) passes the variable on, and the
    # child's tests then queued at the gate behind a whole_gpu test that waited for the parent's
    # shared lock, a deadlock (H200, 2026-11-30 fourteenth session: every worker stalled).
    workerinput = getattr(request.config, "workerinput", None)
    if workerinput is None:
        yield
        return
    whole = request.node.get_closest_marker("whole_gpu") is not None
    base = os.path.join(tempfile.gettempdir(), "paddle_ops_pytest_" + str(workerinput.get("testrunuid", os.getppid())))
    with open(base + ".gate", "a") as gate, open(base + ".gpu", "a") as gpu:
        fcntl.flock(gate, fcntl.LOCK_EX)
        if whole:
            fcntl.flock(gpu, fcntl.LOCK_EX)
        else:
            fcntl.flock(gate, fcntl.LOCK_UN)
            fcntl.flock(gpu, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(gpu, fcntl.LOCK_UN)
            if whole:
                fcntl.flock(gate, fcntl.LOCK_UN)
