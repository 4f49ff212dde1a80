"""MindSpore's `mindspore.dataset.transforms.c_transforms` path (the C++ transforms of MindSpore 1.x): the same operations as `cadence.dataset.transforms`.

MindSpore 2.x merged its C++ and Python transforms into `mindspore.dataset.transforms`;
code written for 1.x still imports them from here. This module is that package
under the old name: one implementation, two import paths.
"""

from __future__ import annotations

from . import *  # noqa: F403 (re-export the package's public names, whatever they are)
from . import __all__ as __all__
