"""Argument types of the command line: each rejects a bad value with a message saying what was expected."""

from __future__ import annotations

import argparse

__all__ = ["fraction", "port", "positive_float", "positive_int", "whole_number"]


def whole_number(text: str) -> int:
    """Parse an int (any sign)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number, got {text!r}"
        ) from None


def positive_int(text: str) -> int:
    """Parse an int > 0."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive whole number, got {text!r}"
        )
    return value


def positive_float(text: str) -> float:
    """Parse a finite float > 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def fraction(text: str) -> float:
    """Parse a float in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a fraction from 0 up to (not including) 1, got {text!r}"
        )
    return value


def port(text: str) -> int:
    """Parse a TCP port number, 0 to 65535 (0: any free port)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 0 to 65535, got {text!r}"
        )
    return int(text)
