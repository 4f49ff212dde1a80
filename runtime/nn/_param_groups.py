"""Optimizer parameter groups as MindSpore takes them: `params`, `lr`, `weight_decay`, `grad_centralization`, `order_params`.

`parameters` is either a list of Parameters (one group: weight decay skips names
holding "beta" or "gamma") or a list of dicts. In a list of dicts each group
gives its `params` and optionally its own `lr`, `weight_decay` (applied to every
parameter of the group when > 0, whatever its name) and `grad_centralization`;
a dict holding only `order_params` sets the order of the parameters (and so of
the optimizer's state). Any other key is an error naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compute._tensor import Parameter, Tensor

__all__ = [
    "GROUP_KEYS",
    "ParamGroups",
    "centralizable",
    "centralize",
    "parse_param_groups",
]

GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


@dataclass(frozen=True)
class ParamGroups:
    """The parsed groups, one entry per parameter in the optimizer's order.

    `lr_slot[i]` is None for the optimizer's own `learning_rate`, else the index
    of the group whose `lr` parameter `i` uses (its rate is `lrs[index]`).
    """

    params: list[Parameter]
    decays: list[float]
    centralize: list[bool]
    lr_slot: list[int | None]
    lrs: dict[int, Any]
    grouped: bool


def _non_negative(owner: str, name: str, value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a float, but got {value!r} of type {type(value).__name__!r}."
        )
    if value < 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be at least 0.0, but got {value!r}."
        )
    return float(value)


def _decays_by_name(p: Parameter) -> bool:
    return "beta" not in p.name and "gamma" not in p.name


def _parameter_list(owner: str, value: Any, what: str) -> list[Parameter]:
    if isinstance(value, Parameter | Tensor | str | dict) or not isinstance(
        value, Iterable
    ):
        raise TypeError(
            f"For '{owner}', {what} must be a list of Parameters, but got {value!r} of type {type(value).__name__!r}."
        )
    items = list(value)
    for index, p in enumerate(items):
        if not isinstance(p, Parameter):
            raise TypeError(
                f"For '{owner}', every element of {what} must be a Parameter, but got {p!r} of type "
                f"{type(p).__name__!r} at index {index}."
            )
    if not items:
        raise ValueError(f"For '{owner}', {what} must not be empty.")
    return items


def parse_param_groups(owner: str, parameters: Any, weight_decay: float) -> ParamGroups:
    """Parse `parameters` (Parameters or group dicts); raise as MindSpore does, with the offending value named.

    Raises:
        TypeError: Not a list of Parameters or of dicts, or a group value of the wrong type.
        KeyError: A group key MindSpore does not know, or a group without `params`.
        ValueError: Empty groups, an `order_params` dict with other keys, or
            `order_params` not listing exactly the grouped parameters.
        RuntimeError: A parameter in two groups.
    """
    if isinstance(parameters, Parameter | Tensor | dict) or not isinstance(
        parameters, Iterable
    ):
        raise TypeError(
            f"For '{owner}', the argument 'parameters' must be a list of Parameters or of group dicts, but got "
            f"{parameters!r} of type {type(parameters).__name__!r}."
        )
    items = list(parameters)
    if items and all(isinstance(item, dict) for item in items):
        return _parse_groups(owner, items, weight_decay)
    if any(isinstance(item, dict) for item in items):
        raise TypeError(
            f"For '{owner}', the argument 'parameters' must hold only Parameters or only group dicts, but it mixes both."
        )
    params = _parameter_list(owner, items, "the argument 'parameters'")
    return ParamGroups(
        params=params,
        decays=[weight_decay if _decays_by_name(p) else 0.0 for p in params],
        centralize=[False] * len(params),
        lr_slot=[None] * len(params),
        lrs={},
        grouped=False,
    )


def _parse_groups(
    owner: str, groups: list[dict[str, Any]], weight_decay: float
) -> ParamGroups:
    params: list[Parameter] = []
    decays: list[float] = []
    flags: list[bool] = []
    slots: list[int | None] = []
    lrs: dict[int, Any] = {}
    order: list[Parameter] | None = None
    seen: set[int] = set()
    for index, group in enumerate(groups):
        unknown = [key for key in group if key not in GROUP_KEYS]
        if unknown:
            raise KeyError(
                f"For '{owner}', the keys of a parameter group must be among {list(GROUP_KEYS)}, but group {index} "
                f"has {unknown}."
            )
        if "order_params" in group:
            if len(group) > 1:
                raise ValueError(
                    f"For '{owner}', a group with 'order_params' must hold only that key, but group {index} has "
                    f"{sorted(group)}."
                )
            order = _parameter_list(owner, group["order_params"], "'order_params'")
            continue
        if "params" not in group:
            raise KeyError(
                f"For '{owner}', every parameter group needs a 'params' list, but group {index} has only {sorted(group)}."
            )
        members = _parameter_list(owner, group["params"], f"'params' of group {index}")
        decay = _non_negative(
            owner, "weight_decay", group.get("weight_decay", weight_decay)
        )
        centralized = group.get("grad_centralization", False)
        if not isinstance(centralized, bool):
            raise TypeError(
                f"For '{owner}', 'grad_centralization' of group {index} must be a bool, but got {centralized!r} of "
                f"type {type(centralized).__name__!r}."
            )
        if "lr" in group:
            lrs[index] = group["lr"]
        for p in members:
            if id(p) in seen:
                raise RuntimeError(
                    f"For '{owner}', the parameter {p.name!r} is in more than one group: each parameter may be set once."
                )
            seen.add(id(p))
            params.append(p)
            decays.append(decay)
            flags.append(centralized)
            slots.append(index if "lr" in group else None)
    if not params:
        raise ValueError(f"For '{owner}', the parameter groups hold no parameters.")
    if order is not None:
        params, decays, flags, slots = _reorder(
            owner, order, params, decays, flags, slots
        )
    return ParamGroups(params, decays, flags, slots, lrs, grouped=True)


def _reorder(
    owner: str,
    order: list[Parameter],
    params: list[Parameter],
    decays: list[float],
    flags: list[bool],
    slots: list[int | None],
) -> tuple[list[Parameter], list[float], list[bool], list[int | None]]:
    """Put the grouped parameters (and what goes with each) in the order `order_params` gives."""
    position = {p.name: i for i, p in enumerate(params)}
    names = [p.name for p in order]
    if len(order) != len(params) or sorted(names) != sorted(position):
        missing = sorted(set(position) - set(names))
        extra = sorted(set(names) - set(position))
        raise ValueError(
            f"For '{owner}', 'order_params' must list exactly the {len(params)} grouped parameters, but got "
            f"{len(order)} (not grouped: {extra}; grouped but not listed: {missing})."
        )
    picks = [position[name] for name in names]
    return (
        [params[i] for i in picks],
        [decays[i] for i in picks],
        [flags[i] for i in picks],
        [slots[i] for i in picks],
    )


def centralizable(grad: np.ndarray[Any, Any]) -> bool:
    """Whether MindSpore centralizes this gradient: 2 or more dimensions, axis 1 a multiple of 16.

    (Convolution weights with such input channels; other gradients of a flagged
    group pass unchanged.)
    """
    return grad.ndim >= 2 and grad.shape[1] % 16 == 0


def centralize(grad: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Subtract from each output slice (axis 0) its mean."""
    return np.asarray(grad - grad.mean(axis=tuple(range(1, grad.ndim)), keepdims=True))
