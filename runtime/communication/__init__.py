"""Collective communication with MindSpore's names (`cadence.communication`), over MPI.

Launch the same script on N processes (`mpiexec -n N python train.py`), call
`init()` in each, and the processes form one job: `get_rank()` tells each one
who it is, `get_group_size()` how many they are. `init()` needs the `mpi`
extra (`pip install 'cadence[mpi]'`: mpi4py and the mpich wheel). Without
`init()` nothing here is loaded and cadence runs as one process.

See docs/distributed.md for data-parallel training. The auto-parallel context
(`set_auto_parallel_context`, `ParallelMode`) lives here too, in `_parallel_context`.

Layer rule: imports the event bus (to stamp events with the rank) and cadence's
errors and utilities only; the training loop, `nn` and the command line build on it.
"""

from __future__ import annotations

from .._util import fixup_module_metadata
from . import management
from .management import (
    GlobalComm,
    get_group_size,
    get_local_rank,
    get_local_rank_size,
    get_rank,
    init,
    release,
)

__all__ = [
    "GlobalComm",
    "get_group_size",
    "get_local_rank",
    "get_local_rank_size",
    "get_rank",
    "init",
    "management",
    "release",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
