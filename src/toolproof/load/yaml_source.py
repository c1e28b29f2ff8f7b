"""Read a YAML file into plain documents, each with the position of every key and list item.

YAML 1.2 (core schema) as ruamel.yaml reads it, except that timestamps stay strings: `yes` and `on` are
strings, `2024-01-01` is a string, `010` is 10. Values become plain dict/list/str/int/float/bool/None;
non-string scalar keys become their Go string form (`1:` -> "1"), as Go's yaml.v3 does for string maps.

Reading never raises: a file is read only when it is a regular file of at most MAX_FILE_BYTES; a document
nested deeper than MAX_DEPTH (aliases included) or whose aliases repeat more than MAX_ALIAS_VALUES values
fails its file; a tag that does not fit its value (`!!int abc`, `!!str [a]`), an unknown tag and an anchor
defined twice fail their document, each as a LoadError naming file, line and field.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase, TaggedScalar
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.scalarbool import ScalarBoolean

from toolproof.core.regular_file import MAX_FILE_BYTES, UnreadableFile, read_regular_file
from toolproof.load.errors import LoadError
from toolproof.model.server_config import go_string

KeyPath = tuple[str | int, ...]
Position = tuple[int, int]


def format_path(path: KeyPath) -> str:
    """`("setup", 0, "tool")` -> `setup[0].tool`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _nearest(positions: Mapping[KeyPath, Position], path: KeyPath) -> Position:
    for end in range(len(path), 0, -1):
        found = positions.get(path[:end])
        if found is not None:
            return found
    return positions[()]


def written_name(data: Mapping[str, Any]) -> str | None:
    """A document's `name:` in Go's string form, when it is a non-empty scalar."""
    name = go_string(data.get("name"))
    return name if isinstance(name, str) and name else None


@dataclass(frozen=True)
class Document:
    """One non-empty YAML document: a mapping, its ordinal among the file's documents, and key positions."""

    file: Path
    index: int
    data: dict[str, Any]
    positions: Mapping[KeyPath, Position]

    @property
    def line(self) -> int:
        return self.positions[()][0]

    @property
    def column(self) -> int:
        return self.positions[()][1]

    def position(self, path: KeyPath) -> Position:
        """Where `path` is written: its key (or list item), else its nearest written ancestor."""
        return _nearest(self.positions, path)

    def error(self, path: KeyPath, message: str, hint: str | None = None) -> LoadError:
        """A LoadError at `path`, named by its dotted form, and by the document's ordinal and `name:`."""
        line, column = self.position(path)
        return LoadError(
            self.file, line, column, format_path(path), message, hint, self.index, written_name(self.data)
        )


def as_document(document: object, source: Path) -> Document:
    """`document` as a positioned Document: a YAML document as read, or plain data (positions unknown)."""
    if isinstance(document, Document):
        return document
    data = document if isinstance(document, dict) else {}
    return Document(source, 0, data, {(): (1, 1)})


@dataclass(frozen=True)
class YamlFile:
    """Every readable document of a file, and the errors of the ones that are not."""

    path: Path
    documents: list[Document] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    partial: list[Document] = field(default_factory=list)
    """The mappings that did not read cleanly, as far as they read: enough to tell their format, never
    loaded."""
    broken: bool = False
    """The file as a whole could not be read or parsed: no document of it is known."""


MAX_DEPTH = 100
"""The deepest nesting of mappings and lists a document may have, counting what its aliases bring in."""
MAX_ALIAS_VALUES = 100_000
"""How many values a document's aliases may repeat in all (an anchor's values count once per alias)."""

_CORE = "tag:yaml.org,2002:"
_FITTING_TAGS = {
    ScalarNode: {f"{_CORE}{name}" for name in ("str", "int", "float", "bool", "null", "timestamp", "merge")},
    SequenceNode: {f"{_CORE}seq"},
    MappingNode: {f"{_CORE}map"},
}
_KIND = {ScalarNode: "a scalar", SequenceNode: "a list", MappingNode: "a mapping"}


def _short_tag(tag: str) -> str:
    return f"!!{tag.removeprefix(_CORE)}" if tag.startswith(_CORE) else tag


class _LimitExceeded(MarkedYAMLError):
    """A document past MAX_DEPTH or MAX_ALIAS_VALUES: it fails its file, at the node that crossed it."""


@dataclass(frozen=True)
class _Invalid:
    """A value that cannot be constructed (a tag that does not fit it); the converter reports it."""

    message: str


