"""Run every benchmark script in this folder, one after the other: `python tests/bench/run_all.py`.

Each `bench_*.py` prints its own markdown tables with ratios measured in the same run;
copy the latest into docs/performance.md together with the machine details printed here.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from _bench_common import cpu_model


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def main() -> int:
    here = Path(__file__).parent
    print(f"Machine: {machine()}\n")
    failed = 0
    for script in sorted(here.glob("bench_*.py")):
        print(f"## {script.stem}\n", flush=True)
        code = subprocess.call([sys.executable, str(script)])
        failed += code != 0
        print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
