"""`Decode`: image file bytes (JPEG, PNG, BMP, GIF, ...) to an RGB array, with Pillow; `ToPIL`."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np

from ...validation import check_bool
from .._transform import UnaryOperation
from ._ops import sample_ndim

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["Decode", "ToPIL", "decode_image"]


def decode_image(data: Array, where: str = "Decode") -> Array:
    """Return the image encoded in `data` (1-d uint8 file bytes, or one numpy bytes item) as uint8 <H, W, 3> RGB.

    Raises:
        TypeError: If `data` is not 1-d uint8 bytes (an image already decoded?).
        RuntimeError: If Pillow cannot decode it.
    """
    from PIL import Image, UnidentifiedImageError

    if data.dtype.kind == "S" and data.size == 1:
        # A bytes column (MindDataset) holds each file as one numpy bytes item, as in MindSpore.
        data = np.frombuffer(data.tobytes(), dtype=np.uint8)
    if data.ndim != 1 or data.dtype != np.uint8:
        raise TypeError(
            f"{where}: the input must be the bytes of an image file (1-d uint8), but got shape {data.shape} "
            f"and dtype {data.dtype}; is the image already decoded?"
        )
    try:
        with Image.open(io.BytesIO(data.tobytes())) as image:
            rgb = np.asarray(image.convert("RGB"))
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise RuntimeError(
            f"{where}: cannot decode the image ({data.size} bytes starting {data[:8].tobytes()!r}): {exc}"
        ) from None
    return rgb


class Decode(UnaryOperation):
    """Decode an image file's bytes (as `ImageFolderDataset` yields them) into uint8 <H, W, 3> RGB.

    Decoding uses Pillow (MindSpore's C++ decoder uses libjpeg through OpenCV;
    JPEG pixels may differ from it by a few levels).

    Args:
        to_pil: Accepted for compatibility: cadence's operations all take
            numpy arrays, so the result is an array either way.

    Raises:
        TypeError: If `to_pil` is not a bool.
        TypeError: When applied to an array that is not 1-d uint8 (as MindSpore).
        RuntimeError: When applied, if the bytes are not an image file.

    Example:
        >>> import io
        >>> import numpy as np
        >>> from PIL import Image
        >>> from cadence.dataset import vision
        >>> buffer = io.BytesIO()
        >>> Image.new("RGB", (4, 3), (255, 0, 0)).save(buffer, format="PNG")
        >>> image = vision.Decode()(np.frombuffer(buffer.getvalue(), np.uint8))
        >>> image.shape, image.dtype, image[0, 0].tolist()
        ((3, 4, 3), dtype('uint8'), [255, 0, 0])
    """

    def __init__(self, to_pil: bool = False) -> None:
        self.to_pil = check_bool(to_pil, "to_pil", "Decode")

    def _block_capable(self) -> bool:
        return False  # one file at a time: the decoded images may differ in size

    def _apply(self, x: Array, batched: bool) -> Array:
        return decode_image(x)


class ToPIL(UnaryOperation):
    """Accepted for MindSpore's Python-operation chains (`ToPIL()` first, then crops, `ToTensor()`).

    MindSpore converts the array to a PIL image here so that the Python
    operations that follow can work on it. cadence's operations all take numpy
    arrays <H, W> or <H, W, C>, so the image passes through unchanged.

    Raises:
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.ToPIL()(np.zeros((4, 4, 3), np.uint8)).shape
        (4, 4, 3)
    """

    def _apply(self, x: Array, batched: bool) -> Array:
        sample_ndim(x, batched, "ToPIL", "<H, W> or <H, W, C>")
        return x

    def __repr__(self) -> str:
        return "ToPIL()"
