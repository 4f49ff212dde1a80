"""`cadence summary plot DIR`: render the scalar curves of TensorBoard event files to a PNG."""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._command import Command, UsageError, arg

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

__all__ = ["COMMAND", "Series", "read_scalars", "run_plot"]

_EVENT_FILE_MARK = "tfevents"  # what TensorBoard itself looks for in a file name
_TAG_ORDER = ("train/loss", "train/lr")

Series = dict[str, list[tuple[int, float]]]
"""One event file's scalars: tag to `(step, value)` points in file order."""


def run_plot(args: argparse.Namespace) -> int:
    """Read the scalars under `args.dir`, plot them to `args.out`; return the exit status."""
    root = Path(args.dir)
    if not root.exists():
        raise UsageError(f"the directory {args.dir!r} does not exist.")
    if not root.is_dir():
        raise UsageError(f"{args.dir!r} is not a directory.")
    files = sorted(p for p in root.rglob(f"*{_EVENT_FILE_MARK}*") if p.is_file())
    if not files:
        raise UsageError(
            f"no TensorBoard event files (events.out.tfevents.*) under {args.dir!r}."
        )
    curves = {label: read_scalars(path) for label, path in _labels(root, files)}
    curves = {label: series for label, series in curves.items() if series}
    if not curves:
        raise UsageError(
            f"the {len(files)} event file(s) under {args.dir!r} hold no scalar summaries."
        )
    out = Path(args.out) if args.out else root / "scalars.png"
    if not out.parent.is_dir():
        raise UsageError(
            f"cannot write {str(out)!r}: the directory {str(out.parent)!r} does not exist."
        )
    tags = _plot(curves, out, title=str(root))
    print(f"wrote {out} ({len(tags)} tag(s), {len(curves)} event file(s))")
    return 0


# --- reading event files ----------------------------------------------------------------


def read_scalars(path: Path) -> Series:
    """Return the scalar points of one event file (a truncated last record is ignored).

    Raises:
        UsageError: The file is not a TensorBoard event file.
    """
    from google.protobuf.message import DecodeError
    from tensorboardX.proto.event_pb2 import Event  # type: ignore[import-untyped]

    series: Series = {}
    for data in _records(path):
        event = Event()
        try:
            event.ParseFromString(data)
        except DecodeError:
            raise UsageError(
                f"{str(path)!r} is not a TensorBoard event file (a record does not parse)."
            ) from None
        if not event.HasField("summary"):
            continue
        for value in event.summary.value:
            number = _scalar(value)
            if number is not None:
                series.setdefault(value.tag, []).append((int(event.step), number))
    return series


def _records(path: Path) -> Iterator[bytes]:
    """Yield the payloads of a TFRecord file: length (u64), its CRC, data, the data's CRC.

    Raises:
        UsageError: A record's length does not match its checksum (not an event file,
            or a corrupt one).
    """
    from tensorboardX.record_writer import masked_crc32c  # type: ignore[import-untyped]

    with path.open("rb") as stream:
        while True:
            header = stream.read(12)
            if len(header) < 12:
                return
            (length, length_crc) = struct.unpack("<QI", header)
            if masked_crc32c(header[:8]) != length_crc:
                raise UsageError(
                    f"{str(path)!r} is not a TensorBoard event file (a record's length does not match its checksum)."
                )
            data = stream.read(length)
            if len(data) < length or len(stream.read(4)) < 4:
                return  # the writer was still busy with this record
            yield data


def _scalar(value: Any) -> float | None:
    """The number in a summary value written as a scalar (tensorboardX) or a scalar tensor (TF 2)."""
    if value.HasField("simple_value"):
        return float(value.simple_value)
    if value.HasField("tensor") and value.metadata.plugin_data.plugin_name == "scalars":
        tensor = value.tensor
        for field in (tensor.float_val, tensor.double_val):
            if len(field):
                return float(field[0])
        if len(tensor.tensor_content) in (4, 8):
            return float(
                struct.unpack(
                    "<f" if len(tensor.tensor_content) == 4 else "<d",
                    tensor.tensor_content,
                )[0]
            )
    return None


def _labels(root: Path, files: list[Path]) -> Iterator[tuple[str, Path]]:
    """Name each file's curve by its directory under `root`, numbered when a directory has several."""
    by_dir: dict[Path, list[Path]] = {}
    for path in files:
        by_dir.setdefault(path.parent, []).append(path)
    for directory, paths in by_dir.items():
        name = (
            str(directory.relative_to(root))
            if directory != root
            else (root.resolve().name or str(root))
        )
        for index, path in enumerate(paths, start=1):
            yield (f"{name} #{index}" if len(paths) > 1 else name), path


# --- plotting -------------------------------------------------------------------------------


def _plot(curves: dict[str, Series], out: Path, *, title: str) -> list[str]:
    plt = _pyplot()
    tags = sorted({tag for series in curves.values() for tag in series}, key=_tag_key)
    cols = 1 if len(tags) == 1 else 2
    rows = math.ceil(len(tags) / cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(6.0 * cols, 3.4 * rows), squeeze=False
    )
    for ax, tag in zip(axes.flat, tags, strict=False):
        values: list[float] = []
        for label, series in curves.items():
            points = series.get(tag)
            if points:
                steps, ys = zip(*points, strict=True)
                ax.plot(
                    steps,
                    ys,
                    marker="o" if len(points) <= 30 else None,
                    markersize=3,
                    label=label,
                )
                values.extend(ys)
        if tag.endswith("loss") and _spans_decades(values):
            ax.set_yscale("log")
        ax.set_title(tag)
        ax.set_xlabel("step")
        ax.grid(True, alpha=0.3)
        if len(curves) > 1:
            ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(tags) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return tags


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise UsageError(
            "plotting needs matplotlib, which is not installed: pip install 'cadence[plot]' (or pip install matplotlib)."
        ) from None
    matplotlib.use("Agg")  # files only: no display needed, and no GUI toolkit imported
    import matplotlib.pyplot as plt

    return plt


def _tag_key(tag: str) -> tuple[int, str]:
    return (_TAG_ORDER.index(tag) if tag in _TAG_ORDER else len(_TAG_ORDER), tag)


def _spans_decades(values: list[float]) -> bool:
    finite = [v for v in values if math.isfinite(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 20


COMMAND = Command(
    name="summary",
    help="work with the TensorBoard event files SummaryCollector writes",
    description="Work with the TensorBoard event files that SummaryCollector writes.",
    actions=(
        Command(
            name="plot",
            help="render the scalar curves (loss, learning rate, metrics) to a PNG",
            description="Render every scalar tag found in the event files under DIR (searched recursively; "
            "each event file is one curve) to one PNG, a panel per tag. Needs matplotlib "
            "(pip install 'cadence[plot]').",
            args=(
                arg(
                    "dir",
                    metavar="DIR",
                    help="a summary directory (SummaryCollector's summary_dir)",
                ),
                arg(
                    "--out",
                    metavar="FILE.png",
                    help="where to write the PNG (default: DIR/scalars.png)",
                ),
            ),
            run=run_plot,
        ),
    ),
)
