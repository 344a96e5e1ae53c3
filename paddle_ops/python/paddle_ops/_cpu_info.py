"""The CPU as Linux's /proc/cpuinfo describes it (elsewhere: no flags, the model from
`platform`): its model name, its feature flags, and which instruction-set paths of the CPU
kernels (the flag PADDLE_OPS_CPU_ISA) it can run. The one reader of /proc/cpuinfo, for
``python -m paddle_ops``, the tests and tools/bench/."""
import functools
import platform

# The CPU features each path of PADDLE_OPS_CPU_ISA needs (Highway's AVX2 and AVX3 targets, which
# kernels/funcs/simd/cpu_isa.cc reads from Highway's CPU detection at run time); a cap above what
# the CPU has runs the widest it can.
ISA_NEEDS = {
    "avx2": frozenset({"avx2", "fma", "f16c"}),
    "avx512": frozenset({"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq"}),
}
# The features worth naming in a report of the machine (those the paths above use).
SHOWN_FLAGS = ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16")


def read_cpuinfo(path="/proc/cpuinfo"):
    """The first processor's `name : value` lines of a cpuinfo file as a dict (the first of a
    repeated name), or {} where it cannot be read."""
    fields = {}
    try:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break  # the end of the first processor's block
                    continue
                name, sep, value = line.partition(":")
                if sep:
                    fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    return fields


@functools.lru_cache(maxsize=None)
def _fields():
    return read_cpuinfo()


def cpu_flags():
    """The CPU's feature flags (a frozenset of /proc/cpuinfo's names: 'avx2', 'avx512f', ...),
    empty where /proc/cpuinfo is not there."""
    return frozenset(_fields().get("flags", "").split())


def cpu_model():
    """The CPU's model name, or `platform`'s processor or machine name where /proc/cpuinfo has none."""
    return _fields().get("model name") or platform.processor() or platform.machine()


def shown_flags():
    """The flags of SHOWN_FLAGS the CPU has, in that order."""
    flags = cpu_flags()
    return [f for f in SHOWN_FLAGS if f in flags]


def missing_for(isa):
    """The features the path `isa` ('avx2' or 'avx512') needs and this CPU lacks, sorted."""
    return sorted(ISA_NEEDS[isa] - cpu_flags())


ISA_ORDER = ("baseline", "avx2", "avx512")  # each includes the one before it


def library_isa():
    """(supported, in use) as the library itself decides them: the widest instruction set compiled
    in and reported by the CPU's CPUID, and the one the dispatched CPU kernels use now (capped by
    PADDLE_OPS_CPU_ISA). CPUID, not /proc/cpuinfo, is what the kernels follow: the two can differ
    (an emulator such as qemu-user passes the host's /proc/cpuinfo through)."""
    from paddle_ops import _C
    supported, in_use = _C.cpu_isa()
    return supported, in_use


def supported_isas():
    """The values of PADDLE_OPS_CPU_ISA that run as asked here, narrowest first: 'baseline', then
    'avx2' and 'avx512' up to the library's own choice (library_isa)."""
    supported, _ = library_isa()
    return list(ISA_ORDER[:ISA_ORDER.index(supported) + 1])
