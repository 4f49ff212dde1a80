"""`cadence train --workers N`: data-parallel training launched through MPI by cadence itself.

The launching process picks the run directory, then starts
`mpiexec -n N python _rank_guard.py python -m cadence train ... --output-dir DIR`
with one BLAS thread share per rank, and returns the job's exit status. The
guard names a rank that a signal kills (MPICH's launcher names only its PID).
The job runs in a session of its own, so Ctrl-C and SIGTERM reach it through
this process alone, which passes each on once: the ranks stop, keep their
checkpoints and exit; past a grace period the job is aborted. Inside the job
(launched that way or by a user typing `mpiexec -n N cadence train ...`),
`join()` calls `init()`, sets data-parallel mode and reports who this rank is.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ._command import UsageError
from ._entry import Terminated

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Worker", "in_mpi_job", "join", "launch"]

_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)
_GUARD: Final = Path(__file__).with_name("_rank_guard.py")
# After Ctrl-C or SIGTERM, how long the ranks get to finish the step, keep their
# checkpoints and exit; then mpiexec is told to abort (its second Ctrl-C), and
# after as long again it is killed.
STOP_GRACE_S: Final = 30.0


@dataclass(frozen=True)
class Worker:
    """This process's place in the job."""

    rank: int
    size: int

    @property
    def leader(self) -> bool:
        """Rank 0 writes the run's files and prints its progress."""
        return self.rank == 0


def in_mpi_job() -> bool:
    """Return whether an MPI launcher (hydra, Open MPI, Slurm's PMI) started this process with others."""
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"):
        value = os.environ.get(var)
        if value is not None and value.isdigit() and int(value) > 1:
            return True
    return False


def threads_per_rank(workers: int) -> int:
    """Return the BLAS threads each of `workers` ranks on this machine gets (at least 1)."""
    return max(1, (os.cpu_count() or 1) // workers)


def _mpiexec() -> str:
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if found is None:
        raise UsageError(
            "--workers needs MPI's `mpiexec`: install cadence with the mpi extra (pip install 'cadence[mpi]')."
        )
    return found


def launch(argv: Sequence[str], workers: int, output_dir: Path) -> int:
    """Run `cadence train ARGV` on `workers` ranks in `output_dir`; return the job's exit status."""
    args = _without_workers(list(argv))
    args = _with_output_dir(args, output_dir)
    env = dict(os.environ)
    per_rank = str(threads_per_rank(workers))
    for var in _THREAD_VARS:
        env.setdefault(var, per_rank)
    guard = [sys.executable, "-I", str(_GUARD)]
    cmd = [
        _mpiexec(),
        "-n",
        str(workers),
        *guard,
        sys.executable,
        "-m",
        "cadence",
        *args,
    ]
    return run_job(cmd, env)


def run_job(cmd: list[str], env: dict[str, str] | None = None) -> int:
    """Run the launcher command `cmd`; pass Ctrl-C or SIGTERM on to it, then re-raise it.

    The launcher gets a session of its own (and no stdin), so a Ctrl-C typed in the
    terminal reaches this process only: MPICH's mpiexec takes a second one as "abort now".
    """
    job = subprocess.Popen(
        cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True
    )
    try:
        return job.wait()
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (the CLI's Terminated)
        _stop(job, signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
        raise


def _stop(job: subprocess.Popen[bytes], sig: int) -> None:
    """Pass `sig` on to the job; abort it if it outlives the grace period, kill it after another."""
    # Two SIGINTs (mpiexec's "abort now" after SIGTERM), one second apart: a signal sent
    # while the same one is still pending merges with it.
    steps = ((sig, STOP_GRACE_S), (signal.SIGINT, 1.0), (signal.SIGINT, STOP_GRACE_S))
    for send, grace in steps:
        with contextlib.suppress(ProcessLookupError):
            os.kill(job.pid, send)
        try:
            job.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue
        except KeyboardInterrupt:  # Ctrl-C again: abort now
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(job.pid, signal.SIGKILL)
    job.wait()


def _drop_option(argv: list[str], name: str) -> list[str]:
    """Return `argv` without option `name` and its value (`--name V` or `--name=V`)."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == name:
            skip = True
        elif not a.startswith(f"{name}="):
            out.append(a)
    return out


def _without_workers(argv: list[str]) -> list[str]:
    return _drop_option(argv, "--workers")


def _with_output_dir(argv: list[str], output_dir: Path) -> list[str]:
    return [*_drop_option(argv, "--output-dir"), "--output-dir", str(output_dir)]


def join() -> Worker:
    """Join the MPI job this process runs in: `init()`, data-parallel mode, BLAS threads per rank."""
    import cadence as ms
    from cadence.communication import (
        get_group_size,
        get_local_rank_size,
        get_rank,
        init,
    )

    init()
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    if not any(var in os.environ for var in _THREAD_VARS):
        # Typed `mpiexec -n N cadence train`: share this machine's cores among its ranks.
        ms.set_context(runtime_num_threads=threads_per_rank(get_local_rank_size()))
    return Worker(get_rank(), get_group_size())
