from toolproof.core.template import expand_env, fill, unknown_placeholders


def test_fill_replaces_known_names_recursively() -> None:
    args = {"path": "{{fixture}}/a.txt", "items": ["{{id}}", {"deep": "x-{{ id }}-y"}], "n": 3}
    assert fill(args, {"fixture": "/tmp/f", "id": "42"}) == {
        "path": "/tmp/f/a.txt",
        "items": ["42", {"deep": "x-42-y"}],
        "n": 3,
    }


def test_fill_leaves_unknown_placeholders_as_written() -> None:
    assert fill("{{fixture}}/a", {}) == "{{fixture}}/a"
    assert unknown_placeholders({"a": ["{{x}}", "{{fixture}}"]}, {"fixture": "/f"}) == {"x"}


def test_fill_does_not_rescan_substituted_text() -> None:
    assert fill("{{a}}", {"a": "{{b}}", "b": "no"}) == "{{b}}"


def test_expand_env_forms() -> None:
    env = {"HOME": "/root", "EMPTY": ""}
    assert expand_env("$HOME/x", env) == "/root/x"
    assert expand_env("${HOME}y", env) == "/rooty"
    assert expand_env("${MISSING}", env) == ""
    assert expand_env("${MISSING:-sqlite:///tmp/t.db}", env) == "sqlite:///tmp/t.db"
    assert expand_env("${EMPTY:-fallback}", env) == "fallback"
    assert expand_env("${HOME:-fallback}", env) == "/root"
    assert expand_env("cost: 5$", env) == "cost: 5$"
