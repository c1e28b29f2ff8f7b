"""Verdicts: what became of a case, with a message a person can act on."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Status(StrEnum):
    PASS = "PASS"  # noqa: S105 - a verdict, not a password
    FAIL = "FAIL"
    SKIP = "SKIP"
    ERROR = "ERROR"


class FailureKind(StrEnum):
    """Why a case did not pass. The first four are the ways a request itself can go wrong."""

    TOOL_ERROR = "tool_error"  # the result had isError: true where success was expected
    RPC_ERROR = "rpc_error"  # the server answered with a JSON-RPC error
    TRANSPORT = "transport"  # the connection failed: spawn, exit, closed pipe, HTTP failure
    TIMEOUT = "timeout"  # a request or the whole case ran out of time
    PROTOCOL = "protocol"  # the server sent something that is not valid MCP
    EXPECTATION = "expectation"  # the answer came back and an expectation did not hold
    SETUP = "setup"  # a setup step or capture failed
    CONFIG = "config"  # the case cannot run as written (load error, bad template, missing file)


def status_of(kind: FailureKind) -> Status:
    """The status of a case (or check) a failure of `kind` stopped or failed, the one rule for every command:
    ERROR (exit status 2) for `config`, the case cannot run or be judged as set up (a load error, a
    cassette, a target node that is not there, the judge model failing): the suite or its settings need
    fixing; FAIL (exit status 1) for every other kind, what the server or agent under test did (its answer, a
    crash or broken connection, a timeout, invalid MCP, an expectation or setup step that did not hold).
    A server case keeps mcp-assert's verdict instead: once it ran, any failure is FAIL, `config` too."""
    return Status.ERROR if kind is FailureKind.CONFIG else Status.FAIL


class Failure(BaseModel):
    """The first failing expectation, or the error that stopped the case."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: FailureKind
    message: str
    check: str | None = None
    expected: Any = None
    actual: Any = None
    details: dict[str, Any] = Field(default_factory=dict)


class TrialStats(BaseModel):
    """How a case fared over repeated trials: `passed` of `n`, pass@k and pass^k at `k`, and whether at least
    `threshold` of the trials passed (`ok`). Computed by `toolproof.check.trials`."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    n: int
    passed: int
    k: int
    pass_at_k: float
    pass_hat_k: float
    threshold: float = 1.0
    statuses: tuple[Status, ...] = ()

    @property
    def rate(self) -> float:
        return self.passed / self.n if self.n else 0.0

    @property
    def ok(self) -> bool:
        return self.n > 0 and self.passed >= self.threshold * self.n - 1e-9

    @property
    def flaky(self) -> bool:
        """Some trials passed and some did not."""
        return 0 < self.passed < self.n


class Step(BaseModel):
    """One exchange a case made, as reports show it: a setup call, the checked request, a user message, an
    agent's tool call or reply. `checks` names the assertions that looked at it."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: str  # setup, request, user, tool_call, reply
    name: str = ""
    request: Any = None
    response: Any = None
    is_error: bool = False
    duration_ms: float | None = None
    turn: int | None = None
    checks: tuple[str, ...] = ()


class CaseResult(BaseModel):
    """The verdict on one case (one trial of it, or, with `trials`, all its trials together)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    file: Path
    line: int = 1
    status: Status
    failure: Failure | None = None
    reason: str | None = None  # why a case was skipped
    duration_s: float = 0.0
    trial: int = 1
    stderr: str = ""  # the server's stderr tail, kept for failures
    phases: dict[str, float] = Field(default_factory=dict)  # seconds per phase: start, setup, call, stop
    trials: TrialStats | None = None  # set on the one result that stands for several trials of a case
    shared_server: int | None = None  # --reuse-server: the run's number of the server it shared, if any
    steps: tuple[Step, ...] = ()  # what the case sent and got back, in order, for the reports
    protocol: str | None = None  # the protocol revision spoken with the case's server, once connected
    warnings: tuple[str, ...] = ()  # what is wrong without failing the case (a lint warning, stray stdout)
    details: dict[str, Any] = Field(default_factory=dict)  # what a probe adds (conformance: `official`)

    @property
    def node_id(self) -> str:
        return f"{self.file}::{self.name}"

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS
