"""Whether a server case runs."""

from __future__ import annotations

from collections.abc import Mapping

from toolproof.model.server_case import Case


def skip_reason(case: Case, environ: Mapping[str, str]) -> str | None:
    """Why the case does not run, if it does not."""
    if case.skip:
        return "skip: true"
    if case.skip_unless_env and not environ.get(case.skip_unless_env):
        return f"skipped: env var {case.skip_unless_env} not set"
    return None
