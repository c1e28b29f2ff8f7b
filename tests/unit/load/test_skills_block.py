"""`assert_skills:` loads onto its model; a block that names no request, or more than one, is a load error."""

from __future__ import annotations

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_file
from toolproof.model.server_case import Case, SkillsBlock


def test_assert_skills_loads(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert_skills:
          load: pdf-processing
          expect: {files: [SKILL.md, references/FORMS.md], frontmatter: {name: pdf-processing}}
        """
    )
    (case,) = load_file(path)
    assert isinstance(case, Case) and isinstance(case.block, SkillsBlock)
    assert case.block.load == "pdf-processing"
    assert case.block.expect.files == ["SKILL.md", "references/FORMS.md"]


def test_one_request_exactly(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert_skills: {list: {}, load: pdf-processing}
        ---
        server: {command: srv}
        assert_skills: {expect: {skills: [pdf-processing]}}
        ---
        server: {command: srv}
        assert_skills: {directory: skill://pdf-processing, expect: {childs: [SKILL.md]}}
        """
    )
    errors = list(load_file(path))
    assert all(isinstance(error, LoadError) for error in errors)
    described = [(e.line, e.field, e.message) for e in errors if isinstance(e, LoadError)]
    assert described == [
        (2, "assert_skills", "give exactly one of list, get, load, directory (given: list, load)"),
        (5, "assert_skills", "give exactly one of list, get, load, directory (given: none)"),
        (8, "assert_skills.expect.childs", "unknown key"),
    ]

