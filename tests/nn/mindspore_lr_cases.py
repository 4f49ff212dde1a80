"""Learning-rate lists and schedule cells recorded on MindSpore 2.10 and replayed on cadence.

`cases(ms)` builds every list and evaluates every schedule cell with either
framework's top-level module, so the same code runs on both
(`test_lr_schedules_against_mindspore.py` replays it).
`python tests/nn/mindspore_lr_cases.py out.json`, run with a MindSpore
interpreter, writes the recording: MindSpore is the oracle, and
`mindspore_lr.json` is regenerated, never edited by hand.
"""

from __future__ import annotations

import json
import sys
from typing import Any

STEPS = [0, 1, 2, 3, 5, 7, 9, 12]  # where each schedule cell is read


def cases(ms: Any) -> dict[str, list[float]]:
    """Each list builder and schedule cell, continuous and stepped, by name."""
    nn = ms.nn

    def read(schedule: Any) -> list[float]:
        return [float(schedule(ms.Tensor(s, ms.int32)).asnumpy()) for s in STEPS]

    out: dict[str, list[float]] = {}
    for stair in (False, True):
        # (learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
        args = (0.1, 0.5, 10, 2, 3, stair)
        out[f"natural_exp_decay_lr stair={stair}"] = nn.natural_exp_decay_lr(*args)
        out[f"inverse_decay_lr stair={stair}"] = nn.inverse_decay_lr(*args)
        out[f"exponential_decay_lr stair={stair}"] = nn.exponential_decay_lr(*args)
        for cell in (nn.NaturalExpDecayLR, nn.InverseDecayLR, nn.ExponentialDecayLR):
            out[f"{cell.__name__} stair={stair}"] = read(cell(0.1, 0.5, 3, stair))
    for update in (False, True):
        out[f"polynomial_decay_lr update={update}"] = nn.polynomial_decay_lr(
            0.1, 0.01, 14, 2, 3, 0.5, update
        )
        out[f"PolynomialDecayLR update={update}"] = read(
            nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, update)
        )
    out["WarmUpLR"] = read(nn.WarmUpLR(0.1, 4))
    return out


if __name__ == "__main__":
    import mindspore

    with open(sys.argv[1], "w") as file:
        json.dump(cases(mindspore), file, indent=1)
