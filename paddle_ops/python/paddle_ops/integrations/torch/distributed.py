"""Sequence-parallel scans and gla over torch.distributed: a sequence split along its scan axis.

Rank r of the process group holds steps [start_r, start_r + T_r) of one sequence (rank order is
sequence order; the T_r may differ and be odd). Each function exchanges one small carry per line
with ONE ``all_gather`` (float64; a few values per line, for gla a Dk x Dv state per head: never
the data) and combines the carries of the ranks before it in rank order (so the result is bitwise
the same for a fixed world size and split). logcumsumexp and cumsum send their shard's total (a
reduction, each element read once) and then scan the shard once from the combined carry (the
scan engine's carry-in per line: the runtime library's internal entries po_runtime_scan_totals
and po_runtime_scan_carry, called by ctypes); pscan and gla scan, exchange and rerun with the
carry as the op's initial state. ``reverse=True`` takes the carries from the ranks after it.
The backward is the reverse scan with the same kind of exchange (one more all_gather), through
``torch.autograd.Function``: ``loss.backward()`` works across ranks; every rank of the group
must call the function and its backward (they are collectives).

Backends: gloo (CPU tensors) and NCCL (CUDA tensors; set NCCL_NVLS_ENABLE=0 on shared hosts).
Cost model and accuracy: docs/seqpar.md. Example: tools/examples/seqpar_scan.py
(``torchrun --nproc-per-node 2 tools/examples/seqpar_scan.py``).

Not a doctest (CI has no torch)::

    import torch.distributed as dist
    from paddle_ops.integrations.torch import distributed as sp
    dist.init_process_group("gloo")
    y = sp.logcumsumexp(x_shard, axis=1)          # x_shard: this rank's steps
    y.sum().backward()
"""
import contextlib
import ctypes
import math
import os

import torch
import torch.distributed as dist

from . import NAMESPACE
from .. import _runtime

__all__ = ["logcumsumexp", "cumsum", "pscan", "gla"]

_ops = getattr(torch.ops, NAMESPACE)

# Which design logcumsumexp and cumsum take (docs/seqpar.md): PADDLE_OPS_SEQPAR_FIXUP=1 (or _FIXUP =
# True) the earlier one (local scan, all_gather, a fix-up pass over the shard), =0 (False) or unset
# (None) one scan from the carry, on CPU and CUDA tensors alike (the CPU engine's SIMD paths start
# from a carry too). seqpar_scan.py --bench times both designs in one run.
_FIXUP = {"1": True, "0": False}.get(os.environ.get("PADDLE_OPS_SEQPAR_FIXUP", ""))


# ---------------------------------------------------------------- the engine's carry-in (internal)

_PO_DTYPE = {torch.int32: 4, torch.int64: 5, torch.float16: 6, torch.bfloat16: 7, torch.float32: 8,
             torch.float64: 9}
_LSE, _SUM = 0, 1
_carry_lib = None


def _lib():
    global _carry_lib
    if _carry_lib is None:
        lib = _runtime.load("torch")
        common = [ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_void_p]
        lib.po_runtime_scan_carry.restype = ctypes.c_int32
        lib.po_runtime_scan_carry.argtypes = common + [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * 3 + [
            ctypes.c_int32, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int32]
        lib.po_runtime_scan_totals.restype = ctypes.c_int32
        lib.po_runtime_scan_totals.argtypes = common + [ctypes.c_void_p] + [ctypes.c_int64] * 3 + [
            ctypes.c_char_p, ctypes.c_int32]
        _carry_lib = lib
    return _carry_lib


def _carry_ok(x):
    """Whether the engine's carry entries take x (else the fix-up design runs): any device they are
    built for, unless PADDLE_OPS_SEQPAR_FIXUP=1."""
    return not _FIXUP and x.dtype in _PO_DTYPE and (x.is_cpu or x.is_cuda)


def _view(x, axis):
    """(outer, length, inner) of x scanned along axis."""
    return math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:])


def _engine_call(entry, what, x, axis, *ptrs_and_flags):
    err = ctypes.create_string_buffer(1024)
    cuda = x.is_cuda
    dev = (x.device.index or 0) if cuda else 0
    stream = torch.cuda.current_stream(x.device).cuda_stream if cuda else 0
    # the entries run on the current device (switched only where x lies elsewhere)
    with torch.cuda.device(x.device) if cuda and dev != torch.cuda.current_device() else contextlib.nullcontext():
        rc = entry(what, _PO_DTYPE[x.dtype], 1 if cuda else 0, dev, stream, x.data_ptr() or None, *ptrs_and_flags,
                   err, len(err))
    if rc:
        raise RuntimeError(err.value.decode(errors="replace"))


