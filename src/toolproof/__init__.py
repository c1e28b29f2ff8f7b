"""toolproof: prove that MCP servers and tool-using AI agents do what they should.

The Python API (`run_suite`, `check_traces`, `evaluate`, ...) lives in `toolproof.api` and is imported on
first use, so `import toolproof` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolproof._version import __version__
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.api import (
        Collection,
        Reports,
        SuiteResult,
        check_traces,
        collect_suite,
        evaluate,
        run_suite,
    )

_API = frozenset(
    {"Collection", "Reports", "SuiteResult", "check_traces", "collect_suite", "evaluate", "run_suite"}
)

__all__ = [
    "Collection",
    "ExitCode",
    "Reports",
    "SuiteResult",
    "UsageError",
    "__version__",
    "check_traces",
    "collect_suite",
    "evaluate",
    "run_suite",
]


def __getattr__(name: str) -> Any:
    if name in _API:
        from toolproof import api

        return getattr(api, name)
    raise AttributeError(f"module 'toolproof' has no attribute {name!r}")
