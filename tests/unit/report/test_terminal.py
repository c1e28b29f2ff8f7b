"""The terminal report: exact plain text, file order, colour rules, progress, hostile text, secrets."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from tests.unit.report.synthetic import SECRET, TTY, feed, hostile, sample

from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted
from toolproof.model.result import CaseResult, Failure, FailureKind, Status, Step
from toolproof.report.terminal import TerminalReport, Verbosity, use_colour

PLAIN = """\
PASS  get time  12ms
FAIL  convert time  1.2s
      expectation failed (contains): result text does not contain "Paris"
      expected: Paris
      actual: {"timezone": "UTC"}
      at suites/time.yaml:9
      server stderr:
        starting
        warning: slow
SKIP  needs token  (env var TOKEN not set)
ERROR crashes  500ms
      JSON-RPC error -32602: Invalid params
      at suites/auth.yaml:12

failures:
  FAIL  suites/time.yaml::convert time
  ERROR suites/auth.yaml::crashes

1 passed, 1 failed, 1 skipped, 1 error in 3.2s
"""

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def run(
    results: list[CaseResult],
    *,
    env: dict[str, str] | None = None,
    verbosity: Verbosity = Verbosity.NORMAL,
    stdout: io.StringIO | None = None,
    stderr: io.StringIO | None = None,
    order: list[int] | None = None,
    secrets: tuple[str, ...] = (),
) -> tuple[str, str]:
    out = stdout if stdout is not None else io.StringIO()
    err = stderr if stderr is not None else io.StringIO()
    report = TerminalReport(stdout=out, stderr=err, verbosity=verbosity, env=env or {}, secrets=secrets)
    feed(report, results, order)
    return out.getvalue(), err.getvalue()


def result(name: str, status: Status = Status.PASS, **fields: object) -> CaseResult:
    return CaseResult.model_validate({"name": name, "file": Path("s.yaml"), "status": status, **fields})


@pytest.mark.parametrize("order", [[3, 2, 1, 0], [0, 1, 2, 3], [2, 0, 3, 1]])
def test_plain_output_is_in_file_order_whatever_the_finishing_order(order: list[int]) -> None:
    assert run(sample(), order=order) == (PLAIN, "")


def test_each_line_is_printed_as_soon_as_its_predecessors_are_done() -> None:
    a, b, c, _ = sample()
    out = io.StringIO()
    report = TerminalReport(stdout=out, stderr=io.StringIO(), env={})
    report.handle(RunStarted(total=3))
    report.handle(CaseFinished(result=b, index=1, total=3))
    assert out.getvalue() == ""
    report.handle(CaseFinished(result=a, index=0, total=3))
    assert out.getvalue().startswith("PASS  get time  12ms\nFAIL  convert time  1.2s\n")
    assert "needs token" not in out.getvalue()
    report.handle(CaseFinished(result=c, index=2, total=3))
    assert out.getvalue().endswith("SKIP  needs token  (env var TOKEN not set)\n")


def test_results_behind_a_missing_index_are_printed_at_the_end() -> None:
    a, _, c, _ = sample()
    out = io.StringIO()
    report = TerminalReport(stdout=out, stderr=io.StringIO(), env={})
    report.handle(RunStarted(total=3))
    report.handle(CaseFinished(result=c, index=2, total=3))
    report.handle(RunFinished(results=[a, c], duration_s=0.5))
    assert out.getvalue() == (
        "SKIP  needs token  (env var TOKEN not set)\n\n1 passed, 0 failed, 1 skipped in 500ms\n"
    )


def test_quiet_shows_failures_and_the_summary_only() -> None:
    out, _ = run(sample(), verbosity=Verbosity.QUIET)
    assert out == "".join(line + "\n" for line in PLAIN.splitlines() if not line.startswith(("PASS", "SKIP")))


def test_quiet_run_that_passes_prints_one_line() -> None:
    out, _ = run([result("a", duration_s=0.25)], verbosity=Verbosity.QUIET)
    assert out == "1 passed, 0 failed in 3.2s\n"


def test_verbose_shows_phases_and_full_values() -> None:
    long_actual = "\n".join(f"line {n}" for n in range(30))
    results = [
        result("a", phases={"start": 0.12, "call": 0.03}),
        result(
            "b",
            Status.FAIL,
            failure=Failure(
                kind=FailureKind.TOOL_ERROR, message="boom", actual=long_actual, details={"x": 1}
            ),
        ),
    ]
    normal, _ = run(results)
    verbose, _ = run(results, verbosity=Verbosity.VERBOSE)
    assert "phases" not in normal
    assert "      phases: start 120ms, call 30ms\n" in verbose
    assert "line 29" in verbose and 'details: {"x": 1}' in verbose
    assert "line 9\n" in normal and "line 10" not in normal
    assert "... (" in normal and "more characters)" in normal


def test_stderr_tail_shows_the_last_ten_lines() -> None:
    stderr = "".join(f"err {n}\n" for n in range(15))
    out, _ = run([result("a", Status.ERROR, stderr=stderr)])
    assert "      server stderr (last 10 of 15 lines):\n        err 5\n" in out
    assert "err 4\n" not in out and "        err 14\n" in out


def test_tabs_and_trailing_blanks_print_as_rich_prints_them() -> None:
    out, _ = run([result("a", Status.ERROR, stderr="key\tvalue\nlong\tname\tx\nblank after   \n")])
    assert (
        "      server stderr:\n"
        "        key     value\n"  # a tab goes to the next multiple of 8 columns of the printed line
        "        long    name    x\n"
        "        blank after   \n"
    ) in out


def test_summary_wording() -> None:
    assert run([])[0] == "no cases ran in 3.2s\n"
    assert run([result("a", duration_s=0.01)])[0].endswith("\n\n1 passed, 0 failed in 3.2s\n")
    errors = [result("a", Status.ERROR), result("b", Status.ERROR)]
    assert run(errors)[0].endswith("\n0 passed, 0 failed, 2 errors in 3.2s\n")


def test_trials_are_named() -> None:
    out, _ = run([result("a", trial=1), result("a", Status.FAIL, trial=2)])
    assert out.startswith("PASS  a  0ms\nFAIL  a [trial 2]  0ms\n")
    assert "  FAIL  s.yaml::a [trial 2]\n" in out


def test_forced_colour_uses_marks_and_escape_codes() -> None:
    out, _ = run(sample(), env={"FORCE_COLOR": "1"})
    assert "\x1b[" in out
    plain = _SGR.sub("", out)
    assert plain.startswith("✓ get time  12ms\n✗ convert time  1.2s\n  expectation failed (contains)")
    assert "○ needs token  (env var TOKEN not set)\n! crashes  500ms\n" in plain
    assert plain.endswith("1 passed, 1 failed, 1 skipped, 1 error in 3.2s\n")


def test_a_tty_gets_colour() -> None:
    out, _ = run(sample(), stdout=TTY())
    assert "\x1b[" in out and "✓" in out


@pytest.mark.parametrize(
    "env",
    [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"NO_COLOR": "1", "FORCE_COLOR": "1"}],
)
def test_plain_on_a_tty_when_colour_is_refused(env: dict[str, str]) -> None:
    assert run(sample(), env=env, stdout=TTY())[0] == PLAIN


def test_use_colour() -> None:
    assert not use_colour(io.StringIO(), {})
    assert not use_colour(io.StringIO(), {"FORCE_COLOR": ""})
    assert use_colour(io.StringIO(), {"FORCE_COLOR": "1", "TERM": "dumb"})
    assert use_colour(TTY(), {"TERM": "xterm"})
    assert use_colour(TTY(), {"NO_COLOR": "", "TERM": "xterm"})  # only a non-empty NO_COLOR refuses


def test_colour_without_unicode_falls_back_to_words() -> None:
    buffer = io.BytesIO()
    out = io.TextIOWrapper(buffer, encoding="ascii")
    report = TerminalReport(stdout=out, stderr=io.StringIO(), env={"FORCE_COLOR": "1"})
    feed(report, sample())
    out.flush()
    text = _SGR.sub("", buffer.getvalue().decode("ascii"))
    assert text.startswith("PASS  get time  12ms\nFAIL  convert time  1.2s\n")


def test_progress_goes_to_a_tty_stderr_and_is_erased() -> None:
    out, err = run(sample(), stderr=TTY())
    assert out == PLAIN
    assert "[0/4] crashes" in err  # all four started; the latest one is shown
    assert "[4/4]" in err
    assert err.endswith("\r\x1b[2K")


@pytest.mark.parametrize("env", [{}, {"TERM": "dumb"}])
def test_no_progress_without_a_terminal(env: dict[str, str]) -> None:
    stderr = io.StringIO() if not env else TTY()
    assert run(sample(), env=env, stderr=stderr)[1] == ""


def test_progress_shows_a_running_case() -> None:
    err = TTY()
    report = TerminalReport(stdout=io.StringIO(), stderr=err, env={})
    report.handle(RunStarted(total=2))
    report.handle(CaseStarted(name="first", index=0, total=2))
    report.handle(CaseStarted(name="second", index=1, total=2))
    report.handle(CaseFinished(result=sample()[0], index=1, total=2))
    assert err.getvalue().endswith("\r\x1b[2K[1/2] first")


@pytest.mark.parametrize("env", [{}, {"FORCE_COLOR": "1"}])
def test_hostile_server_text_is_stripped_and_secrets_masked(env: dict[str, str]) -> None:
    out, err = run([hostile(r) for r in sample()], env=env, stderr=TTY(), secrets=(SECRET,))
    for stream in (_SGR.sub("", out), err.replace("\r\x1b[2K", "")):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", stream)
    assert SECRET not in out + err
    assert "***" in out
    assert "pwned" not in out  # the OSC title payload goes with its sequence


def test_the_failures_list_tells_same_named_cases_apart() -> None:
    results = [result("same", Status.FAIL, line=line) for line in (1, 5)]
    out, _ = run(results, verbosity=Verbosity.QUIET)
    assert "failures:\n  FAIL  s.yaml::same\n  FAIL  s.yaml::same [2]\n" in out


class ClosedPipe(io.StringIO):
    """A stdout whose reader has gone (`| head -1`) after the first write."""

    def write(self, text: str) -> int:
        if self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_reader_that_goes_away_ends_the_printing_quietly() -> None:
    out = ClosedPipe()
    run([result(name) for name in "abc"], stdout=out, order=[0, 1, 2])
    assert out.getvalue() == "PASS  a  0ms\n"


def test_verbose_shows_each_step_cut_short() -> None:
    step = Step(
        kind="request", name="ok", request={"text": "x" * 900}, response={"n": 1}, checks=("healthy",)
    )
    results = [CaseResult(name="a", file=Path("f.yaml"), status=Status.PASS, steps=(step,))]
    verbose, _ = run(results, verbosity=Verbosity.VERBOSE)
    normal, _ = run(results)
    assert '-> ok {"text": "' in verbose and "... (" in verbose
    assert '<- healthy {"n": 1}' in verbose
    assert "-> ok" not in normal
