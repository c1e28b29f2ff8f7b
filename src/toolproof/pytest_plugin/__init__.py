"""toolproof's pytest plugin: suite files as pytest items, one per case.

Registered through the `pytest11` entry point, so it is loaded into every pytest session of an environment
where toolproof is installed; it stays inert unless asked: `pytest --toolproof PATH...` collects the suite
files under the paths pytest visits, and the ini option `toolproof_paths` names directories whose suite files
are always collected. A YAML file found under a directory that holds no test is skipped with a note after
collection, as `toolproof run` skips it; a file named on the command line is always collected. Importing
this module imports nothing of toolproof's engine; that happens only when a
suite file is collected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.pytest_plugin.settings import SETTINGS, add_options, read_settings


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    settings = read_settings(config)
    if settings is not None:
        config.stash[SETTINGS] = settings


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash.get(SETTINGS, None)
    if settings is None or not settings.wants(file_path):
        return None
    from toolproof.pytest_plugin.items import SuiteFile

    if file_path.suffix.lower() == ".json":
        if not SuiteFile.holds_cases(file_path):
            return None  # JSON that is no case (a trace, package.json): not ours to judge
    elif not _named(parent.config, file_path) and (note := SuiteFile.skipped(file_path)) is not None:
        if note:
            parent.config.stash.setdefault(NOTES, []).append(note)
        return None  # YAML that holds no test (a docker-compose.yml): skipped, as `toolproof run` does
    suite_file: SuiteFile = SuiteFile.from_parent(parent, path=file_path)
    return suite_file


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    return [f"toolproof: {note}" for note in config.stash.get(NOTES, [])]


def _named(config: pytest.Config, path: Path) -> bool:
    """Whether `path` was named on pytest's command line (then it is loaded whatever it holds)."""
    here = config.invocation_params.dir
    given = (arg.partition("::")[0] for arg in config.invocation_params.args if not arg.startswith("-"))
    return any((here / each).resolve() == path.resolve() for each in given)


NOTES = pytest.StashKey[list[str]]()
