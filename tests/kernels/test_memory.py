"""`stream_copy`: streaming-store copies into a buffer, and the checkpoint capture that uses them."""

from __future__ import annotations

import platform

import numba
import numpy as np
import pytest

from cadence import CheckpointSnapshot, load_checkpoint, nn
from cadence.checkpoint._atomic import _STREAM_MIN_BYTES, FileImage
from cadence.kernels import memory_kernels

stream_copy = memory_kernels().stream_copy


@pytest.mark.parametrize("seed", range(3))
def test_copies_every_byte_at_any_alignment_and_nothing_else(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dst = np.zeros(1 << 16, np.uint8)
    for _ in range(200):
        length = int(rng.integers(0, 3000))
        start = int(rng.integers(0, dst.size - length))
        src = rng.integers(1, 256, length, dtype=np.uint8)
        dst[:] = 0
        stream_copy(dst, start, src)
        np.testing.assert_array_equal(dst[start : start + length], src)
        assert not dst[:start].any()
        assert not dst[start + length :].any()


def test_copies_from_an_unaligned_view_of_float_data() -> None:
    values = np.random.default_rng(0).random(100_003).astype(np.float32)
    src = values.view(np.uint8)[3:]
    dst = np.zeros(src.size + 100, np.uint8)
    stream_copy(dst, 17, src)
    assert dst[17 : 17 + src.size].tobytes() == src.tobytes()


@pytest.mark.parametrize(
    ("dst", "src", "message"),
    [
        (
            np.zeros(8, np.float32),
            np.zeros(4, np.uint8),
            "'dst' must be a 1-d C-contiguous uint8",
        ),
        (
            np.zeros(8, np.uint8),
            np.zeros((2, 2), np.uint8),
            "'src' must be a 1-d C-contiguous uint8",
        ),
        (
            np.zeros(16, np.uint8)[::2],
            np.zeros(4, np.uint8),
            "'dst' must be a 1-d C-contiguous uint8",
        ),
        (b"\0" * 8, np.zeros(4, np.uint8), "'dst' must be a 1-d C-contiguous uint8"),
    ],
)
def test_rejects_arrays_it_cannot_stream_into(
    dst: object, src: object, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        stream_copy(dst, 0, src)


@pytest.mark.parametrize("start", [1.0, "0", True, None])
def test_rejects_a_start_that_is_not_an_int(start: object) -> None:
    with pytest.raises(TypeError, match=r"'start' must be an int, but got .* of type"):
        stream_copy(np.zeros(8, np.uint8), start, np.zeros(4, np.uint8))


def test_rejects_a_range_outside_the_buffer_and_a_read_only_buffer() -> None:
    with pytest.raises(
        ValueError, match=r"4 bytes at 'start'=6 do not fit in 'dst' of 8 bytes"
    ):
        stream_copy(np.zeros(8, np.uint8), 6, np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match=r"'start'=-1"):
        stream_copy(np.zeros(8, np.uint8), -1, np.zeros(4, np.uint8))
    frozen = np.zeros(8, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="'dst' must be writeable"):
        stream_copy(frozen, 0, np.zeros(4, np.uint8))


@pytest.mark.skipif(
    platform.machine().lower() not in {"x86_64", "amd64"},
    reason="the streaming store instruction checked here is x86's",
)
def test_the_compiled_copy_uses_streaming_stores_on_x86() -> None:
    # The kernel itself may come from numba's cache, which cannot be inspected:
    # compile the same function afresh.
    kernel = numba.njit(nogil=True)(memory_kernels()._stream_copy.py_func)
    kernel(np.zeros(64, np.uint8), 0, np.ones(64, np.uint8))
    asm = kernel.inspect_asm(kernel.signatures[0])
    assert "movnt" in asm  # vmovntdq / movntdq: a non-temporal store
    assert (
        "sfence" in asm
    )  # and the fence that drains them before the buffer is handed on


def test_file_image_streams_large_chunks_and_keeps_small_ones_exact() -> None:
    big = np.arange(_STREAM_MIN_BYTES + 5, dtype=np.uint32).view(np.uint8)
    chunks: list[bytes | memoryview] = [
        b"head",
        big.data,
        b"\x01\x02\x03",
        big[7:].data,
        b"",
    ]
    image = FileImage()
    size = image.fill(chunks)
    expected = b"".join(bytes(c) for c in chunks)
    assert size == len(expected)
    assert bytes(image.view()) == expected


def test_a_snapshot_of_a_network_reads_back_equal(tmp_path: object) -> None:
    net = nn.Dense(700, 300)  # a weight of 840,000 bytes: streamed
    snapshot = CheckpointSnapshot()
    snapshot.capture(net)
    path = f"{tmp_path}/net.ckpt"
    snapshot.write(path)
    loaded = load_checkpoint(path)
    for name in ("weight", "bias"):
        value = loaded[name]
        assert not isinstance(value, str)
        np.testing.assert_array_equal(value.asnumpy(), getattr(net, name).asnumpy())
