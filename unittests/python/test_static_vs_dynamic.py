"""Every op of op_db.OP_DB gives bitwise the same results in static graph mode as in dynamic
mode on the same place: every sample (and the large, awkward-shape ones), every dtype,
forward and (for the gradient dtypes) x_grad, declared with known and with unknown (-1)
first dims; and every error case raises the same exception type at build time.

An op added to OP_DB is covered with no change here.

On the GPU with the thrust reference backend the large samples are left out: that backend
is not run-to-run deterministic once a row spans several CUB tiles (the decoupled look-back
combines tile prefixes in a timing-dependent order), so two dynamic runs differ already.
"""
import numpy as np
import pytest

import paddle_ops as paddle

from op_db import OP_DB
from op_test import available_places
from static_check import check_static_error, check_static_matches_dynamic

SEED = 2024


def _cases():
    for name, info in OP_DB.items():
        for dtype in info.dtypes:
            for place in available_places():
                yield pytest.param(info, dtype, place, id='%s-%s-%s' % (name, dtype, place))


@pytest.mark.parametrize('info,dtype,place', list(_cases()))
def test_static_matches_dynamic(info, dtype, place):
    samples = list(info.sample_inputs(info, dtype, np.random.default_rng(SEED)))
    if info.large_inputs is not None and not (place == 'gpu' and paddle.device.gpu_scan_backend() == 'thrust'):
        samples += list(info.large_inputs(info, dtype, np.random.default_rng(SEED)))
    rng = np.random.default_rng(SEED + 1)
    differentiable = info.grad_ref is not None and dtype in info.grad_dtypes
    failures, runs = [], 0
    for sample in samples:
        try:
            runs += check_static_matches_dynamic(info, sample, dtype, place, rng,
                                                 with_grad=differentiable and sample.grad)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, '%d of %d samples differ:\n%s' % (len(failures), len(samples),
                                                          '\n'.join(failures[:10]))
    assert runs >= len(samples)


@pytest.mark.parametrize('info', list(OP_DB.values()), ids=list(OP_DB))
@pytest.mark.parametrize('place', available_places())
def test_static_errors_match_dynamic(info, place):
    if info.error_inputs is None:
        pytest.skip('%s declares no error inputs' % info.name)
    failures = []
    errors = list(info.error_inputs(info))
    for err in errors:
        try:
            check_static_error(info, err, place)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, '%d of %d error cases differ in static mode:\n%s' % (
        len(failures), len(errors), '\n'.join(failures))
