"""No AVX outside the run-time dispatched code (tools/dev/check_isa_leaks.py, docs/cpu_engine.md
"Per-ISA objects and the linker").

The library is built for the x86-64 baseline except the per-ISA objects (kernels/**/*_avx2.cc,
*_avx512.cc), which run only after the CPUID check. Their out-of-line copies of inline functions
and templates are made private to each object at build time (tools/privatize_isa_objects.py);
these tests disassemble the libraries the suite imports and fail on any function outside the ISA
namespaces that holds an AVX/AVX-512 instruction. A small library built here shows that the check
finds such a leak (an inline function shared by a baseline and an AVX2 object, the AVX2 one linked
first) and that the privatizing step removes it.
"""
import ctypes
import functools
import importlib.util
import os
import platform
import shutil
import subprocess
import sys

import pytest

import paddle_ops
from paddle_ops import _build_config

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check = _load('check_isa_leaks', 'tools/dev/check_isa_leaks.py')
privatize = _load('privatize_isa_objects', 'tools/privatize_isa_objects.py')

if not (sys.platform.startswith('linux') and platform.machine() in ('x86_64', 'AMD64')):
    pytest.skip('the per-ISA objects exist only on x86-64 Linux', allow_module_level=True)
if shutil.which('objdump') is None or shutil.which('readelf') is None:
    pytest.skip('objdump/readelf (binutils) not installed: nothing to disassemble with', allow_module_level=True)

PKG = os.path.dirname(paddle_ops.__file__)
# the Paddle and JAX integrations' one runtime library (where the build made it)
NATIVE = [os.path.join(PKG, 'integrations', '_native', 'libpaddle_ops_runtime.so')]
LIBRARIES = [paddle_ops._C.__file__] + [p for p in NATIVE if os.path.exists(p)]


@functools.lru_cache(maxsize=None)
def _disassembled(lib):
    return list(check.functions_beyond_baseline(lib, 'objdump'))


def _simd_built():
    if not _build_config.CPU_SIMD_AVX2:
        pytest.skip('built with PADDLE_OPS_CPU_SIMD=OFF: no per-ISA objects')


@pytest.mark.parametrize('lib', LIBRARIES, ids=os.path.basename)
def test_no_avx_outside_the_dispatched_code(lib):
    _simd_built()
    leaks, _ = check.leaks_of(_disassembled(lib))
    assert leaks == [], '\n'.join(f'{n}: {first}' for n, _, first in leaks)


@pytest.mark.parametrize('lib', LIBRARIES, ids=os.path.basename)
def test_the_check_sees_the_per_isa_code(lib):
    # Not vacuous: the disassembly is read and the dispatched kernels are found as per-ISA code
    # (their entry points are exported even from the stripped module): the per-ISA objects'
    # (avx2::, avx512::) and Highway's per-target ones (N_AVX2::, N_AVX3::, the conversions and
    # cumsum). The scan's avx2:: code or gla's (Highway's N_AVX2:: since gla left the per-ISA
    # objects) counts: under clang with ASan the scan's exported avx2:: entry points call their
    # vector code out of line and hold none.
    _simd_built()
    found = [(n, lv) for n, lv, _ in _disassembled(lib)]
    assert any(('::avx2::' in n or 'gla_cpu::N_AVX2::' in n) and lv == 1 == check.allowed_level(n)
               for n, lv in found), found[:20]
    assert any('simd::N_AVX2::' in n and lv == 1 == check.allowed_level(n) for n, lv in found), found[:20]
    assert any(('simd::avx512::' in n or 'simd::N_AVX3::' in n) and lv == 2 == check.allowed_level(n)
               for n, lv in found), found[:20]