def _lines(x, axis):
    return x.shape[:axis] + x.shape[axis + 1:]


def _scan_totals(what, x, axis):
    """Each line's total of x along axis (float64; int64 for an integer cumsum): one reduction."""
    x = x.contiguous()
    acc = torch.int64 if what == _SUM and not x.is_floating_point() else torch.float64
    out = torch.empty(_lines(x, axis), dtype=acc, device=x.device)
    if out.numel():
        _engine_call(_lib().po_runtime_scan_totals, what, x, axis, out.data_ptr(), *_view(x, axis))
    return out


def _scan_from(what, x, carry, axis, exclusive, reverse):
    """The scan of x along axis from carry (one per line, or None): one pass over the shard."""
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        c = carry.contiguous() if carry is not None else None
        _engine_call(_lib().po_runtime_scan_carry, what, x, axis, c.data_ptr() if c is not None else None,
                     out.data_ptr(), *_view(x, axis), int(exclusive), int(reverse))
    return out


# ---------------------------------------------------------------- exchange and rank order

def _group(group):
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("paddle_ops.integrations.torch.distributed needs an initialized process group "
                           "(torch.distributed.init_process_group)")
    return dist.get_world_size(group), dist.get_rank(group)


def _before(world, rank, reverse):
    """The ranks whose steps come before this rank's in scan order, in scan order."""
    return list(range(rank)) if not reverse else list(range(world - 1, rank, -1))


def _after(world, rank, reverse):
    """The ranks whose steps come after this rank's in scan order, nearest first."""
    return list(range(rank + 1, world)) if not reverse else list(range(rank - 1, -1, -1))


def _all_gather(t, group, world):
    """[world, *t.shape]: every rank's `t` (the one collective of a call), gathered flat into one
    tensor (gloo takes only the concatenated form; NCCL then needs no copies out of a list)."""
    flat = t.contiguous().reshape(-1)
    out = torch.empty(world * flat.numel(), dtype=t.dtype, device=t.device)
    dist.all_gather_into_tensor(out, flat, group=group)
    return out.view(world, *t.shape)


def _pick(tot, ranks):
    """tot[ranks] for the rank lists of _before / _after / range(world): a run of consecutive
    ranks, ascending or descending, is a slice (flipped for descending), not an index tensor
    (which on a GPU is a host-to-device copy and a gather); the values and their order are the
    same, so the reductions over them give the same bits."""
    ranks = list(ranks)
    lo, hi = min(ranks), max(ranks)
    if ranks == list(range(lo, hi + 1)):
        return tot[lo:hi + 1]
    if ranks == list(range(hi, lo - 1, -1)):
        return tot[lo:hi + 1].flip(0)
    return tot[ranks]


def _check(name, t, what="x"):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: {what} must be a torch.Tensor, got {type(t).__name__}")


def _axis(name, x, axis):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{name}: axis must be an int, got {type(axis).__name__}")
    if not -x.dim() <= axis < max(x.dim(), 1):
        raise IndexError(f"{name}: axis must be in [{-x.dim()}, {max(x.dim(), 1) - 1}], got {axis}")
    return axis % max(x.dim(), 1)


def _save_with_init(ctx, *tensors, init):
    """save_for_backward(*tensors, init), init possibly None."""
    ctx.save_for_backward(*tensors, init)
    ctx.has_init = init is not None


def _saved_with_init(ctx):
    """The tensors _save_with_init saved, init None where it was."""
    *tensors, init = ctx.saved_tensors
    return (*tensors, init if ctx.has_init else None)


def _last(reverse, n):
    """Index of a shard's last step in scan order."""
    return 0 if reverse else n - 1


# ---------------------------------------------------------------- logcumsumexp

def _lse_carry(tot, ranks):
    """log Σ exp of the totals of `ranks` (-inf for none): one reduction of a fixed shape,
    so the same bits for a fixed world size."""
    ranks = list(ranks)
    if not ranks:
        return torch.full_like(tot[0], float("-inf"))
    return torch.logsumexp(_pick(tot, ranks), 0)


