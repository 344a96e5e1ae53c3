"""The run-time switches (paddle_ops/common/flags.h): paddle.get_flags / set_flags, and the strict
reading of the PADDLE_OPS_* environment variables when paddle_ops is imported (each such case in
a fresh interpreter)."""
import os
import subprocess
import sys

import pytest

import paddle_ops as paddle

# name -> (default, a valid other value, bad values)
FLAGS = {
    'PADDLE_OPS_GPU_SCAN': ('engine', 'thrust', ['fast', 'Engine', ' engine']),
    'PADDLE_OPS_GLA_GPU': ('chunked', 'chunked_v1', ['v1', 'CHUNKED', '2']),
    'PADDLE_OPS_GLA_CPU': ('auto', 'recurrent', ['fast', 'chunked ', '1']),
    'PADDLE_OPS_CPU_CACHE_MB': (2048, None, ['-1', 'abc', '1.5', '+3', '12MB']),
    'PADDLE_OPS_CPU_ISA': ('auto', 'baseline', ['avx', 'AVX2', 'sse2']),
    'PADDLE_OPS_TORCH_OUTPUTS': ('auto', 'ours', ['mine', 'Torch', '1']),
    'PADDLE_OPS_QUIET': ('0', '1', ['yes', 'true', '2']),
}
SETTABLE = [n for n, (_, other, _) in FLAGS.items() if other is not None]


def import_with_env(code='import paddle_ops', **env_vars):
    env = {k: v for k, v in os.environ.items() if not k.startswith('PADDLE_OPS_')}
    env.update(env_vars)
    return subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def restore_flags():
    saved = paddle.get_flags()
    yield
    paddle.set_flags(saved)


def test_get_flags_lists_every_flag():
    flags = paddle.get_flags()
    assert list(flags) == list(FLAGS)
    table = paddle.flags.flag_table()
    assert [r['name'] for r in table] == list(FLAGS)
    for row in table:
        assert row['doc'] and row['accepted']
        assert row['default'] == FLAGS[row['name']][0] or row['name'] == 'PADDLE_OPS_CPU_CACHE_MB'
        assert row['start_only'] == (row['name'] == 'PADDLE_OPS_CPU_CACHE_MB')
    assert isinstance(flags['PADDLE_OPS_CPU_CACHE_MB'], int)


def test_defaults_in_a_clean_environment():
    r = import_with_env('import paddle_ops as p; print(p.get_flags())')
    assert r.returncode == 0, r.stderr
    # The cache's default is 0 in a build with AddressSanitizer, else 2048.
    defaults = {r['name']: r['default'] for r in paddle.flags.flag_table()}
    assert defaults['PADDLE_OPS_CPU_CACHE_MB'] in (0, 2048)
    assert eval(r.stdout) == defaults  # noqa: S307 (our own output)
    assert {n: defaults[n] for n in SETTABLE} == {n: FLAGS[n][0] for n in SETTABLE}


def test_get_flags_by_name_and_list():
    assert paddle.get_flags('PADDLE_OPS_GLA_GPU') == {'PADDLE_OPS_GLA_GPU': paddle.get_flags()['PADDLE_OPS_GLA_GPU']}
    two = paddle.get_flags(['PADDLE_OPS_GLA_CPU', 'PADDLE_OPS_GPU_SCAN'])
    assert list(two) == ['PADDLE_OPS_GLA_CPU', 'PADDLE_OPS_GPU_SCAN']
    with pytest.raises(ValueError, match='unknown flag .PADDLE_OPS_GPU_SCANN.*PADDLE_OPS_GPU_SCAN'):
        paddle.get_flags('PADDLE_OPS_GPU_SCANN')


@pytest.mark.parametrize('name', SETTABLE)
def test_set_flags_round_trip(name, restore_flags):
    default, other, _ = FLAGS[name]
    paddle.set_flags({name: other})
    assert paddle.get_flags(name) == {name: other}
    paddle.set_flags({name: default})
    assert paddle.get_flags(name) == {name: default}


def test_gpu_scan_backend_is_the_flag(restore_flags):
    paddle.set_flags({'PADDLE_OPS_GPU_SCAN': 'thrust'})
    assert paddle.device.gpu_scan_backend() == 'thrust'
    paddle.set_flags({'PADDLE_OPS_GPU_SCAN': 'engine'})
    assert paddle.device.gpu_scan_backend() == 'engine'


