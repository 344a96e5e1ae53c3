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
    # chunked_v1 named the first generation of the chunked GPU kernels, since removed.
    'PADDLE_OPS_GLA_GPU': ('chunked', 'recurrent', ['chunked_v1', 'v1', 'CHUNKED', '1', '2']),
    'PADDLE_OPS_GLA_GPU_BWD': ('sm90', 'chunked', ['SM90', 'sm90a', '1', 'recurrent']),
    'PADDLE_OPS_GLA_GPU_FWD': ('auto', 'plain', ['split', 'Plain', 'off', '0']),
    'PADDLE_OPS_GLA_CPU': ('auto', 'recurrent', ['fast', 'chunked ', '1']),
    'PADDLE_OPS_CPU_CACHE_MB': (2048, None, ['-1', 'abc', '1.5', '+3', '12MB', '9999999999999999999',
                                             '18446744073709551616', str(2 ** 30 + 1)]),
    'PADDLE_OPS_CPU_ISA': ('auto', 'baseline', ['avx', 'AVX2', 'sse2']),
    'PADDLE_OPS_TORCH_OUTPUTS': ('auto', 'ours', ['mine', 'Torch', '1']),
    'PADDLE_OPS_QUIET': ('0', '1', ['yes', 'true', '2']),
    # gla's testing aid (bytes of shared memory per block; 0: the device's own).
    'PADDLE_OPS_GLA_GPU_SMEM_LIMIT': (0, 101376, ['-1', 'abc', '99KB', '1e5', str(2 ** 30 + 1)]),
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
                        PADDLE_OPS_GLA_GPU='recurrent', PADDLE_OPS_GLA_GPU_BWD='chunked',
                        PADDLE_OPS_GLA_GPU_FWD='plain', PADDLE_OPS_GLA_CPU='chunked',
                        PADDLE_OPS_CPU_CACHE_MB='7',
                        PADDLE_OPS_CPU_ISA='avx2', PADDLE_OPS_TORCH_OUTPUTS='torch', PADDLE_OPS_QUIET='1',
                        PADDLE_OPS_SKIP_HUGE='1',
                        PADDLE_OPS_EXTENSION_DIR='/tmp', PADDLE_OPS_REQUIRE_PADDLE='1')
    assert r.returncode == 0, r.stderr
    assert eval(r.stdout) == {'PADDLE_OPS_GPU_SCAN': 'thrust', 'PADDLE_OPS_GLA_GPU': 'recurrent',  # noqa: S307
                              'PADDLE_OPS_GLA_GPU_BWD': 'chunked', 'PADDLE_OPS_GLA_GPU_FWD': 'plain',
                              'PADDLE_OPS_GLA_CPU': 'chunked',
                              'PADDLE_OPS_CPU_CACHE_MB': 7,
                              'PADDLE_OPS_CPU_ISA': 'avx2', 'PADDLE_OPS_TORCH_OUTPUTS': 'torch',
                              'PADDLE_OPS_QUIET': '1', 'PADDLE_OPS_GLA_GPU_SMEM_LIMIT': 0}
    assert r.stderr == ''  # a tool's variable (PADDLE_OPS_SKIP_HUGE, ...) draws no warning


def test_removed_gla_gpu_value_is_rejected(restore_flags):
    """PADDLE_OPS_GLA_GPU=chunked_v1 (the removed first generation of the chunked kernels) is an
    unknown value: the flag's error from set_flags (the flag unchanged) and at import."""
    paddle.set_flags({'PADDLE_OPS_GLA_GPU': 'recurrent'})
    with pytest.raises(ValueError, match=r"PADDLE_OPS_GLA_GPU='chunked_v1' \(from set_flags\) is not accepted; "
                                         r"accepted values: 'recurrent', 'chunked' \(default\)"):
        paddle.set_flags({'PADDLE_OPS_GLA_GPU': 'chunked_v1'})
    assert paddle.get_flags('PADDLE_OPS_GLA_GPU') == {'PADDLE_OPS_GLA_GPU': 'recurrent'}
    r = import_with_env(PADDLE_OPS_GLA_GPU='chunked_v1')
    assert r.returncode != 0
    assert "PADDLE_OPS_GLA_GPU='chunked_v1' (from the environment)" in r.stderr.strip().splitlines()[-1], r.stderr


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


# ---- the CPU thread bound (issue 32 item 3) -----------------------------------------------------

def test_thread_bound_is_the_documented_one():
    """The larger of 1024 and the CPUs OpenMP sees (docs/usage.md)."""
    bound = paddle._C.max_num_threads()
    assert bound >= 1024 and (bound == 1024 or bound <= 4 * (os.cpu_count() or 1))


@pytest.mark.parametrize('n', ['bound+1', 100000, 2 ** 31 - 1])
def test_set_num_threads_above_the_bound_is_refused(n):
    """100000 threads crashed GNU OpenMP at the next parallel op; 2**31 - 1 aborted the process
    ("Out of memory allocating 481 GB"). Now a ValueError at the call naming the argument, the
    value and the bound; the thread count stays as it was and ops run."""
    bound = paddle._C.max_num_threads()
    n = bound + 1 if n == 'bound+1' else n
    before = paddle.get_num_threads()
    with pytest.raises(ValueError, match=r"'n' = %d is above the bound of %d threads" % (n, bound)):
        paddle.set_num_threads(n)
    assert paddle.get_num_threads() == before
    assert paddle.cumsum(paddle.to_tensor([1.0, 2.0])).numpy().tolist() == [1.0, 3.0]


def test_set_num_threads_at_the_bound_runs():
    """The bound itself is taken and a parallel op runs with it (in a child: 1024 OpenMP threads)."""
    r = import_with_env('import paddle_ops as p, numpy as np\n'
                        'p.set_num_threads(p._C.max_num_threads())\n'
                        'print(p.get_num_threads(), p.cumsum(p.to_tensor(np.ones((64, 4096))), axis=0).numpy()[-1, 0])')
    assert r.returncode == 0, r.stderr
    n, last = r.stdout.split()
    assert int(n) >= 1024 and float(last) == 64.0


def test_omp_num_threads_above_the_bound_fails_the_import():
    """OMP_NUM_THREADS=100000 crashed the first parallel op; now the import is a ValueError naming
    the variable and the bound (as a bad PADDLE_OPS_* value is)."""
    r = import_with_env(OMP_NUM_THREADS='100000')
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith('ValueError: OMP_NUM_THREADS asks for 100000 threads, above') and 'bound of' in last, r.stderr
    r = import_with_env('import paddle_ops as p; print(p.get_num_threads())', OMP_NUM_THREADS='3')
    assert r.returncode == 0 and r.stdout.strip() == '3', r.stderr


@pytest.mark.parametrize('bad', FLAGS['PADDLE_OPS_CPU_CACHE_MB'][2])
def test_bad_cache_size_fails_the_import(bad):
    """Every bad value of the integer flag fails the import with the ValueError naming it, the 19-digit
    values above 2**63 - 1 included (issue 32 item 6: 9999999999999999999 wrapped to
    -8446744073709551617, accepted, and the cache was unbounded)."""
    r = import_with_env(PADDLE_OPS_CPU_CACHE_MB=bad)
    assert r.returncode != 0, r.stdout
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith('ValueError: ') and f"PADDLE_OPS_CPU_CACHE_MB='{bad}' (from the environment)" in last, last
    assert 'an integer from 0 to 1073741824' in last, last
