"""The SDK's private stream types are reached through one adapter module, and still exist where it looks."""

from __future__ import annotations

import ast
import importlib
import inspect
import typing
from pathlib import Path

import pytest

from toolproof.mcp import sdk_private

SOURCE = Path(__file__).resolve().parents[3] / "src" / "toolproof"


@pytest.mark.parametrize("module", sdk_private.PRIVATE_MODULES)
def test_every_private_sdk_module_the_adapter_uses_still_exists(module: str) -> None:
    try:
        found = importlib.import_module(module)
    except ImportError as error:  # pragma: no cover - fails only when the SDK moves the module
        pytest.fail(f"the mcp SDK no longer has {module} ({error}): update toolproof/mcp/sdk_private.py")
    for name in ("ReadStream", "WriteStream", "TransportStreams"):
        assert hasattr(found, name), f"{module} no longer defines {name}: update toolproof/mcp/sdk_private.py"


def test_the_session_still_keeps_its_header_table_where_the_adapter_fills_it() -> None:
    from mcp.client.session import ClientSession

    assert f"self.{sdk_private.HEADER_TABLE}" in inspect.getsource(ClientSession), (
        f"ClientSession no longer has {sdk_private.HEADER_TABLE}: update toolproof/mcp/sdk_private.py"
    )


def test_the_transport_streams_are_a_read_and_a_write_stream() -> None:
    read, write = typing.get_args(sdk_private.TransportStreams)
    assert typing.get_origin(read) is sdk_private.ReadStream
    assert typing.get_origin(write) is sdk_private.WriteStream


def _private_sdk_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found += [
            name for name in names
            if name.split(".")[0] == "mcp" and any(part.startswith("_") for part in name.split("."))
        ]
    return found


def test_no_other_module_imports_a_private_sdk_module() -> None:
    offenders = {
        str(path.relative_to(SOURCE)): imports
        for path in SOURCE.rglob("*.py")
        if path.name != "sdk_private.py" and (imports := _private_sdk_imports(path))
    }
    assert offenders == {}
    assert _private_sdk_imports(SOURCE / "mcp" / "sdk_private.py") == list(sdk_private.PRIVATE_MODULES)
