"""paddle_ops.integrations.torch.distributed: sequence-parallel logcumsumexp, cumsum and pscan.

Each process group (2 and 3 ranks; gloo on the CPU, NCCL where two GPUs exist) is started as
that many child processes of this file (``python test_torch_distributed.py worker ...``, with
MASTER_ADDR/MASTER_PORT on localhost and a free port; 60 s timeout per group). Every rank
builds the same whole sequence from a seed, takes its shard (unequal, odd lengths), runs the
distributed op forward and backward, and checks its shard of the output and of the gradients
against one process running the whole sequence in float64 (the bounds of docs/seqpar.md,
"Accuracy"); it writes one verdict per case, which the tests below read.

torch is not installed in CI: the module skips there (run it with the torch venv, e.g.
``PYTHONPATH=build/python /work/venv-torch/bin/python -m pytest unittests/python/integrations``).
"""
import json
import os
import socket
import subprocess
import sys
import zlib

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs no torch; these tests "
                                            "run wherever torch is, e.g. the torch venv or the GPU machine)")

# process groups: name -> shard lengths (rank order); "3e": rank 0's shard is empty
SHARDS = {"2": [5, 8], "3": [7, 4, 9], "3e": [0, 6, 3]}
TIMEOUT_S = 60

# name -> (op, dtype, reverse, exclusive, variant)
CASES = {}
for _dt in ("float32", "float64"):
    for _rev in (False, True):
        for _exc in (False, True):
            for _op in ("logcumsumexp", "cumsum"):
                CASES[f"{_op}-{_dt}-rev{int(_rev)}-exc{int(_exc)}"] = (_op, _dt, _rev, _exc, "3d")
        for _var in ("gate2d", "gate3d", "init", "gate2d-pipe", "init-pipe"):
            CASES[f"pscan-{_dt}-rev{int(_rev)}-{_var}"] = ("pscan", _dt, _rev, False, _var)
    CASES[f"cumsum-{_dt}-lastaxis"] = ("cumsum", _dt, False, False, "2d")
    CASES[f"logcumsumexp-{_dt}-lastaxis"] = ("logcumsumexp", _dt, True, False, "2d")
CASES["logcumsumexp-float64-neginf"] = ("logcumsumexp", "float64", False, False, "neginf")
CASES["logcumsumexp-float64-neginf-exc"] = ("logcumsumexp", "float64", False, True, "neginf")
CASES["cumsum-int32"] = ("cumsum", "int32", False, False, "3d")
for _dt in ("float32", "float64"):
    for _var in ("plain", "init", "seqfirst", "plain-pipe", "init-pipe", "seqfirst-pipe"):
        CASES[f"gla-{_dt}-{_var}"] = ("gla", _dt, False, False, _var)

# forward bound (relative to the scale named in docs/seqpar.md) and gradient bound (docs/spec.md §7)
FWD_TOL = {"logcumsumexp": {"float32": 3e-7, "float64": 1e-14},
           "cumsum": {"float32": 4e-6, "float64": 1e-14},
           "pscan": {"float32": 4e-6, "float64": 1e-14}}
GRAD_TOL = {"float32": 1e-5, "float64": 1e-12}
# gla: relative RMS error against the float64 recurrent reference (docs/spec.md §5); in float64
# the state crosses ranks as the op's float32 initial_state, so float64 meets float32's rounding
GLA_TOL = {"float32": 1e-5, "float64": 2e-7}


def _mx(t):
    """The largest element, 0 for an empty shard."""
    return t.max().item() if t.numel() else 0.0


def _rel_rms(got, ref):
    if not ref.numel():
        return 0.0
    return ((got.double().cpu() - ref).pow(2).mean().sqrt() / ref.pow(2).mean().sqrt().clamp(min=1e-300)).item()


# ------------------------------------------------------------------ the worker (child process)

