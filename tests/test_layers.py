"""The layering of cadence's packages, declared once here and checked on the source (see docs/architecture.md).

Reads every module of `runtime/`, `kernels/` and `callbacks/` with `ast` (nothing
is imported) and checks two things:

- `LAYERS`: each layer imports only what its row allows. Every import counts,
  at module level, inside functions and under `TYPE_CHECKING` alike: a lazy
  import is still a dependency.
- no import cycles: the imports that run when a module is imported (module
  level, not under `TYPE_CHECKING`) form no cycle, so no module needs an import
  at the bottom of a file to load.
"""

from __future__ import annotations

import ast
import functools
import graphlib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {
    "cadence": ROOT / "runtime",
    "cadence.kernels": ROOT / "kernels",
    "cadence.callbacks": ROOT / "callbacks",
}

# The training core: `Model`, the loop, the callback bridge, run contexts and handles.
TRAINING = ("cadence.training",)
# The MindSpore import paths and the applications built on the whole runtime.
FRONT = (
    "cadence.amp",
    "cadence.nn",
    "cadence.train",
    "cadence.dataset",
    "cadence.service",
    "cadence.cli",
)


@dataclass(frozen=True)
class Layer:
    """A layer: the modules it holds, and the cadence modules outside it they may import."""

    holds: tuple[str, ...]
    may_import: tuple[str, ...] = ()
    public_only: bool = (
        False  # True: besides `may_import`, any cadence module without a `_x` part
    )


LAYERS = {
    "kernels": Layer(holds=("cadence.kernels",)),
    "bus": Layer(holds=("cadence.bus",), may_import=("cadence._errors",)),
    "compute": Layer(
        holds=("cadence.compute",),
        may_import=(
            "cadence.kernels",
            "cadence._errors",
            "cadence._util",
            # Tensors run the functional ops and initializers, which build on them.
            "cadence.ops",
            "cadence.common",
        ),
    ),
    "checkpoint": Layer(
        holds=("cadence.checkpoint",),
        may_import=(
            "cadence.kernels",
            "cadence.compute",
            "cadence._errors",
            "cadence._util",
            "cadence.validation",
        ),
    ),
    "ops, nn, dataset": Layer(
        holds=(
            "cadence.ops",
            "cadence.nn",
            "cadence.common",
            "cadence.dataset",
            "cadence.numpy",
        ),
        may_import=(
            "cadence.compute",
            "cadence.kernels",
            "cadence._errors",
            "cadence._util",
            "cadence.validation",
            # `mindspore.common.dtype` is `mindspore.dtype` under another name.
            "cadence.dtype",
            # TrainOneStepCell reduces gradients, and ops.AllReduce & co. run, over MPI.
            "cadence.communication",
            # MindDataset reads MindRecord files.
            "cadence.mindrecord",
        ),
    ),
    # MindRecord files (`mindspore.mindrecord`): numpy, msgpack and sqlite3 below the datasets.
    "mindrecord": Layer(
        holds=("cadence.mindrecord",),
        may_import=("cadence._errors", "cadence._util", "cadence.validation"),
    ),
    # The model zoo's networks (issue 23): cells and ops only.
    "models": Layer(
        holds=("cadence.models",),
        may_import=(
            "cadence.nn",
            "cadence.ops",
            "cadence.common",
            "cadence.compute",
            "cadence._errors",
            "cadence._util",
            "cadence.validation",
        ),
    ),
    "training": Layer(
        holds=TRAINING,
        may_import=(
            "cadence.bus",
            "cadence.compute",
            "cadence.checkpoint",
            "cadence._errors",
            "cadence._util",
            "cadence.validation",
            # `Model` wraps the network in `nn.WithLossCell` / `TrainOneStepCell` and looks
            # metric names up in `nn`, as MindSpore's Model does (imported when it builds them).
            "cadence.nn",
            # Data-parallel runs vote on stops and merge fit's metrics across the ranks.
            "cadence.communication",
        ),
    ),
    # ONNX export traces a `Cell` through the functional ops and writes the file atomically.
    "onnx": Layer(
        holds=("cadence.onnx",),
        may_import=(
            "cadence.compute",
            "cadence.ops",
            "cadence.nn",
            "cadence.checkpoint",
            "cadence._errors",
            "cadence._util",
        ),
    ),
    # MindSpore's sharding-planner settings, recorded (`mindspore.parallel`).
    "parallel": Layer(
        holds=("cadence.parallel",), may_import=("cadence._util", "cadence.validation")
    ),
    # Data parallelism over MPI: the process world, collectives, the stop vote, metric merging.
    "communication": Layer(
        holds=("cadence.communication",),
        may_import=(
            "cadence.bus",
            "cadence._errors",
            "cadence._util",
            "cadence.validation",
        ),
    ),
    "callbacks": Layer(holds=("cadence.callbacks",), public_only=True),
    # Applications of cadence: its public API, plus the plugin registry (`cadence targets`)
    # and the command line's presets (the service builds the same networks).
    "cli, service": Layer(
        holds=("cadence.cli", "cadence.service"),
        may_import=(
            "cadence.cli",
            "cadence.compute",
            # `cadence train --workers`: the ranks meet before the run directory is written.
            "cadence.communication",
            # `cadence predict` checks an .npy/.npz input's header against its size, as
            # the datasets do, before reading it.
            "cadence.dataset._npy_claims",
            "cadence._errors",
            "cadence._util",
        ),
        public_only=True,
    ),
}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _is_public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


