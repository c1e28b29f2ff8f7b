"""Script files of the scripted model: one YAML document naming, per scenario and turn, the model's
answers in order (the format is described in `providers/scripted.py`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from toolproof.load.errors import LoadError
from toolproof.load.validation import validation_errors
from toolproof.load.yaml_source import Document, read_yaml
from toolproof.model.script import ScriptFile


class ScriptError(Exception):
    """A script file that cannot be used; `errors` locate every problem."""

    def __init__(self, errors: list[LoadError]) -> None:
        super().__init__("\n".join(str(error) for error in errors))
        self.errors = errors


def parse_script(document: Document) -> ScriptFile:
    """The script a document holds; ScriptError if it does not fit."""
    try:
        script = ScriptFile.model_validate(document.data)
    except ValidationError as error:
        raise ScriptError(validation_errors(error, ScriptFile, document, lambda loc: loc)) from None
    return script


def load_script(path: Path) -> ScriptFile:
    """The script file at `path`; ScriptError if it cannot be read or does not fit."""
    read = read_yaml(path)
    if read.errors:
        raise ScriptError(read.errors)
    if len(read.documents) != 1:
        where = read.documents[1].line if len(read.documents) > 1 else 1
        raise ScriptError([LoadError(path, where, 1, "", "a script file holds exactly one YAML document")])
    return parse_script(read.documents[0])