def _lse_fwd_fixup(x, axis, exclusive, reverse, group, world, rank):
    """The earlier design (PADDLE_OPS_SEQPAR_FIXUP=1): local scan, all_gather of its last step,
    fix-up pass. Returns (out, gathered totals)."""
    n = x.shape[axis]
    inc = _ops.logcumsumexp(x, axis, False, False, reverse)
    if n:
        total = inc.select(axis, _last(reverse, n)).double()
    else:
        total = torch.full(_lines(x, axis), float("-inf"), dtype=torch.float64, device=x.device)
    tot = _all_gather(total, group, world)
    before = _before(world, rank, reverse)
    if exclusive and n:  # shift by one step in scan order, -inf (the empty sum) at the head
        head = torch.full_like(inc.narrow(axis, 0, 1), float("-inf"))
        inc = (torch.cat([head, inc.narrow(axis, 0, n - 1)], axis) if not reverse
               else torch.cat([inc.narrow(axis, 1, n - 1), head], axis))
    out = inc
    if before:  # the fix-up in float32 (float64 for float64): one more rounding
        ct = torch.float64 if x.dtype == torch.float64 else torch.float32
        carry = _lse_carry(tot, before).unsqueeze(axis).to(ct)
        out = torch.logaddexp(carry, inc.to(ct)).to(x.dtype)
    return out, tot


class _LogCumSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, axis, exclusive, reverse, group, want_total):
        world, rank = _group(group)
        if _carry_ok(x):
            # The carry is the shard's log-total (one float64 per line, a reduction of the inputs:
            # logaddexp(a, b) = max + log1p(exp(-|a - b|)) never overflows), then one scan of the
            # shard from the log-total of the ranks before it.
            tot = _all_gather(_scan_totals(_LSE, x, axis), group, world)
            before = _before(world, rank, reverse)
            out = _scan_from(_LSE, x, _lse_carry(tot, before) if before else None, axis, exclusive, reverse)
        else:
            out, tot = _lse_fwd_fixup(x, axis, exclusive, reverse, group, world, rank)
        ctx.save_for_backward(x, out)
        ctx.args = (axis, exclusive, reverse, group)
        total = None  # only when asked for (two more kernels a call)
        if want_total:
            total = _lse_carry(tot, range(world) if not reverse else range(world - 1, -1, -1)).to(x.dtype)
            ctx.mark_non_differentiable(total)
        return out, total

    @staticmethod
    def backward(ctx, grad, _grad_total):
        x, out = ctx.saved_tensors
        axis, exclusive, reverse, group = ctx.args
        world, rank = _group(group)
        xg = _ops.logcumsumexp_grad(x, out, grad.contiguous(), axis, False, exclusive, reverse)
        # Every output of a later shard is fed by every step of this one, so this shard's
        # gradient gains exp(x[k]) · Σ_later g_j exp(-out_j). Each rank sends (ref, b) with
        # ref its smallest finite output (the first in scan order) and
        # b = Σ_j g_j exp(ref - out_j): every exponent is ≤ 0 (out is monotone), nothing
        # overflows, and an output of -inf (an empty or all -inf prefix) feeds nothing. The
        # first rank in scan order feeds no one (it sends zeros), the last receives nothing.
        # float64 inputs compute in float64, the others in float32 (a relative error of about
        # 1e-7 in a term of the gradient).
        ct = torch.float64 if x.dtype == torch.float64 else torch.float32
        lines = x.shape[:axis] + x.shape[axis + 1:]
        ref = torch.zeros(lines, dtype=ct, device=x.device)
        b, has = torch.zeros_like(ref), torch.zeros_like(ref)
        if _before(world, rank, reverse) and x.shape[axis]:
            o = out.to(ct)
            live = o > float("-inf")
            ref = torch.where(live, o, float("inf")).amin(axis)
            has = (ref < float("inf")).to(ct)
            ref = torch.where(has > 0, ref, 0.0)
            r = ref.unsqueeze(axis)
            b = (torch.where(live, grad.to(ct), 0.0) * torch.exp(r - torch.maximum(o, r))).sum(axis)
        pairs = _all_gather(torch.stack([ref, b, has]), group, world)
        after = _after(world, rank, reverse)
        if not after:
            return xg, None, None, None, None, None
        r_ref = torch.full_like(ref, float("nan"))  # the first later shard's ref that exists
        for s in after:
            r_ref = torch.where(torch.isnan(r_ref) & (pairs[s, 2] > 0), pairs[s, 0], r_ref)
        found = ~torch.isnan(r_ref)
        r_ref = torch.where(found, r_ref, 0.0)
        acc = torch.zeros_like(ref)
        for s in after:
            acc = acc + torch.where(pairs[s, 2] > 0, pairs[s, 1] * torch.exp(r_ref - pairs[s, 0]), 0.0)
        acc = torch.where(found, acc, 0.0)
        cross = torch.exp(x.to(ct) - r_ref.unsqueeze(axis)) * acc.unsqueeze(axis)
        return (xg.to(ct) + cross).to(xg.dtype), None, None, None, None, None


