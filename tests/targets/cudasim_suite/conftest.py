"""The CUDA suite runs in its own pytest process, never inside the main one.

It is started by `tests/targets/test_cudasim.py` (numba's CUDA simulator) or `test_cuda_hardware.py` (a real GPU), which set
`CADENCE_CUDA_SUITE=1`. numba reads `NUMBA_ENABLE_CUDASIM` when it is first
imported, so the simulator cannot be switched on inside the main test process;
there these files are not collected at all.
"""

import os

from hypothesis import settings

from tests.helpers.profiles import slow_examples

collect_ignore_glob = (
    [] if os.environ.get("CADENCE_CUDA_SUITE") == "1" else ["test_*.py"]
)

settings.register_profile("cuda-suite", slow_examples(6, derandomize=True))
settings.load_profile("cuda-suite")