class _Composer(Composer):
    """Composition that bounds nesting and alias expansion and notes an anchor defined twice.

    Each node's expanded size and depth are known once it is composed (an alias can only name a node
    written before it), so a limit is hit where the text crosses it, before anything is expanded.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.warn_double_anchors = False
        self.problems: list[tuple[Any, str]] = []
        self._nesting = 0
        self._measure: dict[int, tuple[int, int]] = {}
        self._repeated = 0

    def compose_document(self) -> Any:
        self.problems = []
        self._measure = {}
        self._repeated = 0
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent):
            node = super().compose_node(parent, index)
            self._repeated += self._measure.get(id(node), (1, 1))[0]  # an unfinished (recursive) one: null
            if self._repeated > MAX_ALIAS_VALUES:
                message = f"aliases repeat more than {MAX_ALIAS_VALUES} values in all (the limit)"
                raise _LimitExceeded(None, None, message, event.start_mark)
            return node
        if event.anchor is not None and event.anchor in self.anchors:
            first = self.anchors[event.anchor].start_mark.line + 1
            self.problems.append(
                (event.start_mark, f"anchor &{event.anchor} is defined twice (first at line {first})")
            )
        self._nesting += 1
        if self._nesting > MAX_DEPTH:
            message = f"the document nests more than {MAX_DEPTH} levels deep (the limit)"
            raise _LimitExceeded(None, None, message, event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._nesting -= 1
        children = (
            [child for pair in node.value for child in pair]
            if isinstance(node, MappingNode)
            else (node.value if isinstance(node, SequenceNode) else [])
        )
        measured = [self._measure.get(id(child), (1, 1)) for child in children]
        size = 1 + sum(size for size, _ in measured)
        depth = 1 + max((depth for _, depth in measured), default=0)
        if depth > MAX_DEPTH:
            message = f"aliases nest this value more than {MAX_DEPTH} levels deep (the limit)"
            raise _LimitExceeded(None, None, message, node.start_mark)
        self._measure[id(node)] = (size, depth)
        return node


class _Constructor(RoundTripConstructor):
    """Round-trip construction keeping timestamps as text, noting each root's start and duplicate keys.

    A tag that does not fit its node, or a value its tag cannot read, becomes an `_Invalid`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root_mark: Any = None
        self.duplicates: list[tuple[Any, Any, Any]] = []

    def construct_document(self, node: Any) -> Any:
        self.root_mark = node.start_mark
        self.duplicates = []
        return super().construct_document(node)

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        written = str(node.tag if tag is None else tag)
        kind = type(node)
        if written not in _FITTING_TAGS[kind]:
            if any(written in tags for tags in _FITTING_TAGS.values()):
                return _Invalid(f"the YAML tag {_short_tag(written)} does not fit {_KIND[kind]}")
            return _Invalid(f"unsupported YAML tag {_short_tag(written)}")
        if kind is not ScalarNode:
            return super().construct_non_recursive_object(node, tag)
        try:
            return super().construct_non_recursive_object(node, tag)
        except (YAMLError, ValueError, KeyError, TypeError):
            return _Invalid(f"{node.value!r} is not a valid {_short_tag(written)}")

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
        if key in mapping:
            self.duplicates.append((mapping, key, key_node.start_mark))
            return False
        return True

    def construct_timestamp_as_text(self, node: Any) -> str:
        return str(self.construct_scalar(node))


_Constructor.add_constructor(f"{_CORE}timestamp", _Constructor.construct_timestamp_as_text)


class _Converter:
    """Turns one constructed document into plain values, recording positions and conversion errors."""

    def __init__(self, file: Path, root: Position, duplicates: list[tuple[Any, Any, Any]]) -> None:
        self.file = file
        self.positions: dict[KeyPath, Position] = {(): root}
        self.errors: list[LoadError] = []
        self._duplicates: dict[int, list[tuple[Any, Position]]] = {}
        for mapping, key, mark in duplicates:
            self._duplicates.setdefault(id(mapping), []).append((key, (mark.line + 1, mark.column + 1)))

    def fail(
        self, path: KeyPath, message: str, position: Position | None = None, hint: str | None = None
    ) -> None:
        line, column = position or _nearest(self.positions, path)
        self.errors.append(LoadError(self.file, line, column, format_path(path), message, hint))

    def value(self, node: Any, path: KeyPath) -> Any:
        # ruamel.yaml constructs a recursive alias as None, so this walk always ends
        if isinstance(node, Mapping):
            return self._mapping(node, path)
        if isinstance(node, list):
            return self._sequence(node, path)
        return self._scalar(node, path)

    def _mapping(self, node: Mapping[Any, Any], path: KeyPath) -> dict[str, Any]:
        duplicates = [(go_string(key), position) for key, position in self._duplicates.get(id(node), [])]
        result: dict[str, Any] = {}
        for raw_key, raw_value in node.items():
            key = go_string(raw_key)
            if not isinstance(key, str):
                self.fail(path, f"mapping keys must be strings, numbers or booleans, not {raw_key!r}")
                continue
            position = self._key_position(node, raw_key)
            if key in result:
                duplicates.append((key, position or _nearest(self.positions, path)))
                continue
            if position is not None:
                self.positions[(*path, key)] = position
            result[key] = self.value(raw_value, (*path, key))
        for key, position in duplicates:
            first = _nearest(self.positions, (*path, key))
            self.fail((*path, key), "duplicate key", position, f"first written at line {first[0]}")
        return result

    def _sequence(self, node: list[Any], path: KeyPath) -> list[Any]:
        result = []
        for index, item in enumerate(node):
            if isinstance(node, CommentedBase):
                line, column = node.lc.item(index)
                self.positions[(*path, index)] = (line + 1, column + 1)
            result.append(self.value(item, (*path, index)))
        return result

    @staticmethod
    def _key_position(node: Mapping[Any, Any], key: Any) -> Position | None:
        if not isinstance(node, CommentedBase):
            return None
        try:
            line, column = node.lc.key(key)
        except KeyError:  # a key merged in with `<<:` has no position of its own here
            return None
        return line + 1, column + 1

    def _scalar(self, node: Any, path: KeyPath) -> Any:
        if node is None or isinstance(node, bool | ScalarBoolean):
            return None if node is None else bool(node)
        if isinstance(node, _Invalid):
            self.fail(path, node.message)
            return None
        if isinstance(node, TaggedScalar):  # an explicit `!!str`, the one tag kept on a scalar
            return str(node.value)
        for plain in (int, float, str):  # also ruamel's ScalarInt, ScalarFloat and ScalarString
            if isinstance(node, plain):
                return plain(node)
        self.fail(path, f"unsupported YAML value of type {type(node).__name__}")
        return None


