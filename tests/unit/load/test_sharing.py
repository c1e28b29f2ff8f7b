"""Equal server blocks of a suite become one object; other blocks, errors and the order stay as they were."""

from __future__ import annotations

from pathlib import Path

from toolproof.api import collect_suite
from toolproof.load.errors import LoadError
from toolproof.model.server_case import Case

CASE = "name: {name}\nserver: {server}\nassert: {{tool: echo, args: {{message: hi}}}}\n"


def test_cases_on_equal_servers_share_one_config(tmp_path: Path) -> None:
    servers = ["{command: srv, args: [a]}", "{command: srv, args: [a]}", "{command: srv, args: [b]}",
               "{command: srv, args: [a], env: {K: v}}", "{args: [a], command: srv}"]
    for number, server in enumerate(servers):
        (tmp_path / f"{number}.yaml").write_text(CASE.format(name=f"case {number}", server=server))
    (tmp_path / "9.yaml").write_text("name: broken\nserver: {command: 3}\n")
    items = collect_suite([tmp_path]).items
    cases = [item for item in items if isinstance(item, Case)]
    assert [case.name for case in cases] == [f"case {number}" for number in range(5)]
    assert isinstance(items[-1], LoadError)
    first, second, other, with_env, reordered = (case.server for case in cases)
    assert second is first and reordered is first
    assert other is not first and with_env is not first
    assert [list(case.server.args) for case in cases] == [["a"], ["a"], ["b"], ["a"], ["a"]]
    assert with_env.env == {"K": "v"}
