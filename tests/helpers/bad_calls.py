"""One parametrized test over a table of calls that must fail with a clear message."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

# name: (the call, the exception it raises, words its message must contain)
BadCalls = dict[str, tuple[Callable[[], Any], type[Exception], str]]


def bad_calls_test(cases: BadCalls) -> Callable[[str], None]:
    """A test, parametrized by case name, that each call raises its exception with its words."""

    @pytest.mark.parametrize("case", sorted(cases))
    def test_bad_arguments_get_clear_errors(case: str) -> None:
        call, error, words = cases[case]
        with pytest.raises(error, match=re.escape(words)):
            call()

    return test_bad_arguments_get_clear_errors
