"""Malformed `json_path` paths, `matches_regex` patterns and `capture` paths are load errors naming file,
line, column and field, as the same mistakes under `structured:` are, so no server is started for them."""

from __future__ import annotations

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_file
from toolproof.model.server_case import Case


def test_each_malformed_path_and_pattern_is_located(write: Write) -> None:
    path = write(
        """
        name: bad paths
        server: {command: srv}
        setup:
          - tool: make
            capture: {good: "$.id", broken: "$.items[first]"}
        assert:
          tool: get
          expect:
            json_path: {"$.ok": 1, "$.a[": 2, "$..b": 3}
            matches_regex: ["^ok$", "(?<=a)b"]
        """
    )
    assert load_file(path) == [
        LoadError(path, 5, 29, "setup[0].capture.broken",
                  'bad path "$.items[first]": index [first] is not a non-negative integer'),
        LoadError(path, 9, 28, "assert.expect.json_path.$.a[",
                  'bad path "$.a[": cannot read "a[" (write key or key[0])'),
        LoadError(path, 9, 39, "assert.expect.json_path.$..b",
                  'bad path "$..b": empty key (write $.key, $.key[0] or $[0])'),
        LoadError(path, 10, 29, "assert.expect.matches_regex[1]",
                  'invalid RE2 pattern "(?<=a)b": invalid perl operator: (?<='),
    ]


def test_well_formed_paths_load(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        setup:
          - tool: make
            capture: {whole: "$", also_whole: "$.", bare: "a.b[0]", top: "$[1][0]"}
        assert_resources:
          read: "demo://x"
          expect: {json_path: {"$": 1, "$[0].name": x, "items[2]": y}, matches_regex: ['^\\d+ \\w+$']}
        """
    )
    (case,) = load_file(path)
    assert isinstance(case, Case)