def _run_case(ops, sp, name, case, rank, layout, device):
    op, dt, rev, exc, var = case
    # "-pipe": the point-to-point design, pipelined over 3 blocks of lines (pscan's N=3 lines: one
    # each; gla's B*H=4 heads: 2, 1, 1; with head_first=False its B=2 batches: 1, 1)
    pipe = {"pipeline": 3} if var.endswith("-pipe") else {}
    var = var[:-len("-pipe")] if pipe else var
    dtype = getattr(torch, dt)
    lens = SHARDS[layout]
    world = len(lens)
    start, n, total = sum(lens[:rank]), lens[rank], sum(lens)
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    sl = slice(start, start + n)

    def dev(t):
        return t.to(device)

    if op == "gla":
        hf = var != "seqfirst"
        B, H, Dk, Dv = 2, 2, 8, 6
        shp = (lambda d: (B, H, total, d)) if hf else (lambda d: (B, total, H, d))
        q, k = torch.randn(shp(Dk), generator=g, dtype=torch.float64), torch.randn(shp(Dk), generator=g, dtype=torch.float64)
        v = torch.randn(shp(Dv), generator=g, dtype=torch.float64)
        gk = torch.nn.functional.logsigmoid(torch.randn(shp(Dk), generator=g, dtype=torch.float64)) / 4
        h0 = torch.randn(B, H, Dk, Dv, generator=g, dtype=torch.float32) if var == "init" else None
        w = torch.randn(shp(Dv), generator=g, dtype=torch.float64)
        ref_in = [t.clone().requires_grad_() for t in (q, k, v, gk)] + [None if h0 is None else h0.clone().requires_grad_()]
        ref, ref_final = ops.gla_with_final_state(*ref_in, None, Dk ** -0.5, hf)
        (ref * w).sum().backward()
        idx = (slice(None), slice(None), sl) if hf else (slice(None), sl)
        mine = [dev(t[idx].to(dtype)).requires_grad_() for t in (q, k, v, gk)]
        mine.append(None if h0 is None else dev(h0).requires_grad_())
        o, final = sp.gla(*mine, head_first=hf, return_final_state=True, **pipe)
        (o * dev(w[idx].to(dtype))).sum().backward()
        checks = [("o", _rel_rms(o, ref[idx]), GLA_TOL[dt]), ("final_state", _rel_rms(final, ref_final), GLA_TOL[dt])]
        for gname, t, r in zip(("q_grad", "k_grad", "v_grad", "gk_grad"), mine, ref_in):
            checks.append((gname, _rel_rms(t.grad, r.grad[idx]), GLA_TOL[dt]))
        if h0 is not None:
            if rank == 0:
                checks.append(("init_grad", _rel_rms(mine[4].grad, ref_in[4].grad), GLA_TOL[dt]))
            elif mine[4].grad is not None:
                return f"initial_state got a gradient on rank {rank}"
    elif op == "pscan":
        shape_a = (3, total) if var == "gate2d" else (3, total, 4)
        a = torch.rand(shape_a, generator=g, dtype=torch.float64) * 1.8 - 0.9
        x = torch.randn(3, total, 4, generator=g, dtype=torch.float64)
        h0 = torch.randn(3, 4, generator=g, dtype=torch.float64) if var == "init" else None
        w = torch.randn(3, total, 4, generator=g, dtype=torch.float64)
        # the whole sequence in one process, float64, and the scale of its rounding
        ref_in = [t.clone().requires_grad_() if t is not None else None for t in (a, x, h0)]
        ref = ops.pscan(ref_in[0], ref_in[1], ref_in[2], rev)
        (ref * w).sum().backward()
        scale = ops.pscan(a.abs(), x.abs(), None if h0 is None else h0.abs(), rev)
        mine = [dev(t.to(dtype)).requires_grad_() if t is not None else None
                for t in (a[:, sl], x[:, sl], h0)]
        y, final = sp.pscan(mine[0], mine[1], mine[2], reverse=rev, return_final_state=True, **pipe)
        (y * dev(w[:, sl].to(dtype))).sum().backward()
        err = _mx((y.double().cpu() - ref[:, sl]).abs() / scale[:, sl].clamp(min=1))
        checks = [("out", err, FWD_TOL[op][dt])]
        fin_ref = ref[:, 0 if rev else -1]
        checks.append(("final_state", ((final.double().cpu() - fin_ref).abs()
                                       / scale[:, 0 if rev else -1].clamp(min=1)).max().item(), FWD_TOL[op][dt]))
        grads = [("a_grad", mine[0], ref_in[0], (slice(None), sl)), ("x_grad", mine[1], ref_in[1], (slice(None), sl))]
        first = (rank == world - 1) if rev else (rank == 0)
        if h0 is not None:
            if first:
                grads.append(("init_grad", mine[2], ref_in[2], (slice(None),)))
            elif mine[2].grad is not None:
                return f"initial_state got a gradient on rank {rank}, which does not hold the first step"
        for gname, t, r, idx in grads:
            gr = r.grad[idx]
            e = _mx((t.grad.double().cpu() - gr).abs()) / max(1.0, _mx(gr.abs()))
            checks.append((gname, e, GRAD_TOL[dt]))
    else:
        if var == "2d":
            full, axis = torch.randn(4, total, generator=g, dtype=torch.float64) * 3, -1
        else:
            full, axis = torch.randn(3, total, 5, generator=g, dtype=torch.float64) * 3, 1
        if var == "neginf":  # rank 0's whole shard and one step of rank 1 are -inf
            full[:, :lens[0] + 1] = float("-inf")
        if dt == "int32":
            full = (full * 1000).round()
        ax = axis % full.dim()
        w = torch.randn(full.shape, generator=g, dtype=torch.float64)
        fn = getattr(ops, op)
        ref_in = full.clone().requires_grad_(dt != "int32")
        ref = fn(ref_in, ax, False, exc, rev)
        idx = (slice(None),) * ax + (sl,)
        mine = dev(full[idx].to(dtype))
        if dt == "int32":
            out = getattr(sp, op)(mine, axis=axis, exclusive=exc, reverse=rev)
            if out.dtype != torch.int32 or not torch.equal(out.cpu().double(), ref[idx]):
                return f"int32 cumsum differs from the single-process result ({out.dtype})"
            return None
        mine.requires_grad_()
        out, tot = getattr(sp, op)(mine, axis=axis, exclusive=exc, reverse=rev, return_total=True)
        (out * dev(w[idx].to(dtype))).sum().backward()
        (ref * w).sum().backward()
        r = ref[idx]
        if op == "cumsum":
            scale = fn(full.abs(), ax, False, exc, rev)[idx]
            tot_ref, tot_scale = full.sum(ax), full.abs().sum(ax)
        else:
            scale = r.abs()
            tot_ref = torch.logsumexp(full, ax)
            tot_scale = tot_ref.abs()
        both = torch.isinf(r) & (out.double().cpu() == r)
        err = _mx(torch.where(both, 0.0, (out.double().cpu() - r).abs() / scale.clamp(min=1)))
        checks = [("out", err, FWD_TOL[op][dt])]
        both = torch.isinf(tot_ref) & (tot.double().cpu() == tot_ref)
        checks.append(("total", torch.where(both, 0.0, (tot.double().cpu() - tot_ref).abs()
                                            / tot_scale.clamp(min=1)).max().item(), FWD_TOL[op][dt]))
        gr = ref_in.grad[idx]
        gerr = _mx((mine.grad.double().cpu() - gr).abs()) / max(1.0, _mx(gr.abs()))
        checks.append(("x_grad", gerr, GRAD_TOL[dt]))
        again = getattr(sp, op)(mine.detach(), axis=axis, exclusive=exc, reverse=rev)
        if not torch.equal(again, out.detach()):
            return "a second run differs bitwise"
    bad = [f"{what}: error {e:.3g} > {tol:.3g}" for what, e, tol in checks if not (e <= tol)]
    return "; ".join(bad) or None


