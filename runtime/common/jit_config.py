"""MindSpore's `mindspore.common.jit_config` path: `JitConfig`, the options of graph compilation.

cadence compiles no graphs (its kernels are compiled already and cells run eagerly),
so a `JitConfig` is recorded where MindSpore takes one (`Cell.set_jit_config`,
`jit(jit_config=...)`) and changes nothing.
"""

from __future__ import annotations

from typing import Any

from ..validation import check_type

__all__ = ["JitConfig"]


class JitConfig:
    """Graph-compilation options (`jit_level`, `exc_mode`, ...), kept as `jit_config_dict`.

    Args:
        jit_level: '' (the default), 'O0', 'O1' or 'O2'.
        exc_mode: 'auto', 'sink' or 'no_sink'.
        jit_syntax_level: '', 'STRICT', 'COMPATIBLE' or 'LAX'.
        debug_level: 'RELEASE' or 'DEBUG'.
        infer_boost: 'on' or 'off'.
        **kwargs: Further backend options, kept as given.
    """

    def __init__(
        self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
        debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs: Any,
    ) -> None:  # fmt: skip
        given = {
            "jit_level": jit_level,
            "exc_mode": exc_mode,
            "jit_syntax_level": jit_syntax_level,
            "debug_level": debug_level,
            "infer_boost": infer_boost,
        }
        for name, value in given.items():
            check_type(value, name, str, "JitConfig")
        self.jit_config_dict: dict[str, Any] = {**given, **kwargs}

    def __repr__(self) -> str:
        return f"JitConfig({self.jit_config_dict})"