# ---- the check and the fix on a small library built here ------------------------------------------
HELPER = '''
#pragma once
// One inline function, emitted out of line (noinline) by each file that calls it.
__attribute__((noinline)) inline double ScaledSum(const double* x, int n, double s) {
  double t = 0;
  for (int i = 0; i < n; ++i) t += x[i] * s;
  return t;
}
'''
BASE = '''
#include "helper.h"
namespace avx2 { double Entry(const double* x, int n); }
extern "C" double baseline_sum(const double* x, int n) { return ScaledSum(x, n, 2.0); }
extern "C" double dispatched_sum(const double* x, int n) { return avx2::Entry(x, n); }
'''
FAST = '''
#include "helper.h"
namespace avx2 { double Entry(const double* x, int n) { return ScaledSum(x, n, 2.0); } }
'''
CXX = shutil.which('g++') or shutil.which('c++') or shutil.which('clang++')


def _build(tmp, objects, name):
    so = str(tmp / name)
    subprocess.run([CXX, '-shared', '-o', so, *objects], check=True, capture_output=True)
    return so


@pytest.fixture(scope='module')
def objects(tmp_path_factory):
    if CXX is None:
        pytest.skip('no C++ compiler to build the example library with')
    tmp = tmp_path_factory.mktemp('isa')
    for name, text in (('helper.h', HELPER), ('base.cc', BASE), ('fast_avx2.cc', FAST)):
        (tmp / name).write_text(text)
    flags = {'base.cc': [], 'fast_avx2.cc': ['-mavx2', '-mfma']}
    for src, extra in flags.items():
        subprocess.run([CXX, '-O2', '-fPIC', '-c', *extra, str(tmp / src), '-o', str(tmp / (src + '.o'))],
                       check=True, capture_output=True)
    return tmp


def _leaked(leaks):
    return [n for n, _, _ in leaks if 'ScaledSum' in n]


def test_check_finds_the_avx2_copy_the_linker_kept(objects):
    # The AVX2 object first on the link line: its ScaledSum is the one kept, for baseline_sum too.
    so = _build(objects, [str(objects / 'fast_avx2.cc.o'), str(objects / 'base.cc.o')], 'avx2_first.so')
    leaks, _ = check.find_leaks(so)
    assert _leaked(leaks), leaks
    assert check.main([so]) == 1


def test_the_link_order_hid_it(objects):
    # The old safeguard: the baseline object first, its copy kept; right, but only by link order.
    so = _build(objects, [str(objects / 'base.cc.o'), str(objects / 'fast_avx2.cc.o')], 'baseline_first.so')
    leaks, _ = check.find_leaks(so)
    assert not _leaked(leaks), leaks


def test_privatized_object_leaks_in_any_link_order(objects):
    out = objects / 'private'
    assert privatize.main(['--out-dir', str(out), str(objects / 'fast_avx2.cc.o')]) == 0
    so = _build(objects, [str(out / 'fast_avx2.o'), str(objects / 'base.cc.o')], 'private_first.so')
    leaks, _ = check.find_leaks(so)
    assert leaks == [], leaks
    found = [n for n, _, _ in check.functions_beyond_baseline(so, 'objdump')]
    assert any('ScaledSum' in n and '[clone .isa_fast_avx2]' in n for n in found), found
    # Both copies still compute the same thing.
    lib = ctypes.CDLL(so)
    for fn in (lib.baseline_sum, lib.dispatched_sum):
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_int]
    x = (ctypes.c_double * 5)(1, 2, 3, 4, 5)
    assert lib.baseline_sum(x, 5) == 30.0
    if _host_has_avx2():
        assert lib.dispatched_sum(x, 5) == 30.0


def _host_has_avx2():
    try:
        with open('/proc/cpuinfo') as f:
            return ' avx2' in f.read()
    except OSError:
        return False


def test_privatize_refuses_a_global_function_outside_the_isa_namespaces(tmp_path):
    if CXX is None:
        pytest.skip('no C++ compiler to build the example object with')
    (tmp_path / 'bad_avx2.cc').write_text('double Exposed(double x) { return x * 2; }\n')
    obj = str(tmp_path / 'bad_avx2.cc.o')
    subprocess.run([CXX, '-O2', '-fPIC', '-mavx2', '-c', str(tmp_path / 'bad_avx2.cc'), '-o', obj],
                   check=True, capture_output=True)
    assert privatize.main(['--out-dir', str(tmp_path / 'out'), obj]) == 1
    assert not (tmp_path / 'out' / 'bad_avx2.o').exists()