def _syntax_error(path: Path, text: str, error: YAMLError) -> LoadError:
    if isinstance(error, _LimitExceeded):
        mark = error.problem_mark
        return LoadError(path, mark.line + 1, mark.column + 1, "", str(error.problem))
    if isinstance(error, MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = error.problem or error.context or "invalid YAML"
        context = error.context_mark
        hint = None
        if error.problem and error.context and context is not None:
            hint = f"{error.context} started at line {context.line + 1}, column {context.column + 1}"
        return LoadError(path, line, column, "", f"YAML syntax error: {message}", hint)
    if isinstance(error, ReaderError):
        before = text[: error.position]
        line, column = before.count("\n") + 1, error.position - (before.rfind("\n") + 1) + 1
        return LoadError(path, line, column, "", f"YAML syntax error: {error.reason}")
    return LoadError(path, 1, 1, "", f"YAML syntax error: {error}")


def read_yaml(path: Path) -> YamlFile:
    """Every document of `path`; a file that cannot be read or parsed yields one error and no document."""
    try:
        text = read_regular_file(path, MAX_FILE_BYTES).decode("utf-8-sig")
    except UnreadableFile as error:
        return YamlFile(path, errors=[LoadError(path, 1, 1, "", str(error))], broken=True)
    except UnicodeDecodeError as error:
        message = f"not UTF-8 text (byte {error.start})"
        return YamlFile(path, errors=[LoadError(path, 1, 1, "", message)], broken=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _parse(path, text)
    notes = [_warning_error(path, warning.message) for warning in caught]
    return replace(result, errors=[*result.errors, *notes]) if notes else result


def _warning_error(path: Path, warning: Warning | str) -> LoadError:
    """A warning ruamel.yaml raised while reading `path`, as this file's error at the place it names."""
    node = getattr(warning, "node", None)
    mark = getattr(warning, "problem_mark", None) or getattr(node, "start_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    lines = [text.strip() for text in str(warning).splitlines() if text.strip() and " line " not in text]
    return LoadError(path, line, column, "", f"YAML warning: {lines[0] if lines else type(warning).__name__}")


def _parse(path: Path, text: str) -> YamlFile:
    yaml = YAML(typ="rt")
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    result = YamlFile(path)
    ordinal = 0
    try:
        for raw in yaml.load_all(text):
            if raw is None:
                continue
            ordinal += 1
            mark = yaml.constructor.root_mark
            root = (mark.line + 1, mark.column + 1)
            if not isinstance(raw, Mapping):
                kind = "a list" if isinstance(raw, list) else "a scalar"
                message = f"a document must be a mapping, not {kind}"
                result.errors.append(LoadError(path, *root, "", message, document=ordinal - 1))
                continue
            converter = _Converter(path, root, yaml.constructor.duplicates)
            data = converter.value(raw, ())
            for where, message in yaml.composer.problems:
                converter.fail((), message, (where.line + 1, where.column + 1))
            if converter.errors:
                name = written_name(data)
                result.errors.extend(replace(e, document=ordinal - 1, case=name) for e in converter.errors)
                result.partial.append(Document(path, ordinal - 1, data, converter.positions))
                continue
            result.documents.append(Document(path, ordinal - 1, data, converter.positions))
    except YAMLError as error:
        return YamlFile(path, errors=[_syntax_error(path, text, error)], broken=True)
    except RecursionError:
        too_deep = LoadError(path, 1, 1, "", "YAML nested too deeply to read")
        return YamlFile(path, errors=[too_deep], broken=True)
    return result