def _worker(backend, rank, layout, out_path):
    import datetime

    import torch.distributed as dist

    import paddle_ops.integrations.torch  # noqa: F401
    from paddle_ops.integrations.torch import distributed as sp
    device = "cpu"
    if backend == "nccl":
        torch.cuda.set_device(rank)
        device = f"cuda:{rank}"
    dist.init_process_group(backend, rank=rank, world_size=len(SHARDS[layout]),
                            timeout=datetime.timedelta(seconds=TIMEOUT_S))
    ops = torch.ops.paddle_ops
    verdicts = {}
    for name, case in CASES.items():
        try:
            verdicts[name] = _run_case(ops, sp, name, case, rank, layout, device)
        except Exception as e:  # noqa: BLE001 (reported per case)
            verdicts[name] = f"{type(e).__name__}: {e}"
    dist.barrier()
    dist.destroy_process_group()
    with open(out_path, "w") as f:
        json.dump(verdicts, f)


# ------------------------------------------------------------------ the tests (parent)

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _backends():
    nccl_ok = torch.cuda.is_available() and torch.cuda.device_count() >= 2 and torch.distributed.is_nccl_available()
    return ["gloo", pytest.param("nccl", marks=pytest.mark.skipif(
        not nccl_ok, reason="the NCCL variant needs 2 CUDA GPUs and torch with NCCL; this machine has "
                            f"{torch.cuda.device_count() if torch.cuda.is_available() else 0}"))]


