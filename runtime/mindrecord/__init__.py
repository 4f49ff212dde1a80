"""MindRecord files with MindSpore's names (`cadence.mindrecord`): `FileWriter` and `FileReader`.

The files are MindSpore's format byte for byte in layout: a data file (a JSON
header, then pages of blob and raw records) and a SQLite index `<file>.db`
beside it, so files written by MindSpore 2.10 read here and files written here
read in MindSpore. `cadence.dataset.MindDataset` reads them into a pipeline.

Layer rule: builds on numpy, msgspec (msgpack) and the standard library's
sqlite3; never the bus, the training core or the callbacks.
"""

from __future__ import annotations

from .._util import fixup_module_metadata
from ._header import MindRecordError
from ._reader import FileReader
from ._writer import FileWriter

__all__ = ["FileReader", "FileWriter", "MindRecordError"]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