@pytest.mark.parametrize('name', list(FLAGS))
def test_bad_set_flags_value_names_flag_and_accepted_values(name, restore_flags):
    before = paddle.get_flags()
    for bad in FLAGS[name][2] + [None, 1.5]:
        with pytest.raises(ValueError) as info:
            paddle.set_flags({name: bad})
        msg = str(info.value)
        assert name in msg and 'accepted values' in msg, msg
    assert paddle.get_flags() == before


def test_set_flags_checks_every_entry_first(restore_flags):
    before = paddle.get_flags()
    with pytest.raises(ValueError, match='PADDLE_OPS_GLA_GPU'):
        paddle.set_flags({'PADDLE_OPS_GPU_SCAN': 'thrust', 'PADDLE_OPS_GLA_GPU': 'fast'})
    assert paddle.get_flags() == before
    with pytest.raises(ValueError, match='unknown flag .GLA_GPU.*PADDLE_OPS_GLA_GPU'):
        paddle.set_flags({'GLA_GPU': 'chunked'})
    with pytest.raises(TypeError):
        paddle.set_flags([('PADDLE_OPS_GLA_GPU', 'chunked')])


def test_cache_limit_is_read_at_start_only():
    now = paddle.get_flags('PADDLE_OPS_CPU_CACHE_MB')
    paddle.set_flags(now)  # its own value: accepted
    with pytest.raises(ValueError, match='PADDLE_OPS_CPU_CACHE_MB is read from the environment once'):
        paddle.set_flags({'PADDLE_OPS_CPU_CACHE_MB': now['PADDLE_OPS_CPU_CACHE_MB'] + 1})
    assert paddle.device.cpu.cache_limit() == now['PADDLE_OPS_CPU_CACHE_MB'] << 20


def test_environment_sets_flags_at_import():
    r = import_with_env('import paddle_ops as p; print(p.get_flags())', PADDLE_OPS_GPU_SCAN='thrust',
                        PADDLE_OPS_GLA_GPU='recurrent', PADDLE_OPS_GLA_CPU='chunked', PADDLE_OPS_CPU_CACHE_MB='7',
                        PADDLE_OPS_CPU_ISA='avx2', PADDLE_OPS_TORCH_OUTPUTS='torch', PADDLE_OPS_QUIET='1',
                        PADDLE_OPS_SKIP_HUGE='1',
                        PADDLE_OPS_EXTENSION_DIR='/tmp', PADDLE_OPS_REQUIRE_PADDLE='1')
    assert r.returncode == 0, r.stderr
    assert eval(r.stdout) == {'PADDLE_OPS_GPU_SCAN': 'thrust', 'PADDLE_OPS_GLA_GPU': 'recurrent',  # noqa: S307
                              'PADDLE_OPS_GLA_CPU': 'chunked', 'PADDLE_OPS_CPU_CACHE_MB': 7,
                              'PADDLE_OPS_CPU_ISA': 'avx2', 'PADDLE_OPS_TORCH_OUTPUTS': 'torch',
                              'PADDLE_OPS_QUIET': '1'}
    assert r.stderr == ''  # a tool's variable (PADDLE_OPS_SKIP_HUGE, ...) draws no warning


def test_empty_value_is_unset():
    r = import_with_env('import paddle_ops as p; print(p.get_flags()["PADDLE_OPS_GLA_GPU"])', PADDLE_OPS_GLA_GPU='')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'chunked'


@pytest.mark.parametrize('name', list(FLAGS))
def test_bad_environment_value_fails_the_import(name):
    bad = FLAGS[name][2][0]
    r = import_with_env(**{name: bad})
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith('ValueError: ') and f"{name}='{bad}' (from the environment)" in last, r.stderr
    assert 'accepted values' in last, last


def test_unknown_variable_warns():
    r = import_with_env(PADDLE_OPS_GLA_GPUU='chunked')
    assert r.returncode == 0, r.stderr
    assert 'RuntimeWarning' in r.stderr and 'PADDLE_OPS_GLA_GPUU' in r.stderr, r.stderr
