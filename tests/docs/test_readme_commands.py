"""Every command in README.md and examples/*/README.md works as printed, so the READMEs cannot go stale.

Each line of a ```sh block runs in bash, in the repository root, from a fresh environment: this project's
virtual environment and node_modules are taken off PATH, and only the README's own PATH line (one
`export PATH=...` line in README.md, run first) puts them back. A line must exit 0, or N when it ends with
`# exits N`. A ```text block that directly follows a ```sh block of one command is that command's output:
it must equal what the command prints, times masked. The ```python blocks of README.md that import toolproof
run as scripts. `make` lines are only checked to name a target (`make -n`): `make test` runs this test.

A command written in several places runs once. Run these alone with `pytest -m docs`.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
READMES = [ROOT / "README.md", *sorted((ROOT / "examples").glob("*/README.md"))]
EXITS = re.compile(r"#\s*exits\s+(\d+)\s*$")
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?:ms|s|m)\b")
TIMEOUT_S = 120

pytestmark = [pytest.mark.docs, pytest.mark.servers]


@dataclass(frozen=True)
class Block:
    file: Path
    line: int  # of the opening fence
    language: str
    text: str
    follows: Block | None = None  # the block just before it, when only blank lines stand between


@dataclass(frozen=True)
class Command:
    file: Path
    line: int
    text: str
    status: int
    output: str | None  # the sample output printed under it, when there is one

    @property
    def id(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index, last_end = 0, -2
    while index < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[index])
        if not fence:
            index += 1
            continue
        start = index
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            index += 1
        between = lines[last_end + 1 : start] if found else ["x"]
        follows = found[-1] if found and not any(line.strip() for line in between) else None
        found.append(Block(path, start + 1, fence.group(1), "\n".join(lines[start + 1 : index]), follows))
        last_end = index
        index += 1
    return found


def commands() -> list[Command]:
    found = []
    every = [block for path in READMES for block in blocks(path)]
    outputs = {
        id(block.follows): block.text
        for block in every
        if block.language == "text" and block.follows is not None
    }
    for block in every:
        if block.language != "sh":
            continue
        lines = [
            (number, line)
            for number, line in enumerate(block.text.splitlines(), start=block.line + 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        sample = outputs.get(id(block)) if len(lines) == 1 else None
        for number, line in lines:
            exits = EXITS.search(line)
            found.append(
                Command(block.file, number, line.strip(), int(exits.group(1)) if exits else 0, sample)
            )
    return found


def distinct(every: list[Command]) -> list[Command]:
    """Each command once (the READMEs repeat some), with the sample output any of its places shows."""
    first: dict[str, Command] = {}
    for command in every:
        key = f"{command.text.split(' #', 1)[0].strip()} -> {command.status}"
        seen = first.setdefault(key, command)
        if seen.output is None and command.output is not None:
            first[key] = command
    return list(first.values())


def path_line() -> str:
    """The README's one line that puts toolproof and the example servers on PATH."""
    lines = [
        command.text
        for command in commands()
        if command.file.name == "README.md" and command.file.parent == ROOT
    ]
    exported = [line for line in lines if line.startswith("export PATH=")]
    assert len(exported) == 1, exported
    return exported[0]


def fresh_environment() -> dict[str, str]:
    """This process's environment without this project's tools on PATH (nor a virtual environment)."""
    environ = {
        name: value
        for name, value in os.environ.items()
        if name not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME") and not name.startswith("PYTEST_")
    }
    kept = [
        entry
        for entry in environ.get("PATH", "").split(os.pathsep)
        if entry and not entry.rstrip("/").endswith((".venv/bin", "node_modules/.bin"))
    ]
    environ["PATH"] = os.pathsep.join(kept)
    return environ


def shell(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=fresh_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def masked(text: str) -> str:
    return DURATION.sub("<time>", text.strip())


COMMANDS = distinct(commands())


def test_the_readmes_have_commands_and_one_path_line() -> None:
    assert len(COMMANDS) >= 10
    assert path_line() == 'export PATH="$PWD/.venv/bin:$PWD/node_modules/.bin:$PATH"'


def test_a_fresh_shell_has_no_toolproof_without_the_path_line() -> None:
    done = shell("command -v toolproof")
    assert done.returncode != 0, done.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.id)
def test_command(command: Command) -> None:
    if command.text.startswith("make "):
        target = command.text.split("#", 1)[0].split()[1]
        done = shell(f"make -n {target}")
        assert done.returncode == 0, done.stderr
        return
    done = shell(f"{path_line()}\n{command.text}")
    assert done.returncode == command.status, f"{command.id}: {command.text}\n{done.stdout}\n{done.stderr}"
    if command.output is not None:
        assert masked(done.stdout) == masked(command.output), f"{command.id}: sample output differs"


PYTHON = [
    block
    for block in blocks(ROOT / "README.md")
    if block.language == "python" and re.search(r"^import toolproof\b", block.text, re.MULTILINE)
]


@pytest.mark.parametrize("block", PYTHON, ids=lambda block: f"README.md:{block.line}")
def test_python_example(block: Block) -> None:
    done = shell(f"{path_line()}\npython - <<'README_EOF'\n{block.text}\nREADME_EOF")
    assert done.returncode == 0, f"README.md:{block.line}\n{done.stdout}\n{done.stderr}"
