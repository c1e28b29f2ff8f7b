"""Properties of the `contains`, `regex`, `date` and `one_of` argument matchers, over generated values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import ZONE, scope

from toolproof.check.arguments import as_text, match
from toolproof.model.scenario import (
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    Matcher,
    OneOfMatcher,
    RegexFlavor,
    RegexMatcher,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(-1e6, 1e6) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("xyz", max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)
SPECIAL = set("\\^$.|?*+()[]{}/-")
INSTANTS = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.replace(microsecond=0))


def _escaped(literal: str) -> str:
    """`literal` as a pattern that matches exactly it (in every flavor)."""
    return "".join("\\" + char if char in SPECIAL else char for char in literal)


def _passes(matcher: Matcher, actual: Any) -> bool:
    return match(matcher, actual, scope()) is None


# --- contains -------------------------------------------------------------------------------------------


@given(JSON, st.data())
def test_contains_matches_every_part_of_the_value_as_text(value: Any, data: st.DataObject) -> None:
    text = as_text(value)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _passes(ContainsMatcher(value=text[start:end]), value)


@given(st.text(max_size=8), st.text(max_size=8))
def test_contains_is_a_case_sensitive_substring_test(wanted: str, text: str) -> None:
    assert _passes(ContainsMatcher(value=wanted), text) is (wanted in text)


@given(st.integers(), st.lists(st.integers(), max_size=3))
def test_contains_casts_non_strings_to_compact_json(number: int, others: list[int]) -> None:
    assert _passes(ContainsMatcher(value=number), [*others, number])
    assert _passes(ContainsMatcher(value=[number]), {"ids": [number]})


# --- regex ----------------------------------------------------------------------------------------------


@given(st.text(max_size=8), st.text(max_size=12), st.sampled_from(["js", "re2", "python"]))
def test_a_literal_pattern_is_an_unanchored_substring_search(
    literal: str, text: str, flavor: RegexFlavor
) -> None:
    assert _passes(RegexMatcher(pattern=_escaped(literal), flavor=flavor), text) is (literal in text)


@given(st.text(alphabet="abcXYZ", min_size=1, max_size=6), st.sampled_from(["js", "re2", "python"]))
def test_regex_is_case_sensitive_unless_asked(literal: str, flavor: RegexFlavor) -> None:
    swapped = literal.swapcase()
    assert _passes(RegexMatcher(pattern=literal, flavor=flavor, ignore_case=True), swapped)
    assert not _passes(RegexMatcher(pattern=literal, flavor=flavor), swapped)


@given(JSON)
def test_regex_reads_the_value_as_text(value: Any) -> None:
    assert _passes(RegexMatcher(pattern=_escaped(as_text(value))), value)


# --- date -----------------------------------------------------------------------------------------------


@given(INSTANTS, st.integers(0, 600), st.integers(-1200, 1200))
def test_date_passes_exactly_within_the_tolerance(moment: datetime, tolerance: int, offset: int) -> None:
    matcher = DateMatcher(value=moment.isoformat(), tolerance_minutes=tolerance)
    actual = (moment + timedelta(minutes=offset)).astimezone(ZONE).isoformat()
    assert _passes(matcher, actual) is (abs(offset) <= tolerance)


@given(INSTANTS)
def test_date_reads_iso_text_and_epoch_seconds_and_milliseconds_alike(moment: datetime) -> None:
    matcher = DateMatcher(value=moment.isoformat())
    seconds = int(moment.timestamp())
    for actual in (moment.isoformat().replace("+00:00", "Z"), seconds, seconds * 1000):
        assert _passes(matcher, actual), actual


@given(INSTANTS, st.integers(0, 24 * 60 - 1))
def test_a_date_only_expectation_is_its_whole_day(moment: datetime, minute: int) -> None:
    day = moment.astimezone(ZONE).date()
    start = datetime.combine(day, datetime.min.time(), ZONE)
    matcher = DateMatcher(value=day.isoformat())
    assert _passes(matcher, (start + timedelta(minutes=minute)).isoformat())
    assert not _passes(
        matcher, datetime.combine(day + timedelta(days=1), datetime.min.time(), ZONE).isoformat()
    )


@given(st.text(alphabet="abcxyz :-", max_size=10))
def test_text_that_is_no_date_never_passes(text: str) -> None:
    assert not _passes(DateMatcher(value="2026-03-10"), text)


# --- one_of ---------------------------------------------------------------------------------------------

VARIANTS: st.SearchStrategy[Matcher] = st.one_of(
    JSON.map(lambda value: ExactMatcher(value=value)),
    st.text(max_size=3).map(lambda value: ContainsMatcher(value=value)),
    st.text(max_size=3).map(lambda literal: RegexMatcher(pattern=_escaped(literal))),
)


@given(st.lists(VARIANTS, min_size=1, max_size=4), JSON)
def test_one_of_passes_when_any_variant_passes(variants: list[Matcher], value: Any) -> None:
    assert _passes(OneOfMatcher(variants=tuple(variants)), value) is any(
        _passes(each, value) for each in variants
    )


@given(st.lists(VARIANTS, min_size=1, max_size=4), JSON, st.randoms())
def test_one_of_ignores_the_order_of_its_variants(variants: list[Matcher], value: Any, random: Any) -> None:
    shuffled = random.sample(variants, len(variants))
    assert _passes(OneOfMatcher(variants=tuple(variants)), value) is _passes(
        OneOfMatcher(variants=tuple(shuffled)), value
    )


@given(JSON)
def test_one_of_with_the_value_itself_always_passes(value: Any) -> None:
    assert _passes(OneOfMatcher(variants=(RegexMatcher(pattern="(?!)"), ExactMatcher(value=value))), value)