def logcumsumexp(x, axis=-1, exclusive=False, reverse=False, group=None, return_total=False):
    """logcumsumexp of a sequence split along `axis` over the ranks of `group` (default: the
    default group); `x` is this rank's shard, the result this rank's part of the whole
    sequence's logcumsumexp (docs/spec.md §1 semantics). With ``return_total=True`` also the
    log-sum-exp of the whole sequence per line (the same on every rank; not differentiable)."""
    _check("logcumsumexp", x)
    axis = _axis("logcumsumexp", x, axis)
    if not x.is_floating_point():
        x = x.float()
    out, total = _LogCumSumExp.apply(x, axis, bool(exclusive), bool(reverse), group, bool(return_total))
    return (out, total) if return_total else out


# ---------------------------------------------------------------- cumsum

def _cumsum_fwd(x, axis, exclusive, reverse, group, want_total=False):
    """(out, the whole sequence's sum per line if want_total else None)."""
    world, rank = _group(group)
    before = _before(world, rank, reverse)
    if _carry_ok(x):
        # The carry: the shard's sum in float64 (int64 for integers), a reduction of the inputs
        # (compensated, rounded once); then one scan of the shard from the ranks before it.
        tot = _all_gather(_scan_totals(_SUM, x, axis), group, world)
        carry = _pick(tot, before).sum(0) if before else None
        return _scan_from(_SUM, x, carry, axis, exclusive, reverse), tot.sum(0).to(x.dtype) if want_total else None
    # The fix-up design (PADDLE_OPS_SEQPAR_FIXUP=1, or a dtype the carry entries do not take).
    local = _ops.cumsum(x, axis, False, exclusive, reverse)
    acc = torch.float64 if local.is_floating_point() else torch.int64
    tot = _all_gather(x.sum(axis, dtype=acc), group, world)
    carry = _pick(tot, before).sum(0) if before else torch.zeros_like(tot[0])
    if before:
        local = (local.to(acc) + carry.unsqueeze(axis)).to(local.dtype)
    return local, tot.sum(0).to(local.dtype) if want_total else None


class _CumSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, axis, exclusive, reverse, group, want_total):
        ctx.args = (axis, exclusive, reverse, group)
        out, total = _cumsum_fwd(x, axis, exclusive, reverse, group, want_total)
        if total is not None:
            ctx.mark_non_differentiable(total)
        return out, total

    @staticmethod
    def backward(ctx, grad, _grad_total):
        axis, exclusive, reverse, group = ctx.args
        return _cumsum_fwd(grad.contiguous(), axis, exclusive, not reverse, group)[0], None, None, None, None, None


def cumsum(x, axis=-1, exclusive=False, reverse=False, group=None, return_total=False):
    """cumsum of a sequence split along `axis` over the ranks of `group` (docs/spec.md §2
    semantics and promotions); `x` is this rank's shard. With ``return_total=True`` also the
    whole sequence's sum per line (the same on every rank; not differentiable)."""
    _check("cumsum", x)
    axis = _axis("cumsum", x, axis)
    out, total = _CumSum.apply(x, axis, bool(exclusive), bool(reverse), group, bool(return_total))
    return (out, total) if return_total else out


# ---------------------------------------------------------------- pscan

