"""Suite files as pytest collectors, and their cases as items.

Each item runs its case through the engine as the commands do: a server case through `execute_case` (as
`toolproof run`), an agent case through `check_case` against the recorded runs paired with it (as
`toolproof check --by-case --skip-judge`: judge checks are not evaluated). A file's items are what
`load.collect` gives the commands; pytest's own -k, --lf and -x select among them, and `--toolproof-shard`
takes the commands' shard (`load/shards.py`). A document that does not load is a collection error naming
its file, line and field; the file's other cases are still collected.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from _pytest._code.code import ExceptionInfo, TerminalRepr

from toolproof.load import collect, skip_note
from toolproof.load.dialects import dialect_of, holds_tests
from toolproof.load.yaml_source import Document, read_yaml
from toolproof.model.result import CaseResult, Status
from toolproof.model.scenario import AgentCase
from toolproof.model.server_case import Case
from toolproof.pytest_plugin.failures import failure_text
from toolproof.pytest_plugin.recorded import RECORDED, RecordedRuns
from toolproof.pytest_plugin.settings import SETTINGS, Settings
from toolproof.report.describe import unique_names
from toolproof.run.load_errors import Broken, by_document, load_error_result

AnyCase = Case | AgentCase


class CaseFailed(Exception):
    """A case's verdict was FAIL or ERROR; `results` say why."""

    def __init__(self, results: Sequence[CaseResult], secrets: Iterable[str]) -> None:
        super().__init__(results[0].name)
        self.results = results
        self.secrets = frozenset(secrets)


def _kind(document: Document) -> str | None:
    dialect = dialect_of(document)
    return None if dialect is None else dialect.kind


class SuiteFile(pytest.File):
    """A toolproof suite file: its cases as items, each document that did not load as a collection error."""

    @staticmethod
    def holds_cases(path: Path) -> bool:
        """Whether a JSON file holds agent cases (so traces and other JSON files are left alone)."""
        return any(_kind(document) == "agent" for document in read_yaml(path).documents)

    @staticmethod
    def skipped(path: Path) -> str | None:
        """None for a YAML test file; for one that holds no test (`holds_tests`), the note to show, or "" for
        one of toolproof's own settings files (skipped without a word)."""
        source = read_yaml(path)
        if holds_tests(source):
            return None
        here = Path.cwd()
        return skip_note(path.relative_to(here) if path.is_relative_to(here) else path, source) or ""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        here = Path.cwd()  # cases name their file as `toolproof run` would: relative to where it runs
        written = self.path.relative_to(here) if self.path.is_relative_to(here) else self.path
        collected = collect([written], kind="any")  # the commands' collection; pytest selects (-k, --lf, -x)
        entries = cast("list[AnyCase | Broken]", by_document(collected.items))
        cases = [entry for entry in entries if not isinstance(entry, tuple)]
        keys = [(self.path.as_posix(), (case.source.line, case.source.column), case.name) for case in cases]
        names = iter(unique_names(keys))
        for entry in entries:
            if isinstance(entry, tuple):
                result = load_error_result(*entry)
                yield LoadFailure.from_parent(self, name=result.name, message=_message(result))
            elif isinstance(entry, Case):
                yield ServerCaseItem.from_parent(self, name=next(names), case=entry)
            else:
                recorded(self.config).add(entry)
                yield AgentCaseItem.from_parent(self, name=next(names), case=entry)


def _message(result: CaseResult) -> str:
    assert result.failure is not None
    return result.failure.message


class LoadFailure(pytest.Collector):
    """A document that could not be loaded: collecting it fails with every problem found in it."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        raise self.CollectError(self.message)


class _CaseItem(pytest.Item):
    """One case; `verdict` runs it to its results."""

    def __init__(self, *, case: AnyCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    @property
    def settings(self) -> Settings:
        return self.config.stash[SETTINGS]

    def verdict(self) -> tuple[list[CaseResult], Iterable[str]]:
        raise NotImplementedError

    def runtest(self) -> None:
        results, secrets = self.verdict()
        if any(result.status in (Status.FAIL, Status.ERROR) for result in results):
            raise CaseFailed(results, secrets)
        if results and all(result.status is Status.SKIP for result in results):
            raise pytest.skip.Exception(results[0].reason or "skipped", _use_item_location=True)

    def repr_failure(self, excinfo: ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            verbose = self.config.get_verbosity() > 0
            return failure_text(excinfo.value.results, excinfo.value.secrets, verbose=verbose)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.source.line - 1, f"toolproof: {self.case.name}"


class ServerCaseItem(_CaseItem):
    """An mcp-assert case: start or reach its server, make its request, check the answer."""

    case: Case

    def verdict(self) -> tuple[list[CaseResult], Iterable[str]]:
        from toolproof.mcp.process import reap_strays
        from toolproof.run.secrets import run_secrets
        from toolproof.run.server_case import execute_case

        options = self.settings.options
        try:
            result = anyio.run(execute_case, self.case, options)
        finally:
            reap_strays()
        return [result], run_secrets([self.case.server], options.environ)


class AgentCaseItem(_CaseItem):
    """An agent case: checked against the recorded runs paired with it (skipped when there is none)."""

    case: AgentCase

    def verdict(self) -> tuple[list[CaseResult], Iterable[str]]:
        return recorded(self.config).check(self.case), ()


def recorded(config: pytest.Config) -> RecordedRuns:
    """The session's recorded runs and the agent cases collected so far."""
    if RECORDED not in config.stash:
        config.stash[RECORDED] = RecordedRuns(config.stash[SETTINGS].traces)
    return config.stash[RECORDED]
