"""Equal `server:` blocks as one object: a suite of a thousand cases on one server keeps one config."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolproof.model.server_case import Case

if TYPE_CHECKING:
    from toolproof.load.errors import LoadError
    from toolproof.model.server_config import ServerConfig


def share_servers(items: Iterable[Case | LoadError]) -> list[Case | LoadError]:
    """`items` in their order, every case whose server block equals an earlier one's holding that one."""
    seen: dict[str, ServerConfig] = {}
    shared: list[Case | LoadError] = []
    for item in items:
        if isinstance(item, Case):
            server = seen.setdefault(item.server.model_dump_json(), item.server)
            if server is not item.server:
                item = item.model_copy(update={"server": server})
        shared.append(item)
    return shared
