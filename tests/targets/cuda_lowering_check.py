"""Lower every CUDA kernel to NVVM IR for a real GPU (sm_75), without a GPU; prints one line each.

Run by `test_cuda_lowering.py` in a process without the simulator. The simulator runs
kernels as plain Python, so it accepts code the CUDA compiler would reject (unsupported
calls, type unification errors); this check runs numba's real CUDA type inference and
lowering on every kernel and its device functions, for float32 and float64. It stops
before PTX, which needs NVRTC (absent here).
"""

from __future__ import annotations

import sys
import traceback

import numpy as np
from numba import types
from numba.cuda.compiler import compile_cuda

from cadence.kernels._winograd import TRANSFORMS
from cadence.kernels.cuda import (
    _conv as cc,
    _dense,
    _device,
    _generic as cg,
    _indexing as ci,
    _matmul,
    _optim,
    _recurrent as cr,
    _winograd as cw,
)

_f32, _f64 = np.dtype(np.float32), np.dtype(np.float64)


# Issue-23 optimizer loops: body name -> number of hyperparameters in its tuple.
_OPTIM_HYPER = {
    "adam_weight_decay": 5,
    "adam_amsgrad": 5,
    "rmsprop": 6,
    "adagrad": 3,
    "lamb_direction": 6,
    "scaled_subtract": 1,
    "adadelta": 4,
    "proximal_adagrad": 4,
    "rprop": 7,
    "asgd": 4,
    "ftrl": 5,
}


def signatures(dt):
    f8 = types.float64  # eps and the clip bounds

    def arr(nd, t=dt):
        return types.Array(t, nd, "C")

    a1, a2, a3, a4 = arr(1), arr(2), arr(3), arr(4)
    i, b = types.int64, types.boolean
    t6 = types.UniTuple(types.int64, _device.MAXDIM)
    geometry = types.UniTuple(i, 12)  # a _spatial.ConvGeometry
    window = types.UniTuple(i, 4)  # (kh, kw, sh, sw)
    return {
        "_act_fwd": (_dense._act_fwd, (a1, a1, i)),
        "_act_bwd": (_dense._act_bwd, (a1, a1, a1, i)),
        "_gemm_simple": (_matmul._gemm_simple, (a2, a2, a2, b, b)),
        "gemm (tiled)": (
            _matmul._GEMM[_f32 if dt == types.float32 else _f64],
            (a2, a2, a2, b, b),
        ),
        "_bias_act": (_dense._bias_act, (a1, a1, b, i, i)),
        "_col_sums": (_dense._col_sums, (a2, a1)),
        "_softmax_rows": (_dense._softmax_rows, (a2, a2, b)),
        "_softmax_grad_rows": (_dense._softmax_grad_rows, (a2, a2, a2, b)),
        "_sce_sparse": (_dense._sce_sparse, (a2, arr(1, types.int32), a1, a2)),
        "_sce_dense": (_dense._sce_dense, (a2, a2, a1, a2)),
        "_sgd": (_dense._sgd, (a1, a1, a1, a1, dt, dt, dt, dt, b)),
        "_momentum": (_dense._momentum, (a1, a1, a1, dt, dt, dt, b)),
        "_adam": (_dense._adam, (a1, a1, a1, a1, dt, dt, dt, dt, dt, b)),
        "_im2col": (cc._im2col, (a4, geometry, a2, b)),
        "_max_pool": (cc._max_pool, (a4, window, a4, arr(4, types.int64))),
        "_max_pool_grad": (cc._max_pool_grad, (a4, arr(4, types.int64), a3)),
        "_avg_pool": (cc._avg_pool, (a4, window, a4)),
        "_avg_pool_grad": (cc._avg_pool_grad, (a4, window, a4)),
        "_bn_fwd": (cc._bn_fwd, (a3, a3, b, a1, a1, f8, f8, f8, a3, a1, a1)),
        "_bn_bwd": (
            cc._bn_bwd,
            (a3, a3, a3, b, a1, a1, a1, a1, f8, f8, f8, a3, a3, a1, a1),
        ),
        "_ewise2": (cg._ewise2, (i, a1, t6, dt, b, a1, t6, dt, b, a1, t6)),
        "_ewise1": (cg._ewise1, (i, a1, a1)),
        # comparisons store bools; a bool mask times a float array
        "_ewise2 (compare)": (
            cg._ewise2,
            (i, a1, t6, dt, b, a1, t6, dt, b, arr(1, types.boolean), t6),
        ),
        "_ewise2 (bool operand)": (
            cg._ewise2,
            (i, a1, t6, dt, b, arr(1, types.boolean), t6, types.boolean, b, a1, t6),
        ),
        "_scatter": (ci._scatter, (a1, i, t6, t6, a1)),
        "_select": (ci._select, (arr(1, types.boolean), t6, a1, t6, a1, t6, a1, t6)),
        "_take": (ci._take, (a1, arr(1, types.int64), i, i, a1)),
        "_add_at": (ci._add_at, (a1, arr(1, types.int64), i, i, a1)),
        "_ewise1 (cast)": (cg._ewise1, (i, a1, arr(1, types.float64))),
        "_gather": (cg._gather, (a1, i, t6, t6, a1)),
        "_reduce": (cg._reduce, (a1, t6, t6, t6, t6, i, i, i, i, i, a1)),
        "_fill": (cg._fill, (a1, dt)),
        **{
            f"_optim {name}": (
                _optim.LOOPS[f"{name}_element"],
                (a1,) * 5 + (types.UniTuple(dt, n),),
            )
            for name, n in _OPTIM_HYPER.items()
        },
        **recurrent_signatures(a2, a3),
        **winograd_signatures(a3, a4),
    }


