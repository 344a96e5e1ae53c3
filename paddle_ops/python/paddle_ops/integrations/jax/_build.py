"""Builds the XLA FFI handlers of paddle_ops.integrations.jax at first import.

The package carries, in ``integrations/_native/``: the runtime library shared with the Paddle
integrations (our kernels, built with the package, exporting only plain-C functions, among them
the ``po_jax_*`` functions of jax_entry.h: ``_runtime.py``), ``ffi_handlers.cc`` (the two handlers,
PoJaxCpu and PoJaxCuda) and the two plain-C headers it includes. ``ffi_handlers.cc`` is compiled
with the C++ compiler (``$CXX``, else ``c++``) against the FFI headers of the installed jaxlib
(``jax.ffi.include_dir()``), in about 3 s, into a cache directory:
``$PADDLE_OPS_EXTENSION_DIR/jax_ffi`` or ``~/.cache/paddle_ops/jax_ffi``, one file per (sources,
runtime library and its path, jaxlib version), so a new jaxlib or a rebuilt paddle_ops gets a
fresh build and an unchanged one is loaded without compiling. A file lock keeps concurrent first
imports from building twice.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess

from paddle_ops.integrations import _runtime
from paddle_ops.integrations._filelock import file_lock

NATIVE = _runtime.NATIVE
RUNTIME = _runtime.LIBRARY
SOURCES = ("ffi_handlers.cc", "jax_entry.h", "runtime.h")
# The handler library exports the two handlers and nothing else.
VERSION_SCRIPT = "{ global: PoJax*; local: *; };\n"


def _key(jaxlib_version):
    h = hashlib.sha256()
    for name in SOURCES + (RUNTIME,):
        with open(_runtime.native_file(name, "jax"), "rb") as f:
            h.update(f.read())
    h.update(NATIVE.encode())  # the handlers find the runtime by this path (rpath)
    h.update(jaxlib_version.encode())
    return h.hexdigest()[:16]


def cache_dir():
    root = os.environ.get("PADDLE_OPS_EXTENSION_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "paddle_ops")
    return os.path.join(root, "jax_ffi")


def _compile(out, include_dir):
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        raise ImportError("paddle_ops.integrations.jax compiles its XLA FFI handlers at first import and "
                          "needs a C++17 compiler (set CXX, or install g++)")
    script = out + ".map"
    with open(script, "w") as f:
        f.write(VERSION_SCRIPT)
    tmp = f"{out}.{os.getpid()}.tmp"
    cmd = [cxx, "-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-w", f"-I{include_dir}",
           f"-I{NATIVE}", os.path.join(NATIVE, "ffi_handlers.cc"), "-o", tmp, f"-L{NATIVE}", f"-l:{RUNTIME}",
           f"-Wl,-rpath,{NATIVE}", f"-Wl,--version-script={script}"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise ImportError(f"paddle_ops.integrations.jax: the C++ compiler {cxx!r} could not run: {e}") from e
    if r.returncode != 0:
        raise ImportError("paddle_ops.integrations.jax: compiling the XLA FFI handlers failed:\n"
                          + " ".join(cmd) + "\n" + r.stderr[-4000:])
    os.replace(tmp, out)  # atomic: a reader sees the whole library or none


def handler_library():
    """The path of the compiled handler library (built here if the cache lacks it)."""
    import jax.ffi
    import jaxlib
    folder = cache_dir()
    out = os.path.join(folder, f"paddle_ops_jax_ffi_{_key(jaxlib.__version__)}.so")
    if not os.path.exists(out):
        os.makedirs(folder, exist_ok=True)
        with file_lock(os.path.join(folder, ".lock")):
            if not os.path.exists(out):
                _runtime.announce_build("jax", f"its XLA FFI handlers against jaxlib {jaxlib.__version__}", folder)
                _compile(out, jax.ffi.include_dir())
    return out


def load():
    """(handler library, runtime library) as ctypes handles."""
    runtime = _runtime.load("jax")  # first: the handlers then bind to this instance (same path)
    return ctypes.CDLL(handler_library()), runtime
