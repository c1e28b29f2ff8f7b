"""Messages of patterns and dates that cannot be matched: a timeout says so, a non-date is named once."""

from __future__ import annotations

from tests.unit.agent.builders import check, run, scope

from toolproof.check.arguments import match
from toolproof.model.scenario import DateMatcher, RegexCheck


def test_a_pattern_that_runs_out_of_time_says_so() -> None:
    slow = check(RegexCheck(pattern="^(a|a)*$", flavor="js"), run(reply="a" * 40 + "b")).failure
    assert slow is not None
    assert slow.message == "Regex timed out: ^(a|a)*$ (matching took longer than 1s)"
    bad = check(RegexCheck(pattern="(?P<id>x)", flavor="js"), run(reply="x")).failure
    assert bad is not None and bad.message.startswith("Invalid regex: (?P<id>x)")


def test_a_value_that_is_not_a_date_is_named_once() -> None:
    miss = match(DateMatcher(expression="TODAY"), "next tuesday", scope())
    assert miss is not None
    assert miss.reason == "is not a date or date-time"
