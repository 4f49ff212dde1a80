"""Text operations with MindSpore's names (`cadence.dataset.text`).

`Vocab` maps tokens to ids; `Lookup` applies it to a column of tokens inside
`Dataset.map`, and `WhitespaceTokenizer` splits a sentence into tokens. Tokens are
numpy string arrays, as MindSpore's pipeline gives them.

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from ._ops import Lookup, WhitespaceTokenizer
from ._vocab import Vocab

__all__ = ["Lookup", "Vocab", "WhitespaceTokenizer"]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
