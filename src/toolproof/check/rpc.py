"""Expectations on what the 2026-07-28 era adds around a result: its cache hints (`ttlMs`, `cacheScope`), and
the JSON-RPC error a request is answered with (`-32020` header mismatch, `-32021` missing client capability
with `data.requiredCapabilities`, `-32022` unsupported version with `data.supported`).

`error_data` paths are RFC 9535 JSONPath into the error's `data`, compared as JSON (as `structured` is).
"""

from __future__ import annotations

from toolproof.check.failures import fail
from toolproof.check.structured import check_paths, shown
from toolproof.core.jsonpath import json_equal
from toolproof.model.observation import Observation
from toolproof.model.result import Failure
from toolproof.model.server_case import Expect


def _answered(obs: Observation) -> str:
    return f"the request succeeded: {shown(obs.result)}"


def check_ttl_ms(expect: Expect, obs: Observation) -> Failure | None:
    if expect.ttl_ms is None:
        return None
    actual = obs.result.get("ttlMs")
    if "ttlMs" not in obs.result:
        return fail("ttl_ms", f"expected ttlMs {expect.ttl_ms}, the result has none", expect.ttl_ms, None)
    if json_equal(actual, expect.ttl_ms):
        return None
    return fail("ttl_ms", f"expected ttlMs {expect.ttl_ms}, got {shown(actual)}", expect.ttl_ms, actual)


def check_cache_scope(expect: Expect, obs: Observation) -> Failure | None:
    if expect.cache_scope is None:
        return None
    actual = obs.result.get("cacheScope")
    if actual == expect.cache_scope:
        return None
    got = shown(actual) if "cacheScope" in obs.result else "none"
    message = f"expected cacheScope {shown(expect.cache_scope)}, got {got}"
    return fail("cache_scope", message, expect.cache_scope, actual)


def check_error_code(expect: Expect, obs: Observation) -> Failure | None:
    if expect.error_code is None:
        return None
    wanted = f"expected JSON-RPC error {expect.error_code}"
    if obs.error is None:
        return fail("error_code", f"{wanted}, {_answered(obs)}", expect.error_code, None)
    if obs.error.code == expect.error_code:
        return None
    got = f"got {obs.error.code}: {shown(obs.error.message)}"
    return fail("error_code", f"{wanted}, {got}", expect.error_code, obs.error.code)


def check_error_data(expect: Expect, obs: Observation) -> Failure | None:
    """Every path selects a value of the error's data equal to the expected one, in the order written."""
    if not expect.error_data:
        return None
    if obs.error is None:
        return fail("error_data", f"expected a JSON-RPC error, {_answered(obs)}", expect.error_data, None)
    return check_paths("error_data", expect.error_data, obs.error.data, "the error's data")