# --- reading the sources ---------------------------------------------------------------
@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


def _modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for prefix, directory in SOURCES.items():
        for path in sorted(directory.rglob("*.py")):
            parts = list(path.relative_to(directory).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            name = ".".join([prefix, *(parts[:-1] if is_package else parts)])
            found.setdefault(name, Module(name, path, is_package))
    return found


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    body: list[ast.stmt], at_import_time: bool
) -> list[ast.Import | ast.ImportFrom]:
    """The import statements in `body`; with `at_import_time`, only those that run on import."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif at_import_time and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            continue
        elif (
            at_import_time and isinstance(node, ast.If) and _is_type_checking(node.test)
        ):
            found += _imports(node.orelse, at_import_time)
        else:
            # Compound statements (if, try, with, class bodies) run their blocks on import.
            for field in ("body", "orelse", "finalbody"):
                found += _imports(getattr(node, field, []), at_import_time)
            for handler in getattr(node, "handlers", []):
                found += _imports(handler.body, at_import_time)
    return found


def _targets(module: Module, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The cadence modules an import statement loads (a package stands for its `__init__`)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if _within(a.name, ("cadence",))}
    if node.level:
        base = module.name.split(".")
        if not module.is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, *([node.module] if node.module else [])])
    else:
        target = node.module or ""
    if not _within(target, ("cadence",)):
        return set()
    return {
        f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target
        for a in node.names
    }


@functools.cache
def _graph(at_import_time: bool) -> dict[str, set[str]]:
    graph = {}
    for module in MODULES.values():
        tree = ast.parse(module.path.read_text(), str(module.path))
        nodes = (
            _imports(tree.body, True)
            if at_import_time
            else [
                n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
            ]
        )
        deps: set[str] = set()
        for node in nodes:
            deps |= _targets(module, node)
        graph[module.name] = deps - {module.name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """Return one import cycle of `graph` (first module repeated at the end), or [] if there is none."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


# --- the contracts -------------------------------------------------------------------------
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_what_its_row_allows(layer):
    rule = LAYERS[layer]
    graph = _graph(at_import_time=False)
    wrong = sorted(
        f"{name} imports {dep}"
        for name, deps in graph.items()
        if _within(name, rule.holds)
        for dep in deps
        if not _within(dep, rule.holds)
        and not _within(dep, rule.may_import)
        and not (rule.public_only and _is_public(dep))
    )
    assert wrong == [], f"layer {layer!r} breaks its rule (LAYERS in {__file__})"


@pytest.mark.parametrize("layer", ["kernels", "bus", "compute", "checkpoint"])
def test_lower_layers_import_no_training_and_no_front_end(layer):
    # Implied by LAYERS today; stated on its own so that widening a row cannot undo it.
    graph = _graph(at_import_time=False)
    wrong = sorted(
        f"{name} imports {dep}"
        for name, deps in graph.items()
        if _within(name, LAYERS[layer].holds)
        for dep in deps
        if _within(dep, TRAINING + FRONT + ("cadence.callbacks",))
    )
    assert wrong == []


def test_no_import_cycles():
    assert _cycle(_graph(at_import_time=True)) == []


def test_the_cycle_check_finds_a_cycle():
    cycle = _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert sorted(set(cycle)) == ["a", "b", "c"]
    assert cycle[0] == cycle[-1]


def test_every_package_docstring_states_its_rule():
    missing = [
        m.name
        for m in MODULES.values()
        if m.is_package
        and "rule:" not in (ast.get_docstring(ast.parse(m.path.read_text())) or "")
    ]
    assert missing == []