class _PScan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x, initial_state, reverse, group):
        world, rank = _group(group)
        n, lines = x.shape[1], (x.shape[0], x.shape[2])
        before = _before(world, rank, reverse)
        init = initial_state if not before else None
        y = _ops.pscan(a, x, init, reverse)
        # The carry: (product of the shard's gates, its last state), float64, [2, N, D].
        # (The first rank's gate product is never used: it sends ones.)
        if before:
            gate = a.prod(1, dtype=torch.float64)
            gate = (gate.unsqueeze(-1) if a.dim() == 2 else gate).expand(lines)
        else:
            gate = torch.ones(lines, dtype=torch.float64, device=x.device)
        if n:
            last = y.select(1, _last(reverse, n)).double()
        else:
            last = init.double() if init is not None else torch.zeros(lines, dtype=torch.float64, device=x.device)
        pairs = _all_gather(torch.stack([gate, last]), group, world)
        state = None
        for s in before:
            state = pairs[s, 1] if state is None else pairs[s, 0] * state + pairs[s, 1]
        if state is not None:
            init = state.to(x.dtype)
            y = _ops.pscan(a, x, init, reverse)
        final = None
        for s in _before(world, -1 if reverse else world, reverse):
            final = pairs[s, 1] if final is None else pairs[s, 0] * final + pairs[s, 1]
        ctx.save_for_backward(a, y, init, gate)
        ctx.args = (reverse, group, initial_state is not None and not before)
        ctx.mark_non_differentiable(final)
        return y, final.to(x.dtype)

    @staticmethod
    def backward(ctx, grad, _grad_final):
        a, y, init, gate = ctx.saved_tensors
        reverse, group, wants_init_grad = ctx.args
        world, rank = _group(group)
        grad = grad.contiguous()
        n = y.shape[1]

        def local(g):
            if init is None:
                return (*_ops.pscan_grad(a, None, y, g, reverse), None)
            return _ops.pscan_grad_with_initial_state_grad(a, init, y, g, reverse)

        a_g, x_g, i_g = local(grad)
        # Each rank sends (its gates' product, the gradient reaching its initial state when
        # nothing flows in from later ranks); the gradient flowing into this shard's last
        # step is then c = u_{r+1} + A_{r+1}·c_{r+1}, summed from the farthest rank in.
        u = i_g.double() if i_g is not None else torch.zeros_like(gate)
        pairs = _all_gather(torch.stack([gate, u]), group, world)
        after = _after(world, rank, reverse)
        if after:
            c = torch.zeros_like(gate)
            for s in reversed(after):
                c = pairs[s, 1] + pairs[s, 0] * c
            if n:
                g2 = grad.clone()
                g2.select(1, _last(reverse, n)).add_(c.to(grad.dtype))
                a_g, x_g, i_g = local(g2)
            elif init is not None:  # an empty shard passes the gradient straight through
                i_g = c.to(init.dtype)
        return a_g, x_g, (i_g if wants_init_grad else None), None, None


# ---------------------------------------------------------------- point to point, pipelined over blocks of lines
#
# pipeline=k (pscan, gla): no collective. The lines (pscan: the N sequences; gla: the B*H heads,
# or the B batches with head_first=False) are cut into k blocks. The rank holding the first steps
# (in scan order) scans block 0 and sends its last state to the next rank, then block 1, ...; the
# next rank receives block b's state and scans block b with it as the op's initial state: one pass
# over the shard (no rerun, no fix-up), and rank r starts after r blocks of its predecessors
# (docs/seqpar.md, "Pipelined"). The backward runs the same chain the other way: the gradient
# reaching a block's initial state is sent back as the previous rank's final-state gradient.

def _chain(group, world, rank, reverse):
    """(previous, next, last) in scan order, as global ranks for send/recv; None at the ends."""
    order = list(range(world)) if not reverse else list(range(world - 1, -1, -1))
    pos = order.index(rank)

    def glob(r):
        return r if group is None else dist.get_global_rank(group, r)
    return (glob(order[pos - 1]) if pos else None, glob(order[pos + 1]) if pos < world - 1 else None,
            glob(order[-1]))


def _line_blocks(n, k):
    """min(k, n) contiguous ranges (start, length) covering [0, n), as even as possible (one empty
    range when n is 0)."""
    k = max(1, min(k, n))
    base, extra = divmod(n, k)
    out, s = [], 0
    for i in range(k):
        m = base + (i < extra)
        out.append((s, m))
        s += m
    return out


class _Pipe:
    """Blocking receives and non-blocking sends of one call; close() waits for the sends."""

    def __init__(self, group):
        self.group, self.sent = group, []

    def recv(self, shape, dtype, device, src):
        t = torch.empty(shape, dtype=dtype, device=device)
        dist.recv(t, src, group=self.group)
        return t

    def send(self, t, dst):
        t = t.contiguous()
        self.sent.append((dist.isend(t, dst, group=self.group), t))

    def close(self):
        for work, _ in self.sent:
            work.wait()
        self.sent = []


def _final_broadcast(final, last, group):
    """The final state, held by `last` (a global rank), on every rank of the group."""
    final = final.contiguous()
    dist.broadcast(final, last, group=group)
    return final


def _pipeline_blocks(name, pipeline):
    if pipeline is None:
        return None
    if isinstance(pipeline, bool) or not isinstance(pipeline, int):
        raise TypeError(f"{name}: pipeline must be None or an int, got {type(pipeline).__name__}")
    if pipeline < 1:
        raise ValueError(f"{name}: pipeline must be >= 1 (the number of blocks of lines), got {pipeline}")
    return pipeline


def _pscan_last(y, init, reverse, m, d, like):
    """A block's state after its last step in scan order (the initial state passes an empty shard)."""
    n = y.shape[1]
    if n:
        return y.select(1, _last(reverse, n))
    return init if init is not None else torch.zeros((m, d), dtype=like.dtype, device=like.device)


