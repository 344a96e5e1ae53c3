"""The run-time switches: paddle.get_flags / paddle.set_flags, as Paddle spells them.

Every switch is named by its environment variable (PADDLE_OPS_*) and defined once, with its
accepted values, default and doc line, in the table of paddle_ops/common/flags.cc
(`flag_table()` lists it). The environment is read once, when paddle_ops is imported: a bad
value fails the import with a ValueError naming the variable and the accepted values. After
that, set_flags changes a switch for the next calls (PADDLE_OPS_CPU_CACHE_MB excepted: it is
read at start only, and set_flags refuses to change it).
"""
import warnings

from . import _C

# Read the environment now, so that a bad value fails the import (ValueError), not a later op.
_C.load_flags()
# OMP_NUM_THREADS above the thread bound (the larger of 1024 and the CPU count, as set_num_threads):
# a ValueError now, never a crash of OpenMP at the first parallel op.
_C.check_omp_threads()
for _name in _C.unknown_env_flags():
    warnings.warn(f"paddle_ops: unknown environment variable {_name} ignored; the flags are "
                  f"{', '.join(r['name'] for r in _C.flag_table())}", RuntimeWarning, stacklevel=2)


def flag_table():
    """Every flag as a dict: name, kind ('choice' or 'integer'), choices, default, accepted (the
    accepted values in words), start_only and doc."""
    return _C.flag_table()


def get_flags(names=None):
    """The current values of flags as a dict {name: value}: of every flag when `names` is None,
    else of the flag or list of flags named. Choice flags are strings, integer flags ints. An
    unknown name raises ValueError naming the known flags."""
    if names is None:
        return dict(_C.get_flags())
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"get_flags(): argument 'names' must be a str, a list of str or None, but got "
                        f"{type(names).__name__}")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"get_flags(): argument 'names' must hold flag names (str), but got "
                            f"{type(name).__name__}")
    return {name: _C.get_flag(name) for name in names}


def set_flags(flags):
    """Set flags from a dict {name: value} (a string for choice flags, an int for integer
    flags). Every entry is validated before any is set: an unknown name or a value that is not
    accepted raises ValueError naming the flag and the accepted values."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags(): argument 'flags' must be a dict {{name: value}}, but got {type(flags).__name__}")
    for name in flags:
        if not isinstance(name, str):
            raise TypeError(f"set_flags(): argument 'flags' must have flag names (str) as keys, but got "
                            f"{type(name).__name__}")
    _C.set_flags([(str(name), value if isinstance(value, str) else str(value)) for name, value in flags.items()])
