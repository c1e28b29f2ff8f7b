from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.load import SelectionError, select
from toolproof.model.envelope import SourceRef
from toolproof.model.server_case import AssertBlock, Case


def _case(file: str, name: str) -> Case:
    return Case(name=name, source=SourceRef(file=Path(file)), block=AssertBlock(tool="t"))


CASES = [
    _case("suite/files.yaml", "read_file returns contents"),
    _case("suite/files.yaml", "read missing file"),
    _case("suite/time.yaml", "Convert Time"),
    _case("suite/and.yaml", "write and or"),
]


def _names(pattern: str | None) -> list[str]:
    return [case.name for case in select(CASES, pattern)]


@pytest.mark.parametrize(
    ("pattern", "names"),
    [
        (None, ["read_file returns contents", "read missing file", "Convert Time", "write and or"]),
        ("  ", ["read_file returns contents", "read missing file", "Convert Time", "write and or"]),
        ("read", ["read_file returns contents", "read missing file"]),
        ("READ", ["read_file returns contents", "read missing file"]),
        ("convert", ["Convert Time"]),
        ("time.yaml", ["Convert Time"]),
        ("files.yaml::read_file", ["read_file returns contents"]),
        ("not read", ["Convert Time", "write and or"]),
        ("read and not missing", ["read_file returns contents"]),
        ("missing or time", ["read missing file", "Convert Time"]),
        ("read and missing or convert", ["read missing file", "Convert Time"]),
        ("read and (missing or contents)", ["read_file returns contents", "read missing file"]),
        ("not not convert", ["Convert Time"]),
        ("'missing file'", ["read missing file"]),
        ('"and or"', ["write and or"]),
        ("NOT read AND NOT time", ["write and or"]),
        ("nothing", []),
    ],
)
def test_select(pattern: str | None, names: list[str]) -> None:
    assert _names(pattern) == names


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("read and", "-k 'read and': expected a word, 'not' or '(', found end of pattern"),
        ("(read", "-k '(read': expected ')', found end of pattern"),
        ("read missing", "-k 'read missing': expected 'and', 'or' or the end, found 'missing'"),
        ("or read", "-k 'or read': expected a word, 'not' or '(', found 'or'"),
        ("read)", "-k 'read)': expected 'and', 'or' or the end, found ')'"),
        ("'open", "-k \"'open\": unterminated quote at column 1"),
    ],
)
def test_bad_patterns(pattern: str, message: str) -> None:
    with pytest.raises(SelectionError) as raised:
        select(CASES, pattern)
    assert str(raised.value) == message