class _PScanPipe(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x, initial_state, reverse, group, blocks, want_final):
        world, rank = _group(group)
        prev, nxt, last = _chain(group, world, rank, reverse)
        d = x.shape[2]
        pipe, ys, inits, lasts = _Pipe(group), [], [], []
        for s, m in _line_blocks(x.shape[0], blocks):
            if prev is None:
                init = initial_state.narrow(0, s, m) if initial_state is not None else None
            else:
                init = pipe.recv((m, d), x.dtype, x.device, prev)
            y = _ops.pscan(a.narrow(0, s, m), x.narrow(0, s, m), init, reverse)
            st = _pscan_last(y, init, reverse, m, d, x)
            if nxt is not None:
                pipe.send(st, nxt)
            ys.append(y)
            inits.append(init)
            lasts.append(st)
        pipe.close()
        y = torch.cat(ys) if len(ys) > 1 else ys[0]
        init = torch.cat(inits) if inits[0] is not None else None
        final = _final_broadcast(torch.cat(lasts), last, group) if want_final else None
        _save_with_init(ctx, a, y, init=init)
        ctx.args = (reverse, group, blocks, initial_state is not None and prev is None)
        if final is not None:
            ctx.mark_non_differentiable(final)
        return y, final

    @staticmethod
    def backward(ctx, grad, _grad_final):
        a, y, init = _saved_with_init(ctx)
        reverse, group, blocks, wants_init_grad = ctx.args
        world, rank = _group(group)
        prev, nxt, _ = _chain(group, world, rank, reverse)
        grad = grad.contiguous()
        n, d = y.shape[1], y.shape[2]
        pipe, a_gs, x_gs, i_gs = _Pipe(group), [], [], []
        for s, m in _line_blocks(y.shape[0], blocks):
            a_b, y_b, g_b = a.narrow(0, s, m), y.narrow(0, s, m), grad.narrow(0, s, m)
            i_b = init.narrow(0, s, m) if init is not None else None
            c = pipe.recv((m, d), y.dtype, y.device, nxt) if nxt is not None else None
            if c is not None and n:  # the next rank's gradient of its initial state = this block's last step
                g_b = g_b.clone()
                g_b.select(1, _last(reverse, n)).add_(c)
            if i_b is None:
                a_g, x_g = _ops.pscan_grad(a_b, None, y_b, g_b, reverse)
                i_g = None
            else:
                a_g, x_g, i_g = _ops.pscan_grad_with_initial_state_grad(a_b, i_b, y_b, g_b, reverse)
                if not n:  # an empty shard passes the gradient straight through
                    i_g = c if c is not None else torch.zeros_like(i_b)
            if prev is not None:
                pipe.send(i_g, prev)
            a_gs.append(a_g)
            x_gs.append(x_g)
            i_gs.append(i_g)
        pipe.close()
        a_g, x_g = torch.cat(a_gs), torch.cat(x_gs)
        i_g = torch.cat(i_gs) if wants_init_grad else None
        return a_g, x_g, i_g, None, None, None, None


def _gla_lines(q, head_first):
    """(number of lines, take(t, s, m), join(parts, like)): gla's blocks of lines. head_first: the
    B*H heads ([B, H, ...] viewed as [1, B*H, ...]); else the B batches ([B, T, H, D] cut on B)."""
    if head_first:
        def take(t, s, m):
            return t.reshape((t.shape[0] * t.shape[1],) + tuple(t.shape[2:])).narrow(0, s, m).unsqueeze(0)

        def join(parts, like):
            return torch.cat([p.squeeze(0) for p in parts]).reshape(like)
        return q.shape[0] * q.shape[1], take, join

    def take_b(t, s, m):
        return t.narrow(0, s, m)

    def join_b(parts, like):
        return torch.cat(parts).reshape(like)
    return q.shape[0], take_b, join_b


def _gla_state_block(q, v, head_first, m):
    """The shape of a block's state (float32): [1, m, Dk, Dv] (m heads) or [m, H, Dk, Dv] (m batches)."""
    return (1, m, q.shape[-1], v.shape[-1]) if head_first else (m, q.shape[2], q.shape[-1], v.shape[-1])


class _GLAPipe(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, gk, initial_state, scale, head_first, group, blocks, want_final):
        world, rank = _group(group)
        prev, nxt, last = _chain(group, world, rank, False)
        lines, take, join = _gla_lines(q, head_first)
        B, H = q.shape[0], (q.shape[1] if head_first else q.shape[2])
        state_shape = (B, H, q.shape[-1], v.shape[-1])
        o_shape = q.shape[:-1] + (v.shape[-1],)
        pipe, os_, inits, lasts = _Pipe(group), [], [], []
        for s, m in _line_blocks(lines, blocks):
            qb, kb, vb, gb = (take(t, s, m) for t in (q, k, v, gk))
            if prev is None:
                init = take(initial_state, s, m) if initial_state is not None else None
            else:
                init = pipe.recv(_gla_state_block(q, v, head_first, m), torch.float32, q.device, prev)
            if nxt is not None or want_final:
                o, st = _ops.gla_with_final_state(qb, kb, vb, gb, init, None, scale, head_first)
                if nxt is not None:
                    pipe.send(st, nxt)
                lasts.append(st)
            else:
                o = _ops.gla(qb, kb, vb, gb, init, None, scale, head_first)
            os_.append(o)
            inits.append(init)
        pipe.close()
        o = join(os_, o_shape)
        init = join(inits, state_shape) if inits[0] is not None else None
        final = _final_broadcast(join(lasts, state_shape), last, group) if want_final else None
        _save_with_init(ctx, q, k, v, gk, init=init)
        ctx.args = (scale, head_first, group, blocks, initial_state is not None and prev is None)
        if final is not None:
            ctx.mark_non_differentiable(final)
        return o, final

    @staticmethod
    def backward(ctx, go, _gf):
        q, k, v, gk, init = _saved_with_init(ctx)
        scale, head_first, group, blocks, wants_init_grad = ctx.args
        world, rank = _group(group)
        prev, nxt, _ = _chain(group, world, rank, False)
        lines, take, join = _gla_lines(q, head_first)
        go = go.contiguous()
        pipe, parts = _Pipe(group), [[] for _ in range(5)]
        for s, m in _line_blocks(lines, blocks):
            qb, kb, vb, gb, gob = (take(t, s, m) for t in (q, k, v, gk, go))
            i_b = take(init, s, m) if init is not None else None
            gf = pipe.recv(_gla_state_block(q, v, head_first, m), torch.float32, q.device, nxt) if nxt is not None else None
            grads = _gla_grad(qb, kb, vb, gb, i_b, gob, gf, scale, head_first)
            if prev is not None:
                pipe.send(grads[4], prev)
            for lst, g in zip(parts, grads):
                lst.append(g)
        pipe.close()
        dq, dk, dv, dgk = (join(p, t.shape) for p, t in zip(parts[:4], (q, k, v, gk)))
        dinit = join(parts[4], init.shape) if wants_init_grad else None
        return dq, dk, dv, dgk, dinit, None, None, None, None, None


def pscan(a, x, initial_state=None, reverse=False, group=None, return_final_state=False, pipeline=None):
    """pscan (docs/spec.md §3) of a sequence split along axis 1 over the ranks of `group`: `a`
    ([N, T_r] or [N, T_r, D]) and `x` ([N, T_r, D]) are this rank's steps. `initial_state`
    is the state before the sequence's first step (the last in scan order for reverse=True):
    it is used on the rank holding that step and ignored (no gradient) on the others. With
    ``return_final_state=True`` also the state after the whole sequence, [N, D] (the same on
    every rank; not differentiable). ``pipeline=k`` passes the state point to point, pipelined over
    k blocks of the N lines, instead of the all_gather and rerun (the section above)."""
    _check("pscan", a, "a")
    _check("pscan", x, "x")
    if initial_state is not None:
        _check("pscan", initial_state, "initial_state")
    if x.dim() != 3:
        raise ValueError(f"pscan: x must be [N, T, D], got shape {list(x.shape)}")
    blocks = _pipeline_blocks("pscan", pipeline)
    if blocks is not None:
        y, final = _PScanPipe.apply(a, x, initial_state, bool(reverse), group, blocks, bool(return_final_state))
    else:
        y, final = _PScan.apply(a, x, initial_state, bool(reverse), group)
    return (y, final) if return_final_state else y


# ---------------------------------------------------------------- gla

def _gla_grad(q, k, v, gk, init, go, gf, scale, head_first):
    if init is None:
        return (*_ops.gla_grad(q, k, v, gk, None, None, go, gf, scale, head_first), None)
    return _ops.gla_grad_with_initial_state_grad(q, k, v, gk, init, None, go, gf, scale, head_first)


