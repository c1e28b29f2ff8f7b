"""A small server suite with every verdict, for the sharding and merging tests: eight cases calling the tiny
example server's echo tool, three to a file in three files; five pass, two fail (`case 2`, `case 5`) and one
is skipped (`case 6`)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

TINY = Path(__file__).resolve().parents[2] / "examples" / "servers" / "tiny_server.py"


def echo_case(name: str, expected: str, *, skip: bool = False) -> str:
    """A case calling echo with its own name, expecting `expected` back."""
    return textwrap.dedent(
        f"""\
        name: {name}
        server: {{command: {sys.executable}, args: [{TINY}]}}
        skip: {"true" if skip else "false"}
        assert:
          tool: echo
          args: {{text: "{name}"}}
          expect: {{equals: "{expected}"}}
        """
    )


def write_echo_suite(folder: Path) -> None:
    """The eight cases, in `folder`/part0.yaml, part1.yaml and part2.yaml."""
    folder.mkdir(parents=True)
    documents = [
        echo_case(f"case {number}", "wrong" if number in (2, 5) else f"case {number}", skip=number == 6)
        for number in range(8)
    ]
    for index, start in enumerate((0, 3, 6)):
        (folder / f"part{index}.yaml").write_text("---\n".join(documents[start : start + 3]))
