"""How a skill entry of the skills extension (SEP-2640) is named and where its files live."""

from __future__ import annotations

from typing import Any

SKILL_FILE = "SKILL.md"


def skill_root(entry: dict[str, Any]) -> str:
    """The skill's directory URI: its SKILL.md URI without `/SKILL.md`."""
    return str(entry.get("uri", "")).removesuffix("/" + SKILL_FILE)


def skill_name(entry: dict[str, Any]) -> str:
    """The entry's name: its frontmatter `name`, else the last segment of its skill path."""
    frontmatter = entry.get("frontmatter")
    if isinstance(frontmatter, dict) and isinstance(frontmatter.get("name"), str):
        return str(frontmatter["name"])
    return skill_root(entry).rsplit("/", 1)[-1]
