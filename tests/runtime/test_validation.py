"""`cadence.validation`: what a timeout or interval argument, and `async_save`, must be."""

import re

import pytest

from cadence.validation import check_async_save, check_positive_number


@pytest.mark.parametrize("value", [1, 0.5, 1e-9, 10**6])
def test_a_positive_int_or_float_comes_back_as_a_float(value):
    result = check_positive_number(value, "timeout_s", "Owner")
    assert result == value
    assert type(result) is float


@pytest.mark.parametrize("value", [0, -1, 0.0, -0.5, float("nan"), True, "1", None])
def test_anything_else_is_a_value_error_naming_owner_argument_and_value(value):
    expected = f"For 'Owner', the argument 'timeout_s' must be a number > 0, but got {value!r}."
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        check_positive_number(value, "timeout_s", "Owner")


@pytest.mark.parametrize("value", [True, False, "thread", "process"])
def test_async_save_is_a_bool_or_a_writer(value):
    assert check_async_save(value, "Owner") is value


@pytest.mark.parametrize(
    ("value", "error", "received"),
    [
        (1, TypeError, "be of type 'bool' or 'str', but got 1 of type 'int'"),
        (
            None,
            TypeError,
            "be of type 'bool' or 'str', but got None of type 'NoneType'",
        ),
        (
            "threads",
            ValueError,
            "be one of False, True, 'thread', 'process', but got 'threads'",
        ),
        ("", ValueError, "be one of False, True, 'thread', 'process', but got ''"),
    ],
)
def test_any_other_async_save_names_owner_expected_and_received(value, error, received):
    expected = f"For 'Owner', the argument 'async_save' must {received}."
    with pytest.raises(error, match=f"^{re.escape(expected)}$"):
        check_async_save(value, "Owner")
