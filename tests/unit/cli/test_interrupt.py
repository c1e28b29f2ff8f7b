"""A stop signal cancels a command's async work, lets its cleanup finish, and gives 128 + the signal."""

from __future__ import annotations

import argparse
import os
import signal

import anyio
import pytest

import toolproof.cli.run
from toolproof.cli import main
from toolproof.run.interrupt import Interrupted, run_until_signal


def test_without_a_signal_the_work_returns_its_value() -> None:
    async def work() -> int:
        await anyio.sleep(0)
        return 7

    assert run_until_signal(work) == 7


STOPS = [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]


@pytest.mark.parametrize(("sig", "status"), STOPS)
def test_a_signal_cancels_the_work_after_its_cleanup(sig: signal.Signals, status: int) -> None:
    steps: list[str] = []

    async def work() -> str:
        try:
            os.kill(os.getpid(), sig)
            await anyio.sleep(30)
            return "not cancelled"
        finally:
            with anyio.CancelScope(shield=True):
                os.kill(os.getpid(), sig)  # a second signal during cleanup is held off
                await anyio.sleep(0.05)
                steps.append("cleaned up")

    outcome = run_until_signal(work)
    assert outcome == Interrupted(sig)
    assert isinstance(outcome, Interrupted) and outcome.status == status
    assert steps == ["cleaned up"]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handlers are given back


def test_the_report_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert Interrupted(signal.SIGTERM).report("toolproof run") == 143
    assert capsys.readouterr().err == "toolproof run: stopped by SIGTERM (exit status 143)\n"


def test_ctrl_c_anywhere_in_a_command_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(toolproof.cli.run, "run", interrupted)
    assert main(["run", "suite"]) == 130
    assert capsys.readouterr().err == "toolproof run: stopped by SIGINT (exit status 130)\n"
