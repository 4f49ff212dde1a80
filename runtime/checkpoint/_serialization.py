"""`save_checkpoint`, `load_checkpoint`, `load_param_into_net` with MindSpore's surface.

Two formats: `"ckpt"` (the default) is MindSpore's own protobuf container
(see `_ckpt_format`), byte-compatible both ways; `"safetensors"` goes through
the safetensors library, with string entries stored in the header metadata.
Every write is atomic (see `_atomic`) and leaves a read-only (0o400) file.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .._util import type_name
from ..compute._tensor import Parameter, Tensor
from ..validation import check_async_save
from . import _ckpt_format, _safetensors_format
from ._atomic import atomic_write_chunks

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import numpy.typing as npt

__all__ = [
    "checkpoint_chunks",
    "load_checkpoint",
    "load_param_into_net",
    "save_checkpoint",
]

_LOG = logging.getLogger("cadence.serialization")

_FORMATS = ("ckpt", "safetensors")
_KNOWN_SAVE_KWARGS = frozenset(
    {"incremental", "enable_redundance", "remove_redundancy"}
)


# --- argument checks ---------------------------------------------------------------


def _check_bool(func: str, arg: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For '{func}', the argument '{arg}' must be bool, but got {value!r} ({type_name(value)})."
        )
    return value


def _check_format(func: str, format: object) -> str:
    if format not in _FORMATS:
        raise ValueError(
            f"For '{func}', the argument 'format' must be 'ckpt' or 'safetensors', but got {format!r}."
        )
    return str(format)


def _check_callable(func: str, arg: str, value: object) -> None:
    if value is not None and not callable(value):
        raise TypeError(
            f"For '{func}', the argument '{arg}' must be None or callable, but got {value!r}."
        )


def _check_path(func: str, arg: str, value: object) -> str:
    if not isinstance(value, str | os.PathLike):
        raise TypeError(
            f"For '{func}', the argument '{arg}' must be str or os.PathLike, "
            f"but got {value!r} ({type_name(value)})."
        )
    return os.path.abspath(os.fspath(value))


def _is_cell(obj: object) -> bool:
    return callable(getattr(obj, "parameters_and_names", None))


def _as_array(value: Any) -> npt.NDArray[Any]:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


# --- save --------------------------------------------------------------------------


def save_checkpoint(
    save_obj: Any,
    ckpt_file_name: str | os.PathLike[str],
    integrated_save: bool = True,
    async_save: bool | str = False,
    append_dict: dict[str, Any] | None = None,
    enc_key: bytes | None = None,
    enc_mode: str = "AES-GCM",
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    format: str = "ckpt",
    **kwargs: Any,
) -> None:
    """Save parameters (and extra values) to a checkpoint file, atomically.

    Args:
        save_obj: An `nn.Cell` (all its `parameters_and_names()`), a list of
            `Parameter`, a list of `{"name": str, "data": Tensor | str}` dicts, or a
            dict `{name: Parameter | Tensor | numpy.ndarray | str}` such as
            `load_checkpoint` returns.
        ckpt_file_name: The file to write; `.ckpt` / `.safetensors` (after
            `format`) is appended when the name does not end with it. An existing
            file is replaced.
        integrated_save: Accepted for compatibility (no model parallelism here).
        async_save: `False`, `True`, `"thread"` or `"process"`. Accepted for
            compatibility; cadence always writes before returning, so the file is
            complete when the call returns.
        append_dict: Extra entries after the parameters: `int` is stored as an
            Int64 scalar, `float` as Float32, `bool` as Bool, `str` as a string,
            a `Tensor`/`Parameter` as it is.
        enc_key: Must be None (encryption is not supported).
        enc_mode: Ignored without `enc_key`.
        choice_func: `choice_func(name) -> bool`; only names it accepts are saved
            (append entries are always saved).
        crc_check: Store MindSpore's CRC-32 of the data: a `crc_num` trailer
            after a `.ckpt` file's records, a `crc_num` metadata entry in a
            safetensors header. `load_checkpoint` (cadence's and MindSpore's
            with `crc_check=True`) then refuses the file if a bit of it changes.
        format: `"ckpt"` (MindSpore's container) or `"safetensors"`.
        **kwargs: MindSpore's extra options `incremental`, `enable_redundance`,
            `remove_redundancy` are accepted and ignored.

    Raises:
        TypeError: A wrong type for `save_obj`, `ckpt_file_name`, a flag, an
            `append_dict` entry or a value that has no checkpoint dtype.
        ValueError: A bad `format`, `async_save` or safetensors option.
        IsADirectoryError: `ckpt_file_name` names a directory.
        NotImplementedError: `enc_key`.
    """
    func = "save_checkpoint"
    _check_save_obj(func, save_obj)
    path = _checkpoint_path(func, ckpt_file_name)
    _check_bool(func, "integrated_save", integrated_save)
    check_async_save(async_save, "save_checkpoint")
    _check_append_dict(func, append_dict)
    format = _check_format(func, format)
    _check_save_options(format, enc_key, enc_mode, crc_check)
    _check_callable(func, "choice_func", choice_func)
    unknown = sorted(set(kwargs) - _KNOWN_SAVE_KWARGS)
    if unknown:
        raise TypeError(
            f"For '{func}', unexpected keyword arguments {unknown}; accepted: {sorted(_KNOWN_SAVE_KWARGS)}."
        )
    if not path.endswith("." + format):
        path += "." + format
    atomic_write_chunks(
        path,
        checkpoint_chunks(
            func, save_obj, append_dict, choice_func, format, crc_check=crc_check
        ),
    )


def checkpoint_chunks(
    func: str,
    save_obj: Any,
    append_dict: dict[str, Any] | None,
    choice_func: Callable[[str], bool] | None,
    format: str,
    *,
    crc_check: bool = False,
) -> Iterable[bytes | memoryview]:
    """Return the bytes of a checkpoint file of checked arguments, as chunks to concatenate.

    `func` names the public entry point in error messages. Chunks may be views
    of the live arrays (the parameters' own memory): copy or write them before
    the arrays change. With `crc_check`, the file carries MindSpore's CRC-32.
    """
    entries = _collect_entries(func, save_obj, choice_func)
    entries.update(_append_entries(func, append_dict or {}))
    if format == "ckpt":
        chunks = _ckpt_format.encode(entries.items())
        return _ckpt_format.with_crc_trailer(chunks) if crc_check else chunks
    return [_safetensors_payload(func, entries, crc_check)]


def _check_save_obj(func: str, save_obj: object) -> None:
    if not (_is_cell(save_obj) or isinstance(save_obj, list | dict)):
        raise TypeError(
            f"For '{func}', the argument 'save_obj' must be nn.Cell, list or dict, "
            f"but got {save_obj!r} ({type_name(save_obj)})."
        )


def _checkpoint_path(func: str, ckpt_file_name: object) -> str:
    path = _check_path(func, "ckpt_file_name", ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"For '{func}', the argument 'ckpt_file_name' must be a file name, but {path!r} is a directory."
        )
    return path


def _check_append_dict(func: str, append_dict: object) -> None:
    if append_dict is None:
        return
    if not isinstance(append_dict, dict):
        raise TypeError(
            f"For '{func}', the argument 'append_dict' must be dict, but got {append_dict!r} ({type_name(append_dict)})."
        )
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(
            value, int | float | str | Tensor
        ):
            raise TypeError(
                f"For '{func}', the argument 'append_dict' must map str keys to int, float, bool, str, "
                f"Tensor or Parameter values, but got key {key!r} with a value of type {type_name(value)!r}."
            )


def _check_key_and_mode(
    func: str, key: tuple[str, object], mode: tuple[str, object]
) -> None:
    # MindSpore raises ValueError for both, wrong type or not.
    if key[1] is not None and not isinstance(key[1], bytes):
        raise ValueError(
            f"For '{func}', the argument '{key[0]}' must be None or bytes, but got {type_name(key[1])}."
        )
    if not isinstance(mode[1], str):
        raise ValueError(
            f"For '{func}', the argument '{mode[0]}' must be str, but got {mode[1]!r}."
        )


def _check_save_options(
    format: str, enc_key: object, enc_mode: object, crc_check: object
) -> None:
    func = "save_checkpoint"
    _check_key_and_mode(func, ("enc_key", enc_key), ("enc_mode", enc_mode))
    _check_bool(func, "crc_check", crc_check)
    if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM"):
        raise ValueError(
            f"For '{func}', when format is 'safetensors', 'enc_key' and 'enc_mode' must keep their "
            f"defaults (None, 'AES-GCM'), but got {type_name(enc_key)}, {enc_mode!r}."
        )
    if enc_key is not None:
        raise NotImplementedError(
            f"For '{func}', encrypted checkpoints ('enc_key') are not supported by cadence."
        )


def _collect_entries(
    func: str, save_obj: Any, choice_func: Callable[[str], bool] | None
) -> dict[str, Any]:
    """Return `{name: ndarray | str}` in save order (a later duplicate name replaces the value)."""
    if _is_cell(save_obj):
        pairs: Iterable[tuple[str, Any]] = (
            (param.name or name, param)
            for name, param in save_obj.parameters_and_names()
        )
    elif isinstance(save_obj, dict):
        pairs = _dict_pairs(func, save_obj)
    else:
        pairs = _list_pairs(func, save_obj)
    entries: dict[str, Any] = {}
    owners: dict[
        str, int
    ] = {}  # a Cell's parameters by name: two of them must not share one
    for name, value in pairs:
        if _is_cell(save_obj) and owners.setdefault(name, id(value)) != id(value):
            raise ValueError(
                f"For '{func}', two parameters of the network are named {name!r}, so the checkpoint "
                "would keep one; call the network once first (its first call renames parameters "
                "that share a name after their paths, as MindSpore does) or name them apart."
            )
        if choice_func is None or choice_func(name):
            entries[name] = (
                value
                if isinstance(value, str)
                else _storable(func, name, _as_array(value))
            )
    return entries


def _dict_pairs(func: str, save_obj: dict[Any, Any]) -> Iterable[tuple[str, Any]]:
    for key, value in save_obj.items():
        if not isinstance(key, str) or not isinstance(value, Tensor | np.ndarray | str):
            raise TypeError(
                f"For '{func}', a dict 'save_obj' must map str names to Parameter, Tensor, "
                f"numpy.ndarray or str values, but got key {key!r} with a value of type {type_name(value)!r}."
            )
        yield key, value


def _list_pairs(func: str, save_obj: list[Any]) -> Iterable[tuple[str, Any]]:
    for index, item in enumerate(save_obj):
        if isinstance(item, Parameter) and item.name is not None:
            yield item.name, item
        elif (
            isinstance(item, dict)
            and isinstance(item.get("name"), str)
            and "data" in item
        ):
            if not isinstance(item["data"], Tensor | np.ndarray | str):
                raise TypeError(
                    f"For '{func}', save_obj[{index}]['data'] must be Parameter, Tensor, numpy.ndarray "
                    f"or str, but got {type_name(item['data'])!r}."
                )
            yield item["name"], item["data"]
        else:
            raise TypeError(
                f"For '{func}', a list 'save_obj' must hold named Parameters or "
                f"{{'name': str, 'data': Tensor}} dicts, but save_obj[{index}] is {item!r}."
            )


def _storable(func: str, name: str, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    try:
        _ckpt_format.tensor_type_name(array.dtype)
    except TypeError as error:
        raise TypeError(
            f"For '{func}', entry {name!r} cannot be saved: {error}."
        ) from None
    return array


def _append_entries(func: str, append_dict: dict[str, Any]) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    for name, value in append_dict.items():
        if isinstance(value, str):
            entries[name] = value
        elif isinstance(value, bool):
            entries[name] = np.array(value, dtype=np.bool_)
        elif isinstance(value, int):
            entries[name] = np.array(value, dtype=np.int64)
        elif isinstance(value, float):
            entries[name] = np.array(value, dtype=np.float32)
        else:
            entries[name] = _storable(func, name, _as_array(value))
    return entries


def _safetensors_payload(func: str, entries: dict[str, Any], crc_check: bool) -> bytes:
    strings = {name: value for name, value in entries.items() if isinstance(value, str)}
    for key in _safetensors_format.RESERVED_KEYS:
        if key in strings:
            raise ValueError(
                f"For '{func}', with format 'safetensors' string entries are stored in the header metadata, "
                f"where the key {key!r} is reserved; rename the entry {key!r}."
            )
    tensors = {
        name: value for name, value in entries.items() if not isinstance(value, str)
    }
    return _safetensors_format.encode(tensors, strings, crc_check)


# --- load --------------------------------------------------------------------------


def load_checkpoint(
    ckpt_file_name: str | os.PathLike[str],
    net: Any = None,
    strict_load: bool = False,
    filter_prefix: str | list[str] | tuple[str, ...] | None = None,
    dec_key: bytes | None = None,
    dec_mode: str = "AES-GCM",
    specify_prefix: str | list[str] | tuple[str, ...] | None = None,
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    remove_redundancy: bool = False,
    format: str = "ckpt",
) -> dict[str, Parameter | str]:
    """Load a checkpoint file into a dict of `Parameter`s (and `str` entries).

    Args:
        ckpt_file_name: A `.ckpt` or `.safetensors` file, matching `format`.
        net: If given, the loaded dict is also loaded into it with
            `load_param_into_net(net, params, strict_load)`.
        strict_load: Passed to `load_param_into_net`.
        filter_prefix: Names starting with any of these are skipped (deprecated in
            MindSpore; overrides `choice_func`).
        dec_key: Must be None (encryption is not supported).
        dec_mode: Ignored without `dec_key`.
        specify_prefix: Only names starting with one of these are loaded
            (deprecated in MindSpore; overrides `choice_func`).
        choice_func: `choice_func(name) -> bool`; only names it accepts are loaded.
        crc_check: Warn (as MindSpore does) when the file carries no CRC. A CRC
            the file carries is verified whatever this flag says: a damaged
            file is refused, never loaded.
        remove_redundancy: Accepted for compatibility (no model parallelism here).
        format: `"ckpt"` or `"safetensors"`.

    Returns:
        `{name: Parameter | str}`, in file order for `.ckpt` and in sorted name
        order for `.safetensors`; numeric entries (scalars too) are `Parameter`s.

    Raises:
        TypeError: A wrong argument type.
        ValueError: The file is missing, does not match `format`, is corrupt or
            truncated (the message names the file), or nothing is left after filtering.
            A file whose CRC does not match its data raises `ChecksumError`, a
            `ValueError`.
        NotImplementedError: `dec_key`.
    """
    func = "load_checkpoint"
    path = _check_path(func, "ckpt_file_name", ckpt_file_name)
    if format not in _FORMATS:
        raise ValueError(
            f"For '{func}', the argument 'format' must be 'ckpt' or 'safetensors', but got {format!r}."
        )
    if not path.endswith("." + format):
        raise ValueError(
            f"For '{func}', the checkpoint file name must end with '.{format}' to match the argument 'format', "
            f"but got {os.fspath(ckpt_file_name)!r} with format {format!r}."
        )
    if net is not None and not _is_cell(net):
        raise TypeError(
            f"For '{func}', the argument 'net' must be None or a Cell, but got {net!r} ({type_name(net)})."
        )
    _check_load_options(
        strict_load, dec_key, dec_mode, choice_func, crc_check, remove_redundancy
    )
    keep = _selector(
        _check_prefix(filter_prefix, "filter_prefix"),
        _check_prefix(specify_prefix, "specify_prefix"),
        choice_func,
    )
    if not os.path.isfile(path):
        raise ValueError(
            f"For '{func}', the checkpoint file {path!r} does not exist; check the argument 'ckpt_file_name'."
        )
    read = _read_ckpt if format == "ckpt" else _safetensors_format.read
    entries, checked = read(path)
    if crc_check and not checked:
        _LOG.warning(
            "For 'load_checkpoint', the file %r carries no CRC (it was saved without crc_check=True), "
            "so its integrity cannot be checked.",
            path,
        )
    params: dict[str, Parameter | str] = {
        name: value if isinstance(value, str) else Parameter(value, name=name)
        for name, value in entries
        if keep(name)
    }
    if not params:
        raise ValueError(
            f"For '{func}', no entry of {path!r} was loaded: the file is empty or every name was removed by "
            "'filter_prefix', 'specify_prefix' or 'choice_func'."
        )
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def _check_load_options(
    strict_load: object,
    dec_key: object,
    dec_mode: object,
    choice_func: object,
    crc_check: object,
    remove_redundancy: object,
) -> None:
    func = "load_checkpoint"
    _check_bool(func, "strict_load", strict_load)
    _check_bool(func, "crc_check", crc_check)
    _check_bool(func, "remove_redundancy", remove_redundancy)
    _check_callable(func, "choice_func", choice_func)
    _check_key_and_mode(func, ("dec_key", dec_key), ("dec_mode", dec_mode))
    if dec_key is not None:
        raise NotImplementedError(
            f"For '{func}', encrypted checkpoints ('dec_key') are not supported by cadence."
        )


def _check_prefix(prefix: object, arg: str) -> tuple[str, ...]:
    if prefix is None:
        return ()
    func = "load_checkpoint"
    if not isinstance(prefix, str | list | tuple):
        raise TypeError(
            f"For '{func}', the argument '{arg}' must be str, list[str] or tuple[str], but got {prefix!r} ({type_name(prefix)})."
        )
    prefixes: tuple[object, ...] = (
        (prefix,) if isinstance(prefix, str) else tuple(prefix)
    )
    if not prefixes:
        raise ValueError(
            f"For '{func}', the argument '{arg}' must not be an empty {type_name(prefix)}."
        )
    for index, item in enumerate(prefixes):
        if not isinstance(item, str) or not item:
            raise (TypeError if not isinstance(item, str) else ValueError)(
                f"For '{func}', every element of the argument '{arg}' must be a non-empty str, "
                f"but element {index} is {item!r}."
            )
    _LOG.warning(
        "For 'load_checkpoint', the argument %r is deprecated; use 'choice_func' instead.",
        arg,
    )
    return prefixes  # type: ignore[return-value]  # every element was checked to be a str


def _selector(
    filter_prefix: tuple[str, ...],
    specify_prefix: tuple[str, ...],
    choice_func: Callable[[str], bool] | None,
) -> Callable[[str], bool]:
    if (
        filter_prefix or specify_prefix
    ):  # as in MindSpore, prefixes override choice_func
        return lambda name: (
            (not specify_prefix or name.startswith(specify_prefix))
            and not (filter_prefix and name.startswith(filter_prefix))
        )
    if choice_func is not None:
        return lambda name: bool(choice_func(name))
    return lambda name: True


def _read_ckpt(path: str) -> tuple[list[tuple[str, Any]], bool]:
    """Return the file's entries, and whether a CRC was checked."""
    with open(path, "rb") as file:
        data = file.read()
    try:
        entries = _ckpt_format.decode(data)
    except _ckpt_format.ChecksumError as error:
        raise _ckpt_format.ChecksumError(
            f"Failed to read the checkpoint file {path!r}: {error}."
        ) from None
    except ValueError as error:
        raise ValueError(
            f"Failed to read the checkpoint file {path!r}: the file may be corrupted or truncated ({error})."
        ) from error
    return entries, _ckpt_format.split_crc_trailer(data)[1] is not None


# --- load into a network -------------------------------------------------------------


def load_param_into_net(
    net: Any,
    parameter_dict: Mapping[str, Parameter | str],
    strict_load: bool = False,
    remove_redundancy: bool = False,
) -> tuple[list[str], list[str]]:
    """Copy values from `parameter_dict` into the parameters of `net`, by name.

    Without `strict_load`, names in the dict that carry an extra prefix (such
    as `network.1.weight` for `1.weight`) are recognised and loaded, and a
    float value loads into a parameter of another float dtype (int into int)
    with a conversion and a warning.

    Args:
        net: An `nn.Cell` (anything with `parameters_and_names()`).
        parameter_dict: `{name: Parameter | str}`, e.g. from `load_checkpoint`.
        strict_load: Require exact names and dtypes.
        remove_redundancy: Accepted for compatibility (no model parallelism here).

    Returns:
        `(param_not_load, ckpt_not_load)`: the net's parameter names that got no
        value, and the dict's keys not consumed by an exact name match (keys
        consumed through prefix recovery are still listed, as in MindSpore).

    Raises:
        TypeError: A wrong argument type.
        RuntimeError: A value's shape, or its dtype under the rules above, does not
            match its parameter.
    """
    func = "load_param_into_net"
    if not _is_cell(net):
        raise TypeError(
            f"For '{func}', the argument 'net' must be a Cell, but got {net!r} ({type_name(net)})."
        )
    _check_parameter_dict(parameter_dict)
    _check_bool(func, "strict_load", strict_load)
    _check_bool(func, "remove_redundancy", remove_redundancy)
    net_params = [
        (param.name or name, param) for name, param in net.parameters_and_names()
    ]
    param_not_load: list[str] = []
    ckpt_not_load = list(parameter_dict)
    for name, param in net_params:
        value = parameter_dict.get(name)
        if isinstance(value, Parameter):
            _update_param(name, param, value, strict_load)
            ckpt_not_load.remove(name)
        elif not name.startswith("accu_grads"):
            param_not_load.append(name)
    if param_not_load and not strict_load:
        _load_prefixed(net_params, parameter_dict, param_not_load)
    if param_not_load:
        _LOG.warning(
            "For 'load_param_into_net', %d parameters of the argument 'net' are not loaded because "
            "'parameter_dict' has no value for them: %s",
            len(param_not_load),
            param_not_load,
        )
    return param_not_load, ckpt_not_load


def _check_parameter_dict(parameter_dict: object) -> None:
    func = "load_param_into_net"
    if not isinstance(parameter_dict, Mapping):
        raise TypeError(
            f"For '{func}', the argument 'parameter_dict' must be dict, but got {type_name(parameter_dict)}."
        )
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, Parameter | str):
            raise TypeError(
                f"For '{func}', the argument 'parameter_dict' must map str names to Parameter or str "
                f"values, but got key {key!r} with a value of type {type_name(value)!r}."
            )


def _load_prefixed(
    net_params: list[tuple[str, Any]],
    parameter_dict: Mapping[str, Parameter | str],
    param_not_load: list[str],
) -> None:
    """Non-strict recovery: find `<prefix><net name>` keys, strip the prefix, load those (in place)."""
    while param_not_load:
        prefix = _find_prefix(parameter_dict, param_not_load)
        if prefix is None:
            return
        _LOG.warning(
            "For 'load_param_into_net', removing the parameter name prefix %r and loading again.",
            prefix,
        )
        for name, param in net_params:
            value = parameter_dict.get(prefix + name)
            if name in param_not_load and isinstance(value, Parameter):
                _update_param(name, param, value, strict_load=False)
                param_not_load.remove(name)


def _find_prefix(
    parameter_dict: Mapping[str, Parameter | str], param_not_load: list[str]
) -> str | None:
    for name in param_not_load:
        for key, value in parameter_dict.items():
            if key != name and key.endswith(name) and isinstance(value, Parameter):
                return key[: -len(name)]
    return None


_FLOAT_KIND, _SIGNED_INT_KIND = "f", "i"


def _update_param(name: str, param: Any, new: Parameter, strict_load: bool) -> None:
    current = _as_array(param)
    value = new.asnumpy()
    if value.shape != current.shape:
        extra = value.shape[current.ndim :]
        if value.shape[: current.ndim] != current.shape or any(
            dim != 1 for dim in extra
        ):
            raise RuntimeError(
                f"For 'load_param_into_net', the shape of {name!r} in the argument 'parameter_dict' must "
                f"equal its shape in the argument 'net' {current.shape}, but got {value.shape}; check that the "
                "checkpoint belongs to this network."
            )
        value = value.reshape(
            current.shape
        )  # trailing singleton dims, e.g. (12, 2048, 1, 1) -> (12, 2048)
    if value.dtype != current.dtype:
        kinds = {value.dtype.kind, current.dtype.kind}
        convertible = kinds in ({_FLOAT_KIND}, {_SIGNED_INT_KIND})
        net_type, dict_type = _type_label(current.dtype), _type_label(value.dtype)
        if strict_load or not convertible:
            raise RuntimeError(
                f"For 'load_param_into_net', the dtype of {name!r} in the argument 'parameter_dict' must "
                f"equal its dtype in the argument 'net' ({net_type}), but got {dict_type}"
                + (
                    "; strict_load=True allows no conversion."
                    if convertible
                    else "; only float<->float and int<->int convert."
                )
            )
        _LOG.warning(
            "For 'load_param_into_net', %r is %s in 'parameter_dict' and %s in 'net'; converting to %s.",
            name,
            dict_type,
            net_type,
            net_type,
        )
        value = value.astype(current.dtype)
    param.set_data(Tensor(np.array(value, copy=True)))


def _type_label(dtype: np.dtype[Any]) -> str:
    try:
        return _ckpt_format.tensor_type_name(dtype)
    except TypeError:
        return str(dtype)
