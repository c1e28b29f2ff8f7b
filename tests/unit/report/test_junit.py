"""The JUnit report parses with ElementTree and carries the right counts, names and details."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.unit.report.synthetic import SECRET, feed, hostile, sample

from toolproof.model.events import RunFinished
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.report.junit import JUnitReport


def _render(results: list[CaseResult], secrets: tuple[str, ...] = ()) -> str:
    return JUnitReport("unused.xml", secrets).render(RunFinished(results=results, duration_s=3.21))


def test_written_file_parses_with_counts_per_file_and_in_all(tmp_path: Path) -> None:
    path = tmp_path / "reports" / "junit.xml"
    feed(JUnitReport(path), sample())
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert root.attrib == {
        "name": "toolproof",
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
        "time": "3.210",
    }
    suites = root.findall("testsuite")
    assert [suite.attrib for suite in suites] == [
        {
            "name": "suites/time.yaml",
            "tests": "2",
            "failures": "1",
            "errors": "0",
            "skipped": "0",
            "time": "1.246",
        },
        {
            "name": "suites/auth.yaml",
            "tests": "2",
            "failures": "0",
            "errors": "1",
            "skipped": "1",
            "time": "0.500",
        },
    ]


def test_testcases() -> None:
    root = ET.fromstring(_render(sample()))
    passed, failed, skipped, errored = root.iter("testcase")
    assert passed.attrib == {
        "classname": "suites/time",
        "name": "get time",
        "file": "suites/time.yaml",
        "line": "3",
        "time": "0.012",
    }
    assert list(passed) == []

    failure = failed.find("failure")
    assert failure is not None
    assert failure.attrib == {
        "message": 'expectation failed (contains): result text does not contain "Paris"',
        "type": "expectation",
    }
    assert failure.text == (
        'expectation failed (contains): result text does not contain "Paris"\n'
        "expected: Paris\n"
        'actual: {"timezone": "UTC"}\n'
        "at suites/time.yaml:9"
    )
    system_err = failed.find("system-err")
    assert system_err is not None and system_err.text == "starting\nwarning: slow\n"

    skip = skipped.find("skipped")
    assert skip is not None and skip.attrib == {"message": "env var TOKEN not set"}
    assert skipped.attrib["classname"] == "suites/auth"

    error = errored.find("error")
    assert error is not None
    assert error.attrib == {"message": "JSON-RPC error -32602: Invalid params", "type": "rpc_error"}
    assert (
        error.text
        == 'JSON-RPC error -32602: Invalid params\ndetails: {"code": -32602}\nat suites/auth.yaml:12'
    )
    assert errored.find("failure") is None


def test_trials_make_every_name_unique() -> None:
    result = CaseResult(name="flaky", file=Path("a/b.yml"), status=Status.PASS)
    results = [result, result.model_copy(update={"trial": 2, "status": Status.FAIL})]
    names = [case.attrib["name"] for case in ET.fromstring(_render(results)).iter("testcase")]
    assert names == ["flaky [trial 1]", "flaky [trial 2]"]
    assert _render([result]).count('name="flaky"') == 1


def test_classname_of_absolute_and_dotted_paths() -> None:
    results = [
        CaseResult(name="n", file=Path("/abs/suite.v2.yaml"), status=Status.PASS),
        CaseResult(name="n", file=Path("./here.yaml"), status=Status.PASS),
    ]
    classnames = [case.attrib["classname"] for case in ET.fromstring(_render(results)).iter("testcase")]
    assert classnames == ["abs/suite.v2", "here"]


def test_every_testcase_has_its_own_classname_and_name() -> None:
    """Same-named cases in one file are numbered; `a/b.yaml` and `a.b.yaml` are different classes."""
    results = [
        CaseResult(name=name, file=Path(file), line=line, status=Status.PASS)
        for file in ("dup/a/b.yaml", "dup/a.b.yaml")
        for name, line in (("same", 1), ("same", 4), ("same [2]", 7))
    ]
    assert _ids(results) == [
        ("dup/a/b", "same"), ("dup/a/b", "same [3]"), ("dup/a/b", "same [2]"),
        ("dup/a.b", "same"), ("dup/a.b", "same [3]"), ("dup/a.b", "same [2]"),
    ]


def test_files_of_one_class_still_get_unique_names() -> None:
    results = [CaseResult(name="n", file=Path(f"s.{ext}"), status=Status.PASS) for ext in ("yaml", "yml")]
    assert _ids(results) == [("s", "n"), ("s", "n [2]")]


def _ids(results: list[CaseResult]) -> list[tuple[str, str]]:
    """(classname, name) of every testcase."""
    cases = ET.fromstring(_render(results)).iter("testcase")
    return [(case.attrib["classname"], case.attrib["name"]) for case in cases]


def test_a_huge_value_is_cut_with_a_note_of_its_size() -> None:
    failure = Failure(kind=FailureKind.EXPECTATION, message="m", actual="y" * (3 << 20))
    result = CaseResult(name="n", file=Path("f.yaml"), status=Status.FAIL, failure=failure)
    text = ET.fromstring(_render([result])).findtext("testsuite/testcase/failure") or ""
    assert f"actual: {'y' * (64 << 10)}... ({(3 << 20) - (64 << 10)} more characters)\n" in text
    assert len(text) < 70_000


def test_failure_without_detail_still_has_a_message() -> None:
    result = CaseResult(name="n", file=Path("f.yaml"), status=Status.FAIL)
    failure = ET.fromstring(_render([result])).find("testsuite/testcase/failure")
    assert failure is not None and failure.attrib == {"message": "fail"}
    assert failure.text == "at f.yaml:1"


def test_markup_and_xml_illegal_characters() -> None:
    result = CaseResult(
        name='<b>&"quoted"</b>',
        file=Path("f.yaml"),
        status=Status.FAIL,
        failure=Failure(kind=FailureKind.TOOL_ERROR, message="]]> \ufffe\uffff\x00 <![CDATA[ end"),
        stderr="bad \x0c form feed, \U0001f600 ok",
    )
    text = _render([result])
    case = ET.fromstring(text).find("testsuite/testcase")
    assert case is not None
    assert case.attrib["name"] == '<b>&"quoted"</b>'
    failure = case.find("failure")
    assert failure is not None and failure.attrib["message"] == "tool error: ]]>  <![CDATA[ end"
    system_err = case.find("system-err")
    assert system_err is not None and system_err.text == "bad  form feed, \U0001f600 ok"


def test_hostile_text_is_stripped_and_secrets_masked() -> None:
    text = _render([hostile(result) for result in sample()], (SECRET,))
    assert SECRET not in text
    assert "***" in text
    assert "\x1b" not in text and "\x07" not in text
    assert "&#27;" not in text and "&#7;" not in text
    ET.fromstring(text)


def test_an_unwritable_path_warns_and_does_not_raise(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    stderr = io.StringIO()
    feed(JUnitReport(tmp_path / "file" / "junit.xml", stderr=stderr), sample())
    assert stderr.getvalue().startswith("toolproof: could not write ")
    assert stderr.getvalue().count("\n") == 1
