"""Shared by the integrations' tests (no framework imported here): the bad calls whose argument
checks are paddle_ops' own (tensor/manipulation.py, tensor/attention.py), written once over a
tensor maker `T` and a module `m` (paddle_ops itself, or an integration), and `error_of`, which
gives the (type, message) a call raises, to compare them."""
import numpy as np

_QK = np.ones((1, 2, 3, 4), np.float32)

REPEAT_INTERLEAVE_CHECKS = {
    "repeats float": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), 1.5, axis=1),
    "repeats bool": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), True, axis=1),
    "repeats str": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), "2", axis=1),
    "repeats list of floats": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), [1.0, 2.0, 0.5], axis=1),
    "repeats sum past int64": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), [2**62, 2**62, 2], axis=1),
    "output_size not an int": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), 2, axis=1, output_size=6.0),
    "output_size wrong": lambda T, m: m.repeat_interleave(T(np.zeros((2, 3))), 2, axis=1, output_size=5),
}

GLA_CHECKS = {
    "gla scale str": lambda T, m: m.gla(*(T(_QK) for _ in range(4)), scale="a"),
    "gla scale bool": lambda T, m: m.gla(*(T(_QK) for _ in range(4)), scale=np.bool_(True)),
    "gla scale inf": lambda T, m: m.gla(*(T(_QK) for _ in range(4)), scale=float("inf")),
    "gla q 3-D": lambda T, m: m.gla(*(T(_QK[0]) for _ in range(4))),
    "gla head_first int": lambda T, m: m.gla(*(T(_QK) for _ in range(4)), head_first=1),
    "gla output_final_state None": lambda T, m: m.gla(*(T(_QK) for _ in range(4)), output_final_state=None),
}

SHARED_CHECKS = {**REPEAT_INTERLEAVE_CHECKS, **GLA_CHECKS}


def error_of(call):
    """(type, message) of what call() raises, or None."""
    try:
        call()
    except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
        return type(e), str(e)
    return None
