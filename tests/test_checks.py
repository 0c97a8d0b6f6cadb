import math

import pytest

from tcplab.checks import check_choice, check_int, check_range


def test_inside_the_range_returns_the_value() -> None:
    assert check_range("beta", 0.5, 0, 1, low_open=True, high_open=True) == 0.5
    assert check_int("flows", 3) == 3
    assert check_choice("policy", "all", ["all", "one"]) == "all"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.0, "beta=1.0 is outside the allowed range (0, 1)"),
        (0, "beta=0 is outside the allowed range (0, 1)"),
        (math.nan, "beta=nan is outside the allowed range (0, 1)"),
        ("x", "beta='x' is not a number"),
    ],
)
def test_the_message_names_parameter_value_and_range(value: object, message: str) -> None:
    with pytest.raises(ValueError) as error:
        check_range("beta", value, 0, 1, low_open=True, high_open=True)
    assert str(error.value) == message


def test_whole_numbers_and_choices() -> None:
    with pytest.raises(ValueError, match=r"flows=2.5 must be a whole number in \[1, inf\)"):
        check_int("flows", 2.5)
    with pytest.raises(ValueError, match=r"flows=0 is outside the allowed range \[1, inf\)"):
        check_int("flows", 0)
    with pytest.raises(ValueError, match="policy='x' is not one of: a, b"):
        check_choice("policy", "x", ["a", "b"])
