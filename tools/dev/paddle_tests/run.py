"""Run Paddle's own unit tests of logcumsumexp, cumsum and repeat_interleave, unchanged, against
paddle_ops (`import paddle` is paddle_ops here: shim.py; Paddle's OpTest: the stand-in
op_test.py beside this file).

    PYTHONPATH=build/python python3 tools/dev/paddle_tests/run.py DIR [-v]

DIR holds Paddle's test_logcumsumexp_op.py, test_cumsum_op.py and test_repeat_interleave_op.py as
they are in Paddle's source tree (test/legacy_test/); they stay outside this repository. Every
test runs on the CPU, and also on the GPU where one is present (float16 OpTests and Paddle's
bfloat16 classes only there, as in Paddle). Prints one line per test and a summary: passed,
failed, excluded (a failure this project expects, with the reason: EXCLUDED below) and skipped
(with the test's own reason). Exit code 1 when a test fails that is not excluded.
"""
import argparse
import importlib.util
import os
import sys
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import shim  # noqa: E402

FILES = ("test_logcumsumexp_op.py", "test_cumsum_op.py", "test_repeat_interleave_op.py")

# test id -> why it fails here by design (docs/usage.md#paddle-compatibility).
EXCLUDED = {
    "test_logcumsumexp_op.TestLogcumsumexpOp4.test_check_output":
        "the exclusive head: -inf here, the lowest finite float in Paddle's kernel (docs/spec.md §1)",
    "test_cumsum_op.TestTensorAxis.test_static_and_infer":
        "paddle.nn.Linear, paddle.optimizer.SGD and paddle.inference are outside this project",
}


def _name(test):
    """module.Class.method, by the class's own name (Paddle's generated classes share a qualname)."""
    return f"{type(test).__module__}.{type(test).__name__}.{test._testMethodName}"


class _Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.rows = []

    def addSuccess(self, test):
        self.rows.append((_name(test), "passed", ""))

    def addFailure(self, test, err):
        self.rows.append((_name(test), "failed", self._exc_info_to_string(err, test)))

    def addError(self, test, err):
        self.rows.append((_name(test), "failed", self._exc_info_to_string(err, test)))

    def addSkip(self, test, reason):
        self.rows.append((_name(test), "skipped", reason))

    def addExpectedFailure(self, test, err):
        self.rows.append((_name(test), "passed", "expected failure"))

    def addUnexpectedSuccess(self, test):
        self.rows.append((_name(test), "failed", "unexpected success"))


def _load(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    ap = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the folder holding Paddle's three test files")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failure's traceback")
    ap.add_argument("--gpu-as-cpu", action="store_true",
                    help="run the tests' GPU-only cases (float16 and bfloat16 classes) on the CPU instead")
    args = ap.parse_args(argv)
    shim.GPU_AS_CPU = args.gpu_as_cpu
    shim.install()
    sys.path.insert(1, os.path.abspath(args.dir))
    rows = []
    for f in FILES:
        path = os.path.join(args.dir, f)
        if not os.path.exists(path):
            print(f"missing: {path}")
            return 2
        try:
            module = _load(path)
        except Exception:  # noqa: BLE001
            rows.append((f, "failed", traceback.format_exc()))
            continue
        result = _Result()
        unittest.defaultTestLoader.loadTestsFromModule(module).run(result)
        rows.extend(result.rows)
    counts = {"passed": 0, "failed": 0, "excluded": 0, "skipped": 0}
    stale = []
    for test_id, status, detail in sorted(rows):
        if test_id in EXCLUDED:
            if status == "failed":
                status, detail = "excluded", EXCLUDED[test_id]
            elif status == "passed":
                stale.append(test_id)
        counts[status] += 1
        last = detail.strip().splitlines()[-1] if detail.strip() else ""
        print(f"{status:8s} {test_id}" + (f"  ({last})" if status != "passed" and last else ""))
        if status == "failed" and args.verbose:
            print(detail)
    print(f"\n{counts['passed']} passed, {counts['failed']} failed, {counts['excluded']} excluded, "
          f"{counts['skipped']} skipped")
    for test_id in stale:
        print(f"note: {test_id} is excluded but passed: the exclusion list is out of date")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
