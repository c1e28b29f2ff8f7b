"""The scenario schema's check mappings take their keys from the loader's readers, read off the readers
themselves: the schema lists what the reader accepts, and a key a reader gains without a type in the schema
stops the build instead of going unchecked."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.load import scenario_checks
from toolproof.load.scenario_checks import CheckReader
from toolproof.load.yaml_source import KeyPath
from toolproof.schemas import build
from toolproof.schemas.accepted import Accepted, accepted

MAPPED = ("tool_call_count", "node", "tool_input", "reply", "latency", "tokens", "guardrail", "field")


def read_off(kind: str) -> Accepted:
    method = scenario_checks._CHECKS[kind]
    return accepted(lambda reader: method(CheckReader(reader), {}, ()))


@pytest.mark.parametrize("kind", MAPPED)
def test_each_check_mapping_lists_what_its_reader_accepts(kind: str) -> None:
    shown = build("scenario")["$defs"]["Check"]["properties"][kind]
    found = read_off(kind)
    assert sorted(shown["properties"]) == list(found.keys)
    assert shown.get("required", []) == list(found.required)


def test_the_reader_of_a_call_is_read_as_it_is() -> None:
    assert read_off("called") == Accepted(
        ("args", "error", "forbidden_args", "forbidden_values", "index", "strict", "tool"), ("tool",)
    )


def test_a_key_a_reader_gains_without_a_type_stops_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def latency(self: CheckReader, value: Any, path: KeyPath) -> None:
        self.r.keys(value, path, ("max_ms", "p95_ms"), required=("max_ms",))

    monkeypatch.setitem(scenario_checks._CHECKS, "latency", latency)
    with pytest.raises(ValueError, match=r"untyped \['p95_ms'\]"):
        build("scenario")


def test_a_reader_that_checks_no_keys_is_said_so() -> None:
    with pytest.raises(ValueError, match="expected one check of keys, the reader made 0"):
        read_off("tools_called")
