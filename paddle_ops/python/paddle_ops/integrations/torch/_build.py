"""Builds the C++ kernels of the torch ops (``torch_ext.cc``) at first import.

The package carries, in ``integrations/_native/``: the runtime library (our kernels behind the
plain-C functions of runtime.h, shared with the Paddle and JAX integrations: ``_runtime.py``), the
generated ``torch_ext.cc`` (one kernel per torch op, registered with ``TORCH_LIBRARY_IMPL`` for
CPU and, with a CUDA torch, CUDA; tools/codegen/gen_torch_cpp.py) and the headers it includes
(``torch_support.h``, ``runtime.h``). ``torch_ext.cc`` is compiled against the running torch by
``torch.utils.cpp_extension.load`` into a cache directory: ``$PADDLE_OPS_EXTENSION_DIR`` or
``~/.cache/paddle_ops/torch_ext``, one subfolder per (sources, runtime library, torch version
and CUDA version, Python version), so a new torch or a rebuilt paddle_ops gets a fresh build and
an unchanged one is loaded (``torch.ops.load_library``) without compiling or a rebuild check. A
file lock keeps concurrent first imports from building twice. The library has hidden visibility
and exports nothing: its kernels reach torch through the registrations its static initializers
make when it is loaded.

CUDA kernels are built (``-DPO_TORCH_CUDA``, linking torch's libc10_cuda; no nvcc: the file is
C++) when the running torch is a CUDA build and the CUDA runtime's headers are found (the
toolkit's under ``CUDA_HOME``, or the NVIDIA wheel's torch came with); otherwise the CPU kernels
alone, and CUDA tensors take the Python kernels.
"""
import glob
import os
import shutil
import sys

import torch

from paddle_ops.integrations import _runtime
from paddle_ops.integrations._filelock import file_lock

EXT_NAME = "paddle_ops_torch_ext"
# What the build reads from _native/ (the cache key hashes them all).
INPUTS = ("torch_ext.cc", "torch_support.h", "runtime.h", _runtime.LIBRARY)
# Nothing of the library is exported: torch finds its kernels through the registrations that
# its static initializers make when it is loaded.
VERSION_SCRIPT = "{ local: *; };\n"


def cuda_include():
    """For a CUDA torch, a folder holding the CUDA runtime's headers (which torch's CUDA headers
    include): the toolkit's (CUDA_HOME) or the NVIDIA wheel's that came with torch; else None."""
    if not torch.version.cuda:
        return None
    # where torch.utils.cpp_extension looks for the toolkit, without importing it (a cached
    # build is loaded without it; on a machine with no GPU its import logs a warning)
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        homes.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    dirs = [os.path.join(h, "include") for h in homes if h]
    try:
        import importlib.util
        spec = importlib.util.find_spec("nvidia")
        for root in (spec.submodule_search_locations or []) if spec else []:
            dirs += sorted(glob.glob(os.path.join(root, "*", "include")))
    except (ImportError, ValueError):
        pass
    return next((d for d in dirs if os.path.exists(os.path.join(d, "cuda_runtime_api.h"))), None)


def with_cuda():
    """Whether the kernels are built for CUDA too: a CUDA torch and the CUDA runtime's headers."""
    return cuda_include() is not None


def cache_dir():
    return _runtime.cache_dir("torch_ext", [_runtime.native_file(f, "torch") for f in INPUTS], torch.__version__, str(torch.version.cuda), str(with_cuda()),
                              sys.version)


def extension_library():
    """The built library's path."""
    return os.path.join(cache_dir(), EXT_NAME + ".so")


def load(verbose=False):
    """Builds (once per cache key) and loads the library, which registers the C++ kernels; returns
    whether they include CUDA's."""
    _runtime.load("torch")  # first: the library then binds to this instance (same path)
    cuda_inc = cuda_include()
    cuda = cuda_inc is not None
    build_dir = cache_dir()
    stamp = os.path.join(build_dir, "built.ok")
    if not (os.path.exists(stamp) and os.path.exists(extension_library())):
        from torch.utils import cpp_extension
        os.makedirs(build_dir, exist_ok=True)
        script = os.path.join(build_dir, "exports.map")
        with open(script, "w") as f:
            f.write(VERSION_SCRIPT)
        with file_lock(os.path.join(build_dir, ".lock")):
            if not os.path.exists(stamp):
                _runtime.announce_build("torch", f"its C++ kernels against torch {torch.__version__}", build_dir)
                cpp_extension.load(
                    name=EXT_NAME,
                    sources=[os.path.join(_runtime.NATIVE, "torch_ext.cc")],
                    extra_include_paths=[_runtime.NATIVE] + ([cuda_inc] if cuda else []),
                    extra_cflags=["-O2", "-fvisibility=hidden", "-fvisibility-inlines-hidden"]
                    + (["-DPO_TORCH_CUDA"] if cuda else []),
                    extra_ldflags=[f"-L{_runtime.NATIVE}", f"-l:{_runtime.LIBRARY}", f"-Wl,-rpath,{_runtime.NATIVE}",
                                   f"-Wl,--version-script={script}"] + (["-lc10_cuda"] if cuda else []),
                    build_directory=build_dir,
                    with_cuda=False,  # one C++ file: torch's CUDA headers and libc10_cuda, no nvcc
                    is_python_module=False,
                    is_standalone=False,
                    verbose=verbose)
                with open(stamp, "w") as f:
                    f.write(EXT_NAME + "\n")
                return cuda
    torch.ops.load_library(extension_library())
    return cuda
