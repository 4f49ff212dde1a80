"""`Cell`, the base of every layer and network, plus `SequentialCell` and `CellList`.

Naming follows MindSpore: a parameter assigned to a cell attribute takes the
attribute's name unless it was named explicitly; a child cell assigned to a
cell with `auto_prefix=True` renames its parameters to `<attr>.<path>`
(`SequentialCell` children are `"0"`, `"1"`, ...), so a `Dense` second in a
`SequentialCell` owns `1.weight` and `1.bias`. `parameters_and_names()`
yields attribute paths; `Parameter.name` is what checkpoints use.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ..common.jit_config import JitConfig
from ..communication._ps_context import PS_UNAVAILABLE
from ..compute._tensor import Parameter, ParameterTuple
from ..validation import check_bool

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = ["Cell", "CellList", "SequentialCell"]


class Cell:
    """Base class of layers and networks; subclass it and write `construct`.

    Attributes that are `Parameter`s, `ParameterTuple`s or `Cell`s register
    themselves. Calling a cell calls `construct`.

    Args:
        auto_prefix: Whether child cells' parameter names get the attribute name as prefix.
        flags: Accepted for MindSpore compatibility; stored.

    Example:
        >>> import cadence.nn as nn
        >>> class Net(nn.Cell):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Dense(4, 2)
        ...
        ...     def construct(self, x):
        ...         return self.fc(x)
        >>> [name for name, _ in Net().parameters_and_names()]
        ['fc.weight', 'fc.bias']
    """

    _params: OrderedDict[str, Parameter]
    _cells: OrderedDict[str, Cell]
    _auto_prefix: bool
    training: bool
    requires_grad: bool

    def __init__(
        self, auto_prefix: bool = True, flags: dict[str, Any] | None = None
    ) -> None:
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "requires_grad", False)
        object.__setattr__(self, "_flags", dict(flags or {}))

    # --- registration --------------------------------------------------------------
    def _require_init(self) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.__init__ must call super().__init__() before assigning parameters or cells."
            )

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_params")
        cells = self.__dict__.get("_cells")
        if isinstance(value, Parameter):
            self._require_init()
            self.insert_param_to_cell(name, value, check_name_contain_dot=False)
        elif isinstance(value, ParameterTuple):
            self._require_init()
            for p in value:
                self.insert_param_to_cell(p.name, p, check_name_contain_dot=False)
        elif isinstance(value, Cell):
            self._require_init()
            if params is not None:
                params.pop(name, None)
            self.insert_child_to_cell(name, value)
        else:
            if params is not None:
                params.pop(name, None)
            if cells is not None:
                cells.pop(name, None)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__.get("_params", {}).pop(name, None)
        self.__dict__.get("_cells", {}).pop(name, None)
        object.__delattr__(self, name)

    def insert_param_to_cell(
        self, param_name: str, param: Parameter, check_name_contain_dot: bool = True
    ) -> None:
        """Register `param` under `param_name` (naming it so if it has the default name).

        Raises:
            KeyError: If `param_name` contains a dot while `check_name_contain_dot` is set.
            TypeError: If `param` is not a Parameter.
        """
        if not isinstance(param_name, str) or not param_name:  # type: ignore[redundant-expr]
            raise KeyError(
                f"For 'insert_param_to_cell', `param_name` must be a non-empty str, but got {param_name!r}."
            )
        if check_name_contain_dot and "." in param_name:
            raise KeyError(
                f"For 'insert_param_to_cell', `param_name` must not contain '.', but got {param_name!r}."
            )
        if not isinstance(param, Parameter):
            raise TypeError(
                f"For 'insert_param_to_cell', `param` must be a Parameter, but got {param!r}."
            )
        if not param._user_named:
            param._name = param_name
        self._params[param_name] = param
        if "." not in param_name:
            object.__setattr__(self, param_name, param)

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        """Register `child_cell` under `child_name` (prefixing its parameter names when `auto_prefix`).

        Raises:
            KeyError: If `child_name` is empty or contains a dot.
            TypeError: If `child_cell` is not a Cell.
        """
        if not isinstance(child_name, str) or not child_name or "." in child_name:  # type: ignore[redundant-expr]
            raise KeyError(
                f"For 'insert_child_to_cell', `child_name` must be a non-empty str without '.', but got {child_name!r}."
            )
        if not isinstance(child_cell, Cell):
            raise TypeError(
                f"For 'insert_child_to_cell', `child_cell` must be a Cell, but got {child_cell!r}."
            )
        self._cells[child_name] = child_cell
        object.__setattr__(self, child_name, child_cell)
        if self._auto_prefix:
            child_cell.update_parameters_name(child_name + ".")
        self._children_changed()

    def _children_changed(self) -> None:
        """Hook for containers that cache a plan of their children."""

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Rename every parameter to `prefix` + its path in this cell."""
        for path, param in self.parameters_and_names(expand=recurse):
            param._name = prefix + path
            param._user_named = True

    # --- traversal -----------------------------------------------------------------
    def cells_and_names(
        self, cells: set[int] | None = None, name_prefix: str = ""
    ) -> Iterator[tuple[str, Cell]]:
        """Yield (path, cell) for this cell and every descendant, each once."""
        seen = cells if cells is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            yield from cell.cells_and_names(
                seen, f"{name_prefix}.{name}" if name_prefix else name
            )

    def cells(self) -> Iterator[Cell]:
        """Yield the direct children."""
        return iter(self._cells.values())

    def name_cells(self) -> OrderedDict[str, Cell]:
        """Return the direct children by name."""
        return OrderedDict(self._cells)

    def apply(self, fn: Callable[[Cell], Any]) -> Cell:
        """Call `fn` on every descendant, children before parents, then on this cell; return self.

        The usual use is initializing weights by cell type (`net.apply(init_weights)`).
        """
        if not callable(fn):
            raise TypeError(
                f"For 'Cell.apply', the argument 'fn' must be callable, but got {fn!r}."
            )
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    @property
    def cls_name(self) -> str:
        """The class's name, as MindSpore's cells carry it (for messages)."""
        return type(self).__name__

    def parameters_and_names(
        self, name_prefix: str = "", expand: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Yield (path, parameter) for every parameter, each once, in registration order."""
        seen: set[int] = set()
        cells = (
            self.cells_and_names(name_prefix=name_prefix)
            if expand
            else iter([(name_prefix, self)])
        )
        for cell_name, cell in cells:
            for key, param in cell._params.items():
                if id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{cell_name}.{key}" if cell_name else key), param

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        """Yield every parameter, each once."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        """Return the parameters with `requires_grad=True`."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        """Return the parameters with `requires_grad=False`."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict[str, Parameter]:
        """Return {parameter name: parameter}."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    # --- modes ---------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> Cell:
        """Set training mode on this cell and its descendants; return self."""
        if not isinstance(mode, bool):
            raise TypeError(
                f"For 'set_train', `mode` must be a bool, but got {mode!r}."
            )
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        """Record whether the cell is differentiated (informational here); return self."""
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    def set_jit_config(self, jit_config: Any) -> None:
        """Record a `JitConfig` for graph compilation, which cadence does not do (cells run eagerly)."""
        if not isinstance(jit_config, JitConfig):
            raise TypeError(
                f"For 'set_jit_config', the argument 'jit_config' must be a JitConfig, "
                f"but got {jit_config!r}."
            )
        object.__setattr__(self, "jit_config_dict", jit_config.jit_config_dict)

    def recompute(self, **kwargs: Any) -> None:
        """Accept MindSpore's recomputation mark; it changes nothing in cadence.

        MindSpore's graph compiler then drops this cell's activations after the
        forward pass and recomputes them for the backward pass, trading compute for
        memory. cadence runs eagerly and its tape keeps every activation the
        backward pass needs, so the mark is checked and recorded
        (`recompute_config`) but saves no memory; smaller batches do. The keywords
        are MindSpore's: the bools `use_reentrant`, `output_recompute`,
        `early_stop`, a callable `context_fn`, and its parallel options.
        """
        config = {"use_reentrant": True, "output_recompute": False, "early_stop": True}
        config.update(kwargs)
        for name in ("use_reentrant", "output_recompute", "early_stop"):
            check_bool(config[name], name, "Cell.recompute")
        context_fn = config.get("context_fn")
        if context_fn is not None and not callable(context_fn):
            raise TypeError(
                f"For 'Cell.recompute', the argument 'context_fn' must be callable or None, "
                f"but got {context_fn!r}."
            )
        object.__setattr__(self, "recompute_config", config)

    def set_param_ps(self, recurse: bool = True, init_in_server: bool = False) -> None:
        """MindSpore 1.x's mark for parameters kept on a parameter server: not available in cadence.

        Raises:
            NotImplementedError: Always: cadence has no parameter server (see `set_ps_context`).
        """
        raise NotImplementedError(f"For 'Cell.set_param_ps': {PS_UNAVAILABLE}.")

    def init_parameters_data(
        self, auto_parallel_mode: bool = False
    ) -> dict[Parameter, Parameter]:
        """Return {parameter: parameter} for every parameter: cadence initializes them when they are made."""
        return {p: p for p in self.get_parameters()}

    def to_float(self, dst_type: Any) -> Cell:
        """Accepted for MindSpore compatibility; compute keeps parameter dtypes. Return self."""
        return self

    # --- calling -------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        """The forward computation; subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} must define `construct`.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "_names_checked" not in self.__dict__:
            self.check_names_and_refresh_name()
        return self.construct(*args, **kwargs)

    def check_names_and_refresh_name(self) -> None:
        """Rename every parameter to its path when two share a name; the first call runs it.

        As in MindSpore: two subnetworks with the same layout under cells made with
        `auto_prefix=False` (a GAN's generator and discriminator) would otherwise give
        their parameters equal names, and a checkpoint of the whole could keep only one.
        """
        object.__setattr__(self, "_names_checked", True)
        names = [param.name for _, param in self.parameters_and_names()]
        if len(set(names)) < len(names):
            self.update_parameters_name()

    # --- repr ----------------------------------------------------------------------
    def extend_repr(self) -> str:
        """Extra text shown between the angle brackets of the repr."""
        return ""

    def __repr__(self) -> str:
        head = f"{type(self).__name__}<{self.extend_repr()}"
        if not self._cells:
            return head + ">"
        lines = [head]
        for name, cell in self._cells.items():
            child = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({name}): {child}")
        return "\n".join(lines) + "\n  >"


