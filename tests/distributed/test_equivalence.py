"""N = 2 ranks with `gradients_mean=True` reach what one process reaches on the global batch.

Each rank reads its shard (`num_shards`, `shard_id`) with half the batch and
starts from different random weights (its own seed): the broadcast from rank 0
at the first step must align them, and the mean of the reduced gradients must
equal the global batch's gradient, step after step.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


# The MLP reduces through the machine's shared window (the default), its plain SGD applied
# from the summed rows; LeNet-5 through MPI_Allreduce buckets during backward (dp_train.py
# sets their size), with Momentum. rank_api.py checks the cross-machine path, the fallback
# without shared memory and the separate update on the window path.
@pytest.mark.parametrize(
    ("kind", "batch", "reduction"),
    [("mlp", 32, "shared-memory window"), ("lenet", 16, "allreduce buckets")],
)
def test_two_ranks_match_one_process(
    tmp_path, run_mpi, script_dir, kind, batch, reduction
):
    script = str(script_dir / "dp_train.py")
    single, dist = tmp_path / "single.npz", tmp_path / "dp.npz"
    subprocess.run(
        [sys.executable, script, kind, "50", str(batch), str(single)],
        check=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(script_dir.parents[1])},
    )
    job = run_mpi(
        [script, kind, "50", str(batch), str(dist), "--distributed", reduction],
        timeout=300,
    )
    assert job.returncode == 0, job.stderr
    a, b = np.load(single), np.load(dist)
    assert sorted(a.files) == sorted(b.files)
    assert len(a["losses"]) == 50
    # The run learns (so matching weights are not matching initial weights).
    assert a["losses"][-1] < a["losses"][0]
    np.testing.assert_allclose(b["losses"], a["losses"], rtol=1e-5, atol=1e-6)
    for name in a.files:
        np.testing.assert_allclose(b[name], a[name], rtol=1e-4, atol=1e-6, err_msg=name)