@pytest.fixture(scope="module")
def groups(tmp_path_factory):
    cache = {}

    def run(backend, layout, design):
        world = len(SHARDS[layout])
        if (backend, layout, design) in cache:
            return cache[backend, layout, design]
        if not torch.distributed.is_available():
            pytest.skip("this torch has no torch.distributed")
        d = tmp_path_factory.mktemp(f"{backend}{layout}{design}")
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), NCCL_NVLS_ENABLE="0",
                   OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path),
                   PADDLE_OPS_SEQPAR_FIXUP="1" if design == "fixup" else "0")
        procs = [subprocess.Popen([sys.executable, __file__, "worker", backend, str(r), layout, str(d / f"{r}.json")],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for r in range(world)]
        logs, failed = [], False
        for p in procs:
            try:
                logs.append(p.communicate(timeout=TIMEOUT_S)[0].decode(errors="replace"))
            except subprocess.TimeoutExpired:
                failed = True
                for q in procs:
                    q.kill()
                logs.append(p.communicate()[0].decode(errors="replace"))
            failed |= p.returncode != 0
        res = None if failed else [json.load(open(d / f"{r}.json")) for r in range(world)]
        cache[backend, layout, design] = (res, "\n".join(logs)[-4000:])
        return cache[backend, layout, design]
    return run


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("layout", list(SHARDS))
@pytest.mark.parametrize("design", ["carry", "fixup"])  # logcumsumexp and cumsum's (distributed.py)
@pytest.mark.parametrize("case", list(CASES))
def test_shard_matches_single_process(groups, backend, layout, design, case):
    if backend == "nccl" and torch.cuda.device_count() < len(SHARDS[layout]):
        pytest.skip(f"NCCL with {len(SHARDS[layout])} ranks needs as many GPUs; this machine has "
                    f"{torch.cuda.device_count()}")
    res, log = groups(backend, layout, design)
    assert res is not None, (f"the {backend} group with shards {SHARDS[layout]} failed or timed out "
                             f"({TIMEOUT_S} s):\n{log}")
    msgs = [f"rank {r}: {v[case]}" for r, v in enumerate(res) if v[case] is not None]
    assert not msgs, "\n".join(msgs)


def test_needs_a_process_group():
    import paddle_ops.integrations.torch  # noqa: F401
    from paddle_ops.integrations.torch import distributed as sp
    if torch.distributed.is_initialized():
        pytest.skip("a process group is already initialized in this process")
    with pytest.raises(RuntimeError, match="init_process_group"):
        sp.cumsum(torch.ones(2, 3), axis=1)


def test_bad_arguments():
    import paddle_ops.integrations.torch  # noqa: F401
    from paddle_ops.integrations.torch import distributed as sp
    with pytest.raises(IndexError, match="axis"):
        sp.logcumsumexp(torch.ones(2, 3), axis=2)
    with pytest.raises(TypeError, match="torch.Tensor"):
        sp.cumsum([1.0, 2.0])
    with pytest.raises(ValueError, match=r"\[N, T, D\]"):
        sp.pscan(torch.ones(2, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match="pipeline must be >= 1"):
        sp.pscan(torch.ones(2, 3, 1), torch.ones(2, 3, 1), pipeline=0)
    with pytest.raises(TypeError, match="pipeline must be None or an int"):
        sp.gla(*[torch.ones(1, 1, 2, 4)] * 4, pipeline=True)


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "worker":
    _worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