class SequentialCell(Cell):
    """Run cells one after another; children are named `"0"`, `"1"`, ...

    A `Dense` without activation directly followed by `ReLU`, `Sigmoid` or
    `Tanh`, and a `BatchNorm1d`/`BatchNorm2d` directly followed by `ReLU` or
    `ReLU6`, run as one fused op (same result, fewer passes over memory).

    Args:
        *args: Cells, one list of cells, or an OrderedDict of name -> cell.
    """

    _plan: list[Any] | None

    def __init__(self, *args: Any) -> None:
        super().__init__()
        object.__setattr__(self, "_plan", None)
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, cell in args[0].items():
                self.insert_child_to_cell(name, cell)
            return
        cells = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        for i, cell in enumerate(cells):
            if not isinstance(cell, Cell):
                raise TypeError(
                    f"For 'SequentialCell', each element must be a Cell, but element {i} is {cell!r}."
                )
            self.insert_child_to_cell(str(i), cell)

    def _children_changed(self) -> None:
        object.__setattr__(self, "_plan", None)

    def append(self, cell: Cell) -> SequentialCell:
        """Add `cell` at the end; return self."""
        self.insert_child_to_cell(str(len(self._cells)), cell)
        return self

    def __getitem__(self, index: int | slice) -> Any:
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return SequentialCell(cells[index])
        return cells[index]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells.values())

    def _build_plan(self) -> list[Any]:
        from ._layers import Dense, fusable_activation
        from ._norm import fusable_norm_activation

        cells = list(self._cells.values())
        plan: list[Any] = []
        i = 0
        while i < len(cells):
            cell = cells[i]
            nxt = cells[i + 1] if i + 1 < len(cells) else None
            act = fusable_activation(nxt)
            if type(cell) is Dense and cell.activation is None and act is not None:
                plan.append((cell, act))
                i += 2
            elif (norm_act := fusable_norm_activation(cell, nxt)) is not None:
                plan.append((cell, norm_act))
                i += 2
            else:
                plan.append(cell)
                i += 1
        return plan

    def construct(self, input_data: Any) -> Any:
        """Apply the cells in order."""
        plan = self._plan
        if plan is None:
            plan = self._build_plan()
            object.__setattr__(self, "_plan", plan)
        x = input_data
        for step in plan:
            x = step[0].fused(x, step[1]) if isinstance(step, tuple) else step(x)
        return x


class CellList(Cell):
    """A list of cells, registered as children `"0"`, `"1"`, ...

    Args:
        args: An iterable of cells.
    """

    def __init__(self, args: Iterable[Cell] = ()) -> None:
        super().__init__()
        for cell in args:
            self.append(cell)

    def append(self, cell: Cell) -> CellList:
        """Add `cell` at the end; return self."""
        self.insert_child_to_cell(str(len(self._cells)), cell)
        return self

    def __getitem__(self, index: int) -> Cell:
        cells: list[Cell] = list(self._cells.values())
        return cells[index]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells.values())
