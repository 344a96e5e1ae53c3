"""The one runtime library of the integrations: ``_native/libpaddle_ops_runtime.so``.

It is built with the package from paddle_ops/runtime/ (our kernels behind plain-C entries,
exporting only ``po_runtime_*`` and ``po_jax_*``; runtime.h and jax_entry.h in ``_native/``
describe them). The Paddle extension, the XLA FFI handlers and the torch C++ kernels, compiled at
first import, link it by rpath from
``_native/``, and ``load()`` opens it by that same path, so a process holds one copy whichever
integrations it imports: one set of kernels, one caching allocator, one thread count and one set
of flags. ``load()`` also makes the runtime follow paddle_ops' own settings: at each op it takes
the thread count of ``paddle_ops.set_num_threads`` and the flags of ``paddle_ops.set_flags``
(runtime.h, ``po_runtime_follow``).
"""
import ctypes
import hashlib
import os
import sys

from .. import _C

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")
LIBRARY = "libpaddle_ops_runtime.so"

_lib = None


def library_path():
    """The runtime library's path (the one every integration loads)."""
    return os.path.join(NATIVE, LIBRARY)


def native_file(name, integration):
    """The path of `name` in ``_native/``; ImportError naming `integration` when it is missing."""
    path = os.path.join(NATIVE, name)
    if not os.path.exists(path):
        raise ImportError(f"paddle_ops.integrations.{integration}: {path} is missing (build paddle_ops with "
                          f"WITH_PYTHON=ON: the runtime library and its sources are built with the Python module)")
    return path


def cache_dir(name, files, *keys):
    """The build folder of an extension compiled at first import from `files` (its sources and
    the runtime library) against a framework: one subfolder per content of `files`, this package's
    path (the extension finds the runtime library by it: rpath) and `keys` (framework and Python
    versions), below ``$PADDLE_OPS_EXTENSION_DIR`` or ``~/.cache/paddle_ops/<name>``."""
    h = hashlib.sha256()
    for path in files:
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(NATIVE.encode())
    for key in keys:
        h.update(key.encode())
    root = os.environ.get("PADDLE_OPS_EXTENSION_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                      "paddle_ops", name)
    return os.path.join(root, h.hexdigest()[:16])


# About how long each first-import build takes on a 2-core machine (docs/usage.md).
BUILD_SECONDS = {"paddle": "45-90 s", "torch": "20-95 s", "jax": "3 s"}


def announce_build(integration, what, build_dir):
    """The one line an integration's first import prints before it builds its extension: what,
    about how long, where it is cached; nothing with the flag PADDLE_OPS_QUIET=1."""
    if _C.get_flag("PADDLE_OPS_QUIET") == "1":
        return
    print(f"paddle_ops.integrations.{integration}: building {what} once (about {BUILD_SECONDS[integration]}); "
          f"cached in {build_dir} (PADDLE_OPS_QUIET=1: no such line)", file=sys.stderr, flush=True)


def load(integration="paddle"):
    """The runtime library as a ctypes handle, loaded (once) and following paddle_ops' settings."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(native_file(LIBRARY, integration))
        lib.po_runtime_follow.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.po_runtime_last_num_threads.restype = ctypes.c_int32
        lib.po_runtime_flags.restype = ctypes.c_int32
        lib.po_runtime_flags.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_int32]
        lib.po_runtime_caller_allocates.restype = ctypes.c_int32
        lib.po_runtime_last_pointers.restype = ctypes.c_int32
        lib.po_jax_last_pointers.restype = ctypes.c_int32
        lib.po_runtime_follow(_C._num_threads_source(), _C._flags_source())
        _lib = lib
    return _lib


def last_num_threads():
    """The CPU thread count the runtime gave the kernels of its last op (0 before the first)."""
    return load().po_runtime_last_num_threads()


def get_flags():
    """The runtime's own copy of the flags, as ``paddle_ops.get_flags()`` shows the module's."""
    table = _C.flag_table()
    values = (ctypes.c_int64 * len(table))()
    n = load().po_runtime_flags(values, len(table))
    assert n == len(table), (n, len(table))
    return {row["name"]: (values[i] if row["kind"] == "integer" else row["choices"][values[i]])
            for i, row in enumerate(table)}


def last_pointers(entry="runtime"):
    """(inputs, outputs): the data pointers of the last op the runtime ran on this thread through
    po_<entry>_run ("runtime" or "jax"; tests: nothing was copied)."""
    ins, outs = (ctypes.c_void_p * 16)(), (ctypes.c_void_p * 16)()
    n = getattr(load(), f"po_{entry}_last_pointers")(ins, outs, 16)
    return [ins[i] or 0 for i in range(n)], [outs[i] or 0 for i in range(n)]
