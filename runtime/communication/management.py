"""`init`, `release`, `get_rank`, `get_group_size`, ... (`mindspore.communication.management`)."""

from __future__ import annotations

from typing import Any, Final, Protocol

from ._world import current, init_world, release_world, require

__all__ = [
    "GlobalComm",
    "check_group",
    "get_group_size",
    "get_local_rank",
    "get_local_rank_size",
    "get_rank",
    "init",
    "release",
]

# MindSpore's backends all mean "the collective library" here: MPI.
_BACKENDS: Final = ("mpi", "hccl", "nccl", "mccl")


class GlobalComm:
    """The job's communication settings, as MindSpore's `GlobalComm`.

    `BACKEND` is the library (`"mpi"`), `WORLD_COMM_GROUP` the name of the group
    of all ranks, `INITED` whether `init()` was called (and `release()` not since).
    """

    BACKEND: str = "mpi"
    WORLD_COMM_GROUP: str = "mpi_world_group"
    INITED: bool = False
    CHECK_ENVS: bool = True


# Scripts written for Ascend or GPU name the world group after their backend.
_WORLD_GROUPS: Final = frozenset(
    ("mpi_world_group", "hccl_world_group", "nccl_world_group", "mccl_world_group")
)


def check_group(group: Any, where: str) -> None:
    """Raise unless `group` names the world group (the only group cadence has)."""
    if not isinstance(group, str):
        raise TypeError(
            f"For '{where}', the argument 'group' must be a str, but got {group!r} of type {type(group).__name__!r}."
        )
    if group not in _WORLD_GROUPS:
        raise ValueError(
            f"For '{where}', the argument 'group' must name the world group "
            f"({GlobalComm.WORLD_COMM_GROUP!r}): cadence has no sub-groups, but got {group!r}."
        )


def init(backend_name: str | None = None, *, timeout: float | None = None) -> None:
    """Join the job this process was launched in (`mpiexec -n N ...`), as `mindspore.communication.init`.

    Under a plain `python script.py` the job has one rank. Calling `init` again
    does nothing (except update `timeout`).

    Args:
        backend_name: None or `"mpi"`; MindSpore's `"hccl"`, `"nccl"` and
            `"mccl"` are accepted too and also mean MPI.
        timeout: Seconds any collective may wait for the other ranks before the
            job is aborted with a message (default 30, or `$CADENCE_COMM_TIMEOUT`).

    Raises:
        TypeError: If `backend_name` is not a str, or `timeout` not a number.
        ValueError: For an unknown backend or a non-positive timeout.
        RuntimeError: If the `mpi` extra (mpi4py) is not installed.

    Example:
        >>> from cadence.communication import init, get_rank, get_group_size, release
        >>> init()
        >>> get_rank(), get_group_size()
        (0, 1)
        >>> release()
    """
    if backend_name is not None:
        if not isinstance(backend_name, str):
            raise TypeError(
                f"For 'init', the argument 'backend_name' must be a str or None, but got {backend_name!r} "
                f"of type {type(backend_name).__name__!r}."
            )
        if backend_name.lower() not in _BACKENDS:
            raise ValueError(
                f"For 'init', the argument 'backend_name' must be one of {list(_BACKENDS)} (all run on MPI), "
                f"but got {backend_name!r}."
            )
    given: Any = timeout  # checked at run time: callers may pass anything
    if given is not None:
        if not isinstance(given, int | float) or isinstance(given, bool):
            raise TypeError(
                f"For 'init', the argument 'timeout' must be a number of seconds, but got {timeout!r}."
            )
        if not given > 0:
            raise ValueError(
                f"For 'init', the argument 'timeout' must be positive, but got {timeout!r}."
            )
    init_world(None if timeout is None else float(timeout))
    GlobalComm.INITED = True


def release() -> None:
    """Leave the job, as `mindspore.communication.release`: cadence runs stand-alone again.

    Raises:
        RuntimeError: If `init()` was not called.
    """
    require("release")
    release_world()
    GlobalComm.INITED = False


class _WorldQuery(Protocol):
    def __call__(self, group: str = GlobalComm.WORLD_COMM_GROUP) -> int: ...


def _world_query(name: str, attribute: str, summary: str) -> _WorldQuery:
    # The four queries differ only in the number they read from the joined world.
    def query(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
        check_group(group, name)
        value: int = getattr(require(name), attribute)
        return value

    query.__name__ = query.__qualname__ = name
    query.__doc__ = f"""{summary}

    Raises:
        RuntimeError: If `init()` was not called.
    """
    return query


get_rank = _world_query(
    "get_rank",
    "rank",
    "Return this process's rank in the job (0 to `get_group_size() - 1`).",
)
get_group_size = _world_query(
    "get_group_size", "size", "Return the number of ranks in the job."
)
get_local_rank = _world_query(
    "get_local_rank",
    "local_rank",
    "Return this process's rank among the ranks on the same machine.",
)
get_local_rank_size = _world_query(
    "get_local_rank_size", "local_size", "Return the number of ranks on this machine."
)


def is_initialized() -> bool:
    """Return whether `init()` was called (and `release()` not since)."""
    return current() is not None
