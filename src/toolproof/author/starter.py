"""A commented starter suite and fixture that pass against the bundled example server (the tiny stdio server
of `examples/servers`, copied beside the suite so that it runs wherever toolproof is installed)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path, PurePosixPath

from toolproof.author.case_file import schema_line, write_schema

STARTER_CASES = ("echo.yaml", "describe.yaml", "fail.yaml")
SERVER = "tiny_server.py"
FIXTURE = {"hello.txt": "Hello, world!\n"}


class StarterExists(Exception):
    """A file the starter would write exists already."""


def starter_files(directory: Path) -> dict[Path, str]:
    """Every file of the starter suite in `directory`, with its text; the cases name the server's path as
    `directory` is written (relative paths are read from where toolproof runs)."""
    package = files("toolproof.author") / "starter"
    where = directory.as_posix()
    texts = {
        directory / name: schema_line(PurePosixPath(name))
        + "\n"
        + (package / name).read_text("utf-8").replace("__DIR__", where)
        for name in STARTER_CASES
    }
    texts[directory / "server" / SERVER] = (package / SERVER).read_text("utf-8")
    texts.update({directory / "fixtures" / name: text for name, text in FIXTURE.items()})
    return texts


def write_starter(directory: Path, *, overwrite: bool) -> list[Path]:
    """Write the starter suite; raises StarterExists (before writing anything) unless `overwrite`."""
    planned = starter_files(directory)
    existing = [path for path in planned if path.exists()]
    if existing and not overwrite:
        raise StarterExists(f"{existing[0]} exists already (--overwrite replaces the starter files)")
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [*planned, write_schema(directory)]
