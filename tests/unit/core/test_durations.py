from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.core.durations import parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30.0),
        ("1m30s", 90.0),
        ("500ms", 0.5),
        ("2h", 7200.0),
        ("1.5h", 5400.0),
        ("1h2m3s4ms", 3723.004),
        ("250us", 0.00025),
        ("250µs", 0.00025),
        ("100ns", 1e-7),
        (".5s", 0.5),
        ("5.s", 5.0),
        ("+2s", 2.0),
        ("-2s", -2.0),
        ("0", 0.0),
        ("45", 45.0),
        ("2.5", 2.5),
        (" 10s ", 10.0),
    ],
)
def test_go_durations_and_bare_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds, rel=1e-12)


@pytest.mark.parametrize(
    "text", ["", "s", "30 s", "1d", "1m30", "abc", "1.2.3s", "nan", "inf", "30S", "--1s"]
)
def test_invalid_durations_raise(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


def test_out_of_range_duration_raises() -> None:
    with pytest.raises(ValueError, match="out of range"):
        parse_duration("2562048h")
    assert parse_duration("2562047h") == 2562047 * 3600.0


@given(
    hours=st.integers(0, 1000), minutes=st.integers(0, 59), seconds=st.integers(0, 59),
    millis=st.integers(0, 999),
)
def test_compound_durations_add_up(hours: int, minutes: int, seconds: int, millis: int) -> None:
    text = f"{hours}h{minutes}m{seconds}s{millis}ms"
    expected = (hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + millis) / 1000
    assert parse_duration(text) == expected