class _GLA(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, gk, initial_state, scale, head_first, group):
        world, rank = _group(group)
        t_axis = 2 if head_first else 1
        init = initial_state if rank == 0 else None
        o, last = _ops.gla_with_final_state(q, k, v, gk, init, None, scale, head_first)
        # The carry per (batch, head): the shard's decay exp(Σ_t gk_t) per key channel and its
        # final state with zero inflow, [Dk] + [Dk, Dv] float64, sent as one flat tensor.
        sdt = last.dtype
        bh_shape = last.shape[:-1]  # [B, H, Dk]
        decay = (torch.exp(gk.sum(t_axis, dtype=torch.float64)) if rank else
                 torch.ones(gk.shape[:t_axis] + gk.shape[t_axis + 1:], dtype=torch.float64, device=gk.device))
        n_d = decay.numel()
        pairs = _all_gather(torch.cat([decay.reshape(-1), last.double().reshape(-1)]), group, world)
        dec = [pairs[s, :n_d].reshape(bh_shape).unsqueeze(-1) for s in range(world)]
        st = [pairs[s, n_d:].reshape(last.shape) for s in range(world)]
        state = None
        for s in range(rank):
            state = st[s] if state is None else dec[s] * state + st[s]
        if state is not None:
            init = state.to(sdt)
            o = _ops.gla(q, k, v, gk, init, None, scale, head_first)
        final = None
        for s in range(world):
            final = st[s] if final is None else dec[s] * final + st[s]
        _save_with_init(ctx, q, k, v, gk, init=init)
        ctx.args = (scale, head_first, group, initial_state is not None and rank == 0, sdt)
        ctx.decay = decay
        final = final.to(sdt)
        ctx.mark_non_differentiable(final)
        return o, final

    @staticmethod
    def backward(ctx, go, _gf):
        q, k, v, gk, init = _saved_with_init(ctx)
        scale, head_first, group, wants_init_grad, sdt = ctx.args
        world, rank = _group(group)
        go = go.contiguous()
        grads = _gla_grad(q, k, v, gk, init, go, None, scale, head_first)
        # As pscan's backward: each rank sends (decay, the initial-state gradient with nothing
        # flowing in from later ranks); the gradient reaching this shard's final state is
        # c_r = u_{r+1} + decay_{r+1} · c_{r+1}.
        decay = ctx.decay
        u = grads[4].double() if grads[4] is not None else torch.zeros(decay.shape + (v.shape[-1],),
                                                                       dtype=torch.float64, device=v.device)
        n_d = decay.numel()
        pairs = _all_gather(torch.cat([decay.reshape(-1), u.reshape(-1)]), group, world)
        if rank < world - 1:
            c = torch.zeros_like(u)
            for s in range(world - 1, rank, -1):
                c = pairs[s, n_d:].reshape(u.shape) + pairs[s, :n_d].reshape(decay.shape).unsqueeze(-1) * c
            grads = _gla_grad(q, k, v, gk, init, go, c.to(sdt), scale, head_first)
        dq, dk, dv, dgk, dinit = grads
        return dq, dk, dv, dgk, (dinit if wants_init_grad else None), None, None, None


def gla(q, k, v, gk, initial_state=None, scale=None, head_first=True, group=None, return_final_state=False,
        pipeline=None):
    """gla (docs/spec.md §5) of a sequence split along time over the ranks of `group`: q, k, v,
    gk are this rank's steps (`[B, H, T_r, D]`, or `[B, T_r, H, D]` with head_first=False).
    `initial_state` ([B, H, Dk, Dv] float32) is the state before the sequence's first step,
    used on rank 0 and ignored (no gradient) elsewhere. `scale=None` is Dk ** -0.5. With
    ``return_final_state=True`` also the state after the whole sequence (the same on every
    rank; not differentiable). ``pipeline=k`` passes the state point to point, pipelined over k
    blocks of the heads (of B with head_first=False), instead of the all_gather and rerun."""
    for name, t in (("q", q), ("k", k), ("v", v), ("gk", gk)):
        _check("gla", t, name)
    if q.dim() != 4:
        raise ValueError(f"gla: q must be 4-D ([B, H, T, Dk] or [B, T, H, Dk]), got shape {list(q.shape)}")
    scale = q.shape[-1] ** -0.5 if scale is None else float(scale)
    blocks = _pipeline_blocks("gla", pipeline)
    if blocks is not None:
        o, final = _GLAPipe.apply(q, k, v, gk, initial_state, scale, bool(head_first), group, blocks,
                                  bool(return_final_state))
    else:
        o, final = _GLA.apply(q, k, v, gk, initial_state, scale, bool(head_first), group)
    return (o, final) if return_final_state else o
