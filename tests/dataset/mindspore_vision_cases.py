"""Image operations recorded on MindSpore 2.10 and replayed on cadence (`test_vision_recorded.py`).

`cases(ms, vision, transforms, to_pil)` builds the calls from either framework's modules, so the
same code runs on both; `to_pil` is MindSpore's `vision.ToPIL()` (its `Grayscale` takes PIL
images only) and identity on cadence. `python tests/dataset/mindspore_vision_cases.py out.json`
run with a MindSpore interpreter writes `mindspore_vision.json`: MindSpore is the oracle, and
the file is regenerated, never edited by hand. Random operations appear only with ranges
that leave nothing to draw (`brightness=(0.5, 0.5)`, `degrees=(90, 90)`, ...).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np


def images() -> dict[str, np.ndarray]:
    """The inputs: small RGB, gray and float images, and one of low contrast."""
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    return {
        "rgb": rgb,
        "gray": rng.integers(0, 256, (6, 7), dtype=np.uint8),
        "float": rgb.astype(np.float32) / 2,
        "dim": rng.integers(60, 120, (5, 4, 3), dtype=np.uint8),
        "rgba": rng.integers(0, 256, (3, 4, 4), dtype=np.uint8),
        "rgb32": rng.integers(0, 256, (32, 32, 3), dtype=np.uint8),
        "rgb40": rng.integers(0, 256, (2, 40, 3), dtype=np.uint8),
    }


def cases(ms: Any, vision: Any, transforms: Any, to_pil: Any) -> dict[str, Any]:
    """Return name -> zero-argument call returning an array, for the framework whose modules are given."""
    im = images()
    rgb, gray, flt, dim, rgba = (
        im["rgb"],
        im["gray"],
        im["float"],
        im["dim"],
        im["rgba"],
    )
    mode = vision.ConvertMode
    return {
        "Invert uint8": lambda: vision.Invert()(rgb),
        "Invert float": lambda: vision.Invert()(flt),
        "Grayscale 1": lambda: vision.Grayscale()(to_pil(rgb)),
        "Grayscale 3": lambda: vision.Grayscale(3)(to_pil(rgb)),
        "Equalize rgb": lambda: vision.Equalize()(rgb),
        "Equalize gray": lambda: vision.Equalize()(gray),
        "Equalize dim": lambda: vision.Equalize()(dim),
        "AutoContrast": lambda: vision.AutoContrast()(dim),
        "AutoContrast gray": lambda: vision.AutoContrast()(gray),
        "AutoContrast cutoff ignore": lambda: vision.AutoContrast(
            cutoff=10.0, ignore=[0, 255]
        )(rgb),
        "AutoContrast cutoff dim": lambda: vision.AutoContrast(cutoff=20.5)(dim),
        "GaussianBlur 3": lambda: vision.GaussianBlur(3)(rgb),
        "GaussianBlur 3x5 sigma": lambda: vision.GaussianBlur((3, 5), (0.8, 1.5))(rgb),
        "GaussianBlur float": lambda: vision.GaussianBlur(5, 1.2)(flt),
        "GaussianBlur gray": lambda: vision.GaussianBlur(3)(gray),
        "GaussianBlur wide sigma": lambda: vision.GaussianBlur((7, 5), (2.0, 3.0))(
            gray
        ),
        "ConvertColor RGB2GRAY": lambda: vision.ConvertColor(mode.COLOR_RGB2GRAY)(rgb),
        "ConvertColor BGR2GRAY": lambda: vision.ConvertColor(mode.COLOR_BGR2GRAY)(rgb),
        "ConvertColor RGB2BGR": lambda: vision.ConvertColor(mode.COLOR_RGB2BGR)(rgb),
        "ConvertColor BGR2RGBA": lambda: vision.ConvertColor(mode.COLOR_BGR2RGBA)(rgb),
        "ConvertColor RGB2RGBA float": lambda: vision.ConvertColor(mode.COLOR_RGB2RGBA)(
            flt
        ),
        "ConvertColor RGBA2BGR": lambda: vision.ConvertColor(mode.COLOR_RGBA2BGR)(rgba),
        "ConvertColor RGBA2GRAY": lambda: vision.ConvertColor(mode.COLOR_RGBA2GRAY)(
            rgba
        ),
        "ConvertColor GRAY2BGR": lambda: vision.ConvertColor(mode.COLOR_GRAY2BGR)(gray),
        "ConvertColor GRAY2RGBA": lambda: vision.ConvertColor(mode.COLOR_GRAY2RGBA)(
            gray
        ),
        "ConvertColor RGB2GRAY float": lambda: vision.ConvertColor(mode.COLOR_RGB2GRAY)(
            flt
        ),
        "ToType": lambda: vision.ToType(np.int16)(rgb),
        "RandomColorAdjust brightness": lambda: vision.RandomColorAdjust(
            brightness=(0.5, 0.5)
        )(rgb),
        "RandomColorAdjust contrast": lambda: vision.RandomColorAdjust(
            contrast=(1.5, 1.5)
        )(rgb),
        "RandomColorAdjust saturation": lambda: vision.RandomColorAdjust(
            saturation=(0.3, 0.3)
        )(rgb),
        "RandomColorAdjust hue": lambda: vision.RandomColorAdjust(hue=(0.2, 0.2))(rgb),
        "RandomColorAdjust hue 32x32": lambda: vision.RandomColorAdjust(hue=(0.1, 0.1))(
            im["rgb32"]
        ),
        # rows of 40: 32 pixels go through OpenCV's vector code, the last 8 one by one
        "RandomColorAdjust hue 2x40": lambda: vision.RandomColorAdjust(hue=(0.1, 0.1))(
            im["rgb40"]
        ),
        "RandomColorAdjust negative hue": lambda: vision.RandomColorAdjust(
            hue=(-0.3, -0.3)
        )(rgb),
        "RandomColorAdjust all four": lambda: vision.RandomColorAdjust(
            (0.7, 0.7), (1.3, 1.3), (0.6, 0.6), (0.1, 0.1)
        )(rgb),
        "RandomSharpness": lambda: vision.RandomSharpness((0.3, 0.3))(rgb),
        "RandomSharpness gray": lambda: vision.RandomSharpness((1.7, 1.7))(gray),
        "RandomSolarize": lambda: vision.RandomSolarize((100, 100))(rgb),
        "RandomRotation 90": lambda: vision.RandomRotation((90, 90))(rgb),
        "RandomRotation 90 expand": lambda: vision.RandomRotation(
            (90, 90), expand=True
        )(rgb),
        "RandomRotation 30 bilinear": lambda: vision.RandomRotation(
            (30, 30), resample=vision.Inter.BILINEAR, fill_value=9
        )(rgb),
        "RandomRotation 30 center": lambda: vision.RandomRotation(
            (30, 30), center=(1, 2)
        )(gray),
        "RandomRotation -45 expand": lambda: vision.RandomRotation(
            (-45, -45), expand=True
        )(gray),
        "RandomAffine scale": lambda: vision.RandomAffine(
            degrees=(0, 0), scale=(1.5, 1.5)
        )(rgb),
        "RandomAffine rotate shear": lambda: vision.RandomAffine(
            degrees=(20, 20), shear=(10, 10, 5, 5), fill_value=3
        )(gray),
        "RandomAffine bilinear": lambda: vision.RandomAffine(
            degrees=(-30, -30), scale=(0.8, 0.8), resample=vision.Inter.BILINEAR
        )(flt),
        "Fill": lambda: transforms.Fill(3)(np.arange(6, dtype=np.int32).reshape(2, 3)),
        "Fill float into int": lambda: transforms.Fill(2.7)(
            np.arange(4, dtype=np.int32)
        ),
        "Mask": lambda: transforms.Mask(transforms.Relational.GE, 3)(
            np.arange(6, dtype=np.int32)
        ),
        "Mask dtype": lambda: transforms.Mask(transforms.Relational.EQ, 2, ms.int32)(
            np.arange(4, dtype=np.int64)
        ),
        "Unique": lambda: transforms.Unique()(
            np.array([[5, 3, 5], [1, 3, 9]], dtype=np.int32)
        ),
    }


def encode(value: Any) -> Any:
    """A result as JSON: an array as {dtype, shape, values}; a tuple as a list of them."""
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    array = np.asarray(value)
    return {
        "dtype": str(array.dtype),
        "shape": list(array.shape),
        "values": array.ravel().tolist(),
    }


def main(path: str) -> None:  # pragma: no cover - runs under MindSpore
    """Record every case under MindSpore into `path`."""
    import mindspore
    from mindspore.dataset import transforms, vision

    recorded: dict[str, Any] = {
        "_about": f"recorded with MindSpore {mindspore.__version__}"
    }
    for name, call in cases(mindspore, vision, transforms, vision.ToPIL()).items():
        recorded[name] = encode(call())
    with open(path, "w") as f:
        json.dump(recorded, f, indent=0)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1])
