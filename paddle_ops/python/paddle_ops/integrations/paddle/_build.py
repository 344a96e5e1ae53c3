"""Builds the Paddle custom-operator extension of paddle_ops at first import.

The package carries, in ``integrations/_native/``: the runtime library shared with the JAX
integration (our kernels, built with the package, exporting only plain-C functions: ``_runtime.py``),
the generated ``paddle_ext.cc`` (one ``PD_BUILD_OP`` per op of api_yaml/) and the two headers it
includes. ``paddle_ext.cc`` is compiled against the installed Paddle by
``paddle.utils.cpp_extension.load`` into a cache directory: ``$PADDLE_OPS_EXTENSION_DIR`` or
``~/.cache/paddle_ops/paddle_ext``, one subfolder per (sources, runtime library, Paddle version,
Python version), so a new Paddle or a rebuilt paddle_ops gets a fresh build, and an unchanged one
is loaded without compiling (and without Paddle's rebuild check). A file lock keeps concurrent
first imports from building twice.
"""
import contextlib
import io
import json
import logging
import os
import sys
import warnings

import paddle

from paddle_ops.integrations import _runtime
from paddle_ops.integrations._filelock import file_lock

NATIVE = _runtime.NATIVE
EXT_NAME = "paddle_ops_paddle_ext"
# The extension exports nothing but what Python's loader may look for; everything else of it
# (Paddle's inline functions compiled into it, the generated kernels) stays local.
VERSION_SCRIPT = "{ global: PyInit_*; local: *; };\n"


def _files():
    return [_runtime.native_file(f, "paddle") for f in ("paddle_ext.cc", "ext_support.h", "runtime.h",
                                                          _runtime.LIBRARY)]


def meta():
    """The ops' signatures (generated from api_yaml/ by tools/codegen/gen_paddle.py)."""
    with open(os.path.join(NATIVE, "paddle_ops_meta.json")) as f:
        return json.load(f)


def cache_dir():
    return _runtime.cache_dir("paddle_ext", _files(), paddle.__version__, sys.version)


def extension_library():
    """The built extension's path (after load())."""
    return os.path.join(cache_dir(), EXT_NAME, EXT_NAME + ".so")


@contextlib.contextmanager
def _paddle_quiet():
    """Paddle's build and load talk: its warning about ccache (at the first import of
    cpp_extension), its INFO lines (printed twice, by its handler and the root's), its print of
    "Compiling user custom op". What is ours to say is one line (_runtime.announce_build)."""
    loggers = [logging.getLogger(n) for n in ("utils.cpp_extension", "paddle.utils.cpp_extension")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def load(verbose=False):
    """Builds (once per cache key) and loads the extension; returns the module of its ops."""
    if verbose:
        return _load(verbose)
    with _paddle_quiet():
        return _load(verbose)


def _load(verbose):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from paddle.utils import cpp_extension
    _runtime.load("paddle")  # first: the extension then binds to this instance (same path)
    build_dir = cache_dir()
    stamp = os.path.join(build_dir, "built.ok")
    if os.path.exists(stamp) and os.path.exists(extension_library()):
        # Built before from these very sources for this Paddle (the key says so): load it without
        # cpp_extension.load's rebuild check, a setup.py subprocess of about 2.5 s. The function
        # is Paddle's own (not public API); on any surprise, the public path below.
        try:
            from paddle.utils.cpp_extension.extension_utils import _import_module_from_library
            return _import_module_from_library(EXT_NAME, os.path.join(build_dir, EXT_NAME), verbose)
        except Exception:
            pass
    os.makedirs(build_dir, exist_ok=True)
    script = os.path.join(build_dir, "exports.map")
    with open(script, "w") as f:
        f.write(VERSION_SCRIPT)
    with file_lock(os.path.join(build_dir, ".lock")):
        _runtime.announce_build("paddle", f"its custom operators against Paddle {paddle.__version__}", build_dir)
        module = cpp_extension.load(
            name=EXT_NAME,
            sources=[os.path.join(NATIVE, "paddle_ext.cc")],
            extra_include_paths=[NATIVE],
            extra_cxx_cflags=["-O2", "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-w"],
            extra_ldflags=[f"-L{NATIVE}", f"-l:{_runtime.LIBRARY}", f"-Wl,-rpath,{NATIVE}",
                           f"-Wl,--version-script={script}"],
            build_directory=build_dir,
            verbose=verbose)
        with open(stamp, "w") as f:
            f.write(EXT_NAME + "\n")
        return module
