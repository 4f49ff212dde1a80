"""Host-memory kernels: copying bytes into a buffer that only the disk will read.

`stream_copy` copies with non-temporal (streaming) stores: the destination's
cache lines are written straight to memory, without first being read into
the cache and without evicting what the cache holds. A checkpoint capture
copies megabytes into a buffer that is next read by the disk (`O_DIRECT`), so
neither the read nor the eviction buys anything. Measured inside training
(the MLP of `tests/bench/bench_callbacks.py`, 8 MB per capture): 1.1 ms with
numpy's copy (glibc's `memcpy`, which streams only above a threshold set from
the cache size), 0.74 ms with this kernel.

Where the hardware has no streaming store, LLVM emits ordinary stores: the
hint is dropped, the copy stays correct.
"""

from __future__ import annotations

import platform
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["stream_copy"]

_LINE = 32  # bytes per streaming store (one 256-bit vector)
_X86 = platform.machine().lower() in {"x86_64", "amd64", "i386", "i686", "x86"}


def _store_line_typer(
    typingctx: Any, dst: Any, dst_at: Any, src: Any, src_at: Any
) -> Any:  # pragma: no cover - runs at compile time
    """`dst[dst_at:dst_at+32] = src[src_at:src_at+32]` with one non-temporal store (`dst_at` 32-aligned)."""
    sig = types.void(dst, dst_at, src, src_at)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        d, d_at, s, s_at = args
        d_arr = context.make_array(signature.args[0])(context, builder, d)
        s_arr = context.make_array(signature.args[2])(context, builder, s)
        line = ir.VectorType(ir.IntType(8), _LINE).as_pointer()
        target = builder.bitcast(builder.gep(d_arr.data, [d_at]), line)
        source = builder.bitcast(builder.gep(s_arr.data, [s_at]), line)
        store = builder.store(builder.load(source, align=1), target, align=_LINE)
        store.set_metadata(
            "nontemporal",
            builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]),
        )
        return context.get_dummy_value()

    return sig, codegen


_store_line: Any = intrinsic(_store_line_typer)


def _store_fence_typer(
    typingctx: Any,
) -> Any:  # pragma: no cover - runs at compile time
    """A full memory fence: streaming stores are weakly ordered, so they must drain before the buffer is handed on."""
    sig = types.void()

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        if _X86:  # SFENCE: the fence x86 documents for its streaming stores
            sfence = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
                builder.module,
                ir.FunctionType(ir.VoidType(), []),
                "llvm.x86.sse.sfence",
            )
            builder.call(sfence, [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return sig, codegen


_store_fence: Any = intrinsic(_store_fence_typer)


@numba.njit(nogil=True, cache=True)
def _stream_copy(dst: Any, start: int, src: Any) -> None:  # pragma: no cover - compiled
    n = src.size
    # Plain stores up to the first 32-byte-aligned address of `dst`, streaming after.
    head = min(-(dst.ctypes.data + start) & (_LINE - 1), n)
    for i in range(head):
        dst[start + i] = src[i]
    i = head
    while i + _LINE <= n:
        _store_line(dst, start + i, src, i)
        i += _LINE
    while i < n:
        dst[start + i] = src[i]
        i += 1
    _store_fence()


def stream_copy(
    dst: npt.NDArray[np.uint8], start: int, src: npt.NDArray[np.uint8]
) -> None:
    """Copy the bytes of `src` into `dst[start:start + len(src)]` with streaming stores.

    Both arrays must be one-dimensional, C-contiguous `uint8`; the range must fit in
    `dst`. Releases the GIL while it copies. Returns when the stores are visible
    to other threads and devices.

    Raises:
        TypeError: An array is not 1-d contiguous uint8, or `start` is not an int.
        ValueError: The range does not fit in `dst`.
    """
    for name, array in (("dst", dst), ("src", src)):
        if (
            not isinstance(array, np.ndarray)  # type: ignore[redundant-expr]
            or array.dtype != np.uint8
            or array.ndim != 1
            or not array.flags.c_contiguous
        ):
            raise TypeError(
                f"stream_copy: '{name}' must be a 1-d C-contiguous uint8 numpy array, but got {array!r:.80}"
            )
    if not isinstance(start, int | np.integer) or isinstance(start, bool):  # type: ignore[redundant-expr]
        raise TypeError(
            f"stream_copy: 'start' must be an int, but got {start!r} of type {type(start).__name__!r}"
        )
    if not dst.flags.writeable:
        raise ValueError("stream_copy: 'dst' must be writeable, but it is read-only")
    if start < 0 or start + src.size > dst.size:
        raise ValueError(
            f"stream_copy: {src.size} bytes at 'start'={start} do not fit in 'dst' of {dst.size} bytes"
        )
    _stream_copy(dst, start, src)
