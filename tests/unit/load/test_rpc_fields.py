"""The expectations on cache hints and JSON-RPC errors load onto `Expect`; their mistakes are load errors."""

from __future__ import annotations

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_file
from toolproof.model.server_case import Case


def test_cache_and_error_fields_load(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert_resources:
          list: {}
          expect: {ttl_ms: 60000, cache_scope: public}
        ---
        server: {command: srv}
        assert: {tool: t, expect: {error_code: -32021, error_data: {"$.requiredCapabilities.sampling": {}}}}
        """
    )
    listing, call = load_file(path)
    assert isinstance(listing, Case) and isinstance(call, Case)
    assert (listing.block.expect.ttl_ms, listing.block.expect.cache_scope) == (60000, "public")
    assert call.block.expect.expects_error() and not listing.block.expect.expects_error()


def test_their_mistakes_are_load_errors(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert_resources: {read: "x://y", expect: {cache_scope: all}}
        ---
        server: {command: srv}
        assert_resources: {read: "x://y", expect: {error_data: {"$[": 1}}}
        """
    )
    errors = list(load_file(path))
    assert all(isinstance(error, LoadError) for error in errors)
    described = [(e.line, e.field, e.message.split(":")[0]) for e in errors if isinstance(e, LoadError)]
    assert described == [
        (2, "assert_resources.expect.cache_scope", "'all' is not one of public, private"),
        (5, "assert_resources.expect.error_data.$[", "invalid JSONPath '$['"),
    ]
