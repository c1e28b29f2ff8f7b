"""The snapshot file reads and writes mcp-assert's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolproof.author.snapshot_file import (
    SnapshotFile,
    SnapshotFileError,
    ToolList,
    checksum,
    entry,
    read_snapshots,
    render_snapshots,
)


def test_checksum_is_the_first_eight_bytes_of_sha256() -> None:
    assert checksum("test") == "9f86d081884c7d65"


def test_written_file_round_trips_and_keeps_mcp_assert_keys(tmp_path: Path) -> None:
    saved = SnapshotFile(
        snapshots=[entry("echo", "echo", "héllo <x> & y", False)],
        tool_lists=[ToolList(server="python s.py", tools=[{"name": "echo"}])],
    )
    path = tmp_path / ".snapshots.json"
    path.write_text(render_snapshots(saved))
    data = json.loads(path.read_text())
    assert list(data["snapshots"][0]) == ["name", "tool", "text", "is_error", "checksum"]
    assert path.read_text().endswith("}\n")
    assert read_snapshots(path) == saved


def test_a_file_written_by_mcp_assert_reads(tmp_path: Path) -> None:
    path = tmp_path / ".snapshots.json"
    path.write_text('{"snapshots": [{"name": "a", "tool": "t", "text": "\\u003cb\\u003e", "is_error": true,'
                    ' "checksum": "0011"}]}\n')
    read = read_snapshots(path)
    assert read.by_name()["a"].text == "<b>"
    assert read.tool_lists is None


def test_missing_file_is_empty_and_broken_file_names_its_line(tmp_path: Path) -> None:
    assert read_snapshots(tmp_path / "none.json") == SnapshotFile()
    path = tmp_path / ".snapshots.json"
    path.write_text('{\n  "snapshots": [,]\n}')
    with pytest.raises(SnapshotFileError, match=r"\.snapshots\.json:2:\d+: not JSON"):
        read_snapshots(path)
    path.write_text('{"snapshots": [{"tool": "x"}]}')
    with pytest.raises(SnapshotFileError, match=r"snapshots\.0\.name"):
        read_snapshots(path)