def winograd_signatures(a3, a4):
    """The Winograd transforms of both sets (F(2x2, 3x3) and F(4x4, 3x3), in their launch loops) and the padding copy."""
    i, b = types.int64, types.boolean
    signatures: dict[str, tuple[object, tuple[object, ...]]] = {
        "_winograd _pad": (cw._pad, (a4, i, i, a4))
    }
    for m, ts in TRANSFORMS.items():
        planes = {
            "input_plane": (ts.input_plane, (a4, a3)),
            "output_plane": (ts.output_plane, (a3, a4)),
            "output_grad_plane": (ts.output_grad_plane, (a4, a3)),
        }
        for name, (body, arrays) in planes.items():
            signatures[f"_winograd F{m} {name}"] = (cw._PLANES[body], (*arrays, i))
        filters = {
            "filter": (ts.filter, (a4, a3)),
            "filter_grad": (ts.filter_grad, (a3, a4)),
        }
        for name, (body, arrays) in filters.items():
            # flip, inner, count
            signatures[f"_winograd F{m} {name}"] = (
                cw._FILTERS[body],
                (*arrays, b, i, i),
            )
    return signatures


def recurrent_signatures(a2, a3):
    """The recurrent and embedding kernels: tuples of arrays bundle the state."""
    i, b = types.int64, types.boolean
    ids = types.Array(types.int64, 1, "C")
    a1 = types.Array(a2.dtype, 1, "C")
    a4 = types.Array(a2.dtype, 4, "C")
    # (xw, gh, b_hh, act) and (act, dgi, dgh) viewed by gate: (..., gates, H).
    forward_by_gate = types.Tuple((a4, a3, a2, a4))
    return {
        "_forward_loop": (
            cr._forward_loop,
            (
                i,
                a3,
                a2,
                a1,
                ids,
                b,
                types.UniTuple(a2, 2),
                types.UniTuple(a3, 4),
                a2,
                forward_by_gate,
            ),
        ),
        "_backward_loop": (
            cr._backward_loop,
            (
                i,
                a3,
                a2,
                ids,
                b,
                types.UniTuple(a3, 3),
                types.UniTuple(a2, 2),
                types.UniTuple(a2, 4),
                types.UniTuple(a3, 2),
                types.UniTuple(a4, 3),
            ),
        ),
        "_lookup": (cr._lookup, (a2, ids, a2)),
        "_scatter_add": (cr._scatter_add, (a2, ids, a2)),
    }


class _NoDriverDevice:
    """Stands in for the current device when device functions compile (there is no driver)."""

    compute_capability = (7, 5)


def main() -> int:
    import numba.cuda.dispatcher as dispatcher

    dispatcher.get_current_device = lambda: _NoDriverDevice()  # type: ignore[attr-defined]
    failed = total = 0
    for dt in (types.float32, types.float64):
        for name, (kernel, sig) in signatures(dt).items():
            total += 1
            try:
                cres = compile_cuda(kernel.py_func, types.void, sig, cc=(7, 5))
                assert "define" in cres.library.get_llvm_str()
                print(f"OK {name} {dt}")
            except Exception:
                failed += 1
                print(f"FAILED {name} {dt}")
                traceback.print_exc(limit=3)
    # The test compares the OK lines with this count (the table grows with every kernel).
    print(f"CHECKED {total}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
