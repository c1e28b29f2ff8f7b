from pathlib import Path

from toolproof.run.fixture import isolated_fixture


def test_copy_is_separate_and_removed(tmp_path: Path) -> None:
    source = tmp_path / "data"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "a.txt").write_text("hello")
    (source / "link").symlink_to("/etc/hostname")
    with isolated_fixture(source) as copy:
        assert copy is not None
        assert copy.name == "data"
        assert copy != source
        assert (copy / "sub" / "a.txt").read_text() == "hello"
        assert (copy / "link").is_symlink()
        (copy / "sub" / "a.txt").write_text("changed")
        (copy / "new.txt").write_text("new")
    assert not copy.exists()
    assert (source / "sub" / "a.txt").read_text() == "hello"
    assert not (source / "new.txt").exists()


def test_no_fixture_yields_none() -> None:
    with isolated_fixture(None) as copy:
        assert copy is None
