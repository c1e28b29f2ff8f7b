"""`toolproof watch` as its own process: touch a file, read the rerun, stop it with SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tests.integration.author.conftest import python_server, write

pytestmark = pytest.mark.servers
WAIT_S = 60.0


class Watcher:
    """The watch process, with its output collected line by line."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        self.process = subprocess.Popen([sys.executable, "-m", "toolproof", "watch", *args], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, count: int = 1) -> None:
        deadline = time.monotonic() + WAIT_S
        while sum(text in line for line in self.lines) < count:
            assert time.monotonic() < deadline, "\n".join(self.lines)
            assert self.process.poll() is None, "\n".join(self.lines)
            time.sleep(0.05)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=WAIT_S)


def test_reruns_the_changed_file_then_everything_on_a_fixture_or_also_change(
    tmp_path: Path, tiny_copy: Path
) -> None:
    head = python_server(tiny_copy)
    suite = write(tmp_path / "suite", {
        "top.yaml": head + "name: top\nassert: {tool: echo, args: {text: one}, expect: {contains: [one]}}\n",
        "deep/nested/inner.yaml": head + "name: inner\nassert: {tool: echo, args: {text: two}}\n",
    })
    fixture = write(tmp_path / "fixture", {"hello.txt": "hello\n"})
    watcher = Watcher(str(suite), "--fixture", str(fixture), "--also", str(tiny_copy), "--debounce", "50ms")
    try:
        watcher.wait_for("watching for changes")
        assert sum(line.startswith("PASS") for line in watcher.lines) == 2

        inner = suite / "deep" / "nested" / "inner.yaml"
        inner.write_text(inner.read_text().replace("text: two", "text: three") + "\n")
        watcher.wait_for("rerunning the cases of 1 file(s)")
        watcher.wait_for("1 passed, 0 failed")
        start = next(index for index, line in enumerate(watcher.lines) if "rerunning" in line)
        rerun = watcher.lines[start:]
        assert [line.split()[1] for line in rerun if line.startswith("PASS")] == ["inner"]

        top = suite / "top.yaml"
        top.write_text(top.read_text().replace("contains: [one]", "contains: [nope]"))
        watcher.wait_for("FAIL  top")

        (fixture / "hello.txt").write_text("changed\n")
        watcher.wait_for("rerunning every case")
        watcher.wait_for("1 passed, 1 failed")

        tiny_copy.touch()
        watcher.wait_for("rerunning every case", count=2)
        watcher.wait_for("1 passed, 1 failed", count=2)
    finally:
        status = watcher.stop()
    assert status == 130, "\n".join(watcher.lines)
