"""The naming and description rules: whether a tool's name and description tell an agent when to use it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from toolproof.probe.lint_rules.findings import Finding, description_of, finding, name_of, properties_of
from toolproof.probe.tools import Tool

VAGUE_DESCRIPTIONS = frozenset(
    {
        "get data",
        "process data",
        "do something",
        "execute",
        "run",
        "handle",
        "perform action",
        "utility",
        "helper",
    }
)
RETURN_WORDS = ("returns", "return", "output", "produces", "responds with", "result")
MUTATION_VERBS = (
    "create", "delete", "remove", "update", "modify", "write", "insert", "drop", "destroy", "set", "put",
    "post", "send", "publish", "push", "add", "patch", "replace",
)  # fmt: skip
SIDE_EFFECT_WORDS = (
    "creates", "deletes", "removes", "updates", "modifies", "writes", "sends", "publishes", "mutates",
    "changes", "inserts", "drops", "side effect", "not idempotent", "destructive", "irreversible",
    "will create", "will delete", "will update", "will modify",
)  # fmt: skip
ACTION_VERBS = (
    "get", "fetch", "read", "list", "search", "find", "query", "create", "add", "insert", "write", "post",
    "send", "publish", "update", "modify", "patch", "set", "change", "replace", "delete", "remove",
    "destroy", "drop", "clear", "validate", "check", "verify", "test", "convert", "transform", "parse",
    "format",
)  # fmt: skip
SIMILAR_DESCRIPTIONS = 0.80
SHORT_DESCRIPTION = 20
LONG_DESCRIPTION = 500
MAX_ACTION_VERBS = 3


def empty_description(tool: Tool) -> Iterator[Finding]:
    if not description_of(tool).strip():
        yield finding(
            name_of(tool),
            "E101",
            "empty-description",
            "Tool has no description: an agent cannot tell when to use it.",
            "description",
        )


def vague_description(tool: Tool) -> Iterator[Finding]:
    text = description_of(tool).strip().lower()
    if text and (text in VAGUE_DESCRIPTIONS or (len(text) < 10 and " " not in text)):
        yield finding(
            name_of(tool),
            "W101",
            "vague-description",
            f"Tool description is too generic: {description_of(tool)!r}.",
            "description",
        )


def short_or_long_description(tool: Tool) -> Iterator[Finding]:
    text = description_of(tool).strip()
    if text and len(text) < SHORT_DESCRIPTION:
        yield finding(
            name_of(tool),
            "W111",
            "description-length",
            f"Description is only {len(text)} characters: too short to say when to use the tool.",
            "description",
        )
    elif len(text) > LONG_DESCRIPTION:
        yield finding(
            name_of(tool),
            "W111",
            "description-length",
            f"Description is {len(text)} characters: over {LONG_DESCRIPTION} wastes context.",
            "description",
        )


def silent_output(tool: Tool) -> Iterator[Finding]:
    text = description_of(tool)
    if text and not any(word in text.lower() for word in RETURN_WORDS):
        yield finding(
            name_of(tool),
            "W116",
            "undescribed-output",
            "Description does not say what the tool returns.",
            "description",
        )


def _verb_count(text: str) -> int:
    padded = f" {text.lower()} "
    return sum(1 for verb in ACTION_VERBS if any(f" {verb}{end} " in padded for end in ("", "s", "ing")))


def overloaded_tool(tool: Tool) -> Iterator[Finding]:
    count = _verb_count(description_of(tool))
    if count > MAX_ACTION_VERBS:
        yield finding(
            name_of(tool),
            "W103",
            "overloaded-tool",
            f"Description has {count} action verbs: the tool may do too many things.",
            "description",
        )


def hidden_side_effects(tool: Tool) -> Iterator[Finding]:
    name, text = name_of(tool), description_of(tool).lower()
    if not text or not any(verb in name.lower() for verb in MUTATION_VERBS):
        return
    if not any(word in text for word in SIDE_EFFECT_WORDS):
        yield finding(
            name,
            "W108",
            "hidden-side-effects",
            f"Tool name {name!r} suggests it changes something but its description does not say so.",
            "description",
        )


def description_drift(tool: Tool) -> Iterator[Finding]:
    text, props = description_of(tool).lower(), properties_of(tool)
    if not text or len(props) < 2:
        return
    mentioned = sum(
        1
        for param in props
        if param.lower() in text or any(len(w) > 2 and w in text for w in param.lower().split("_"))
    )
    if mentioned / len(props) < 0.5:
        yield finding(
            name_of(tool),
            "W110",
            "description-drift",
            f"Only {mentioned}/{len(props)} parameters are mentioned in the description.",
            "description",
        )


def _bigrams(text: str) -> set[str]:
    return {text[index : index + 2] for index in range(len(text) - 1)}


def similar_descriptions(tools: Sequence[Tool]) -> Iterator[Finding]:
    """W105 once per tool: the first later tool whose description is at least 80 % similar (Dice over
    character bigrams). Each description's bigrams are one integer's bits, so a comparison is an AND and a
    bit count: a list of thousands of unlike tools stays quick, although every pair is compared."""
    texts = [description_of(tool).strip() for tool in tools]
    bits: dict[str, int] = {}
    masks = [_mask(_bigrams(text.lower()), bits) for text in texts]
    sizes = [mask.bit_count() for mask in masks]
    for index, first in enumerate(tools):
        if not texts[index]:
            continue
        for other in range(index + 1, len(tools)):
            if not texts[other]:
                continue
            if texts[index] == texts[other]:
                score = 1.0
            elif sizes[index] and sizes[other]:
                score = 2 * (masks[index] & masks[other]).bit_count() / (sizes[index] + sizes[other])
            else:
                continue
            if score >= SIMILAR_DESCRIPTIONS:
                yield finding(
                    name_of(first),
                    "W105",
                    "similar-descriptions",
                    f"Tools {name_of(first)!r} and {name_of(tools[other])!r} have {score:.0%} similar "
                    "descriptions: agents may confuse them.",
                    "description",
                )
                break


def _mask(grams: set[str], bits: dict[str, int]) -> int:
    """`grams` as an integer with one bit per bigram (numbered in `bits` as they are first met)."""
    mask = 0
    for gram in grams:
        mask |= 1 << bits.setdefault(gram, len(bits))
    return mask


def duplicate_names(tools: Sequence[Tool]) -> Iterator[Finding]:
    for name, count in Counter(name_of(tool) for tool in tools).items():
        if count > 1:
            yield finding(
                name,
                "E113",
                "duplicate-name",
                f"Tool name {name!r} appears {count} times: names must be unique.",
                "name",
            )
