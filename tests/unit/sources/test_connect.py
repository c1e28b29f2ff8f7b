from toolproof.model.server_config import ClientCapabilities, SamplingMock, ServerConfig, Transport
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions

BASE = {"PATH": "/usr/bin", "TOKEN": "s3cret", "HOME": "/root"}


def test_stdio_spec_fills_templates_and_composes_env() -> None:
    server = ServerConfig(
        command="srv",
        args=["--root", "{{fixture}}", "{{other}}"],
        env={"DATA": "{{fixture}}/db", "KEY": "${TOKEN}", "DB": "${DB_URL:-sqlite:///t.db}"},
    )
    spec = connect_spec(server, {"fixture": "/tmp/fx"}, ServerOptions(environ=BASE), request_timeout=5.0)
    assert spec.command == "srv"
    assert spec.args == ("--root", "/tmp/fx", "{{other}}")
    assert spec.env == {**BASE, "DATA": "/tmp/fx/db", "KEY": "s3cret", "DB": "sqlite:///t.db"}
    assert spec.request_timeout == 5.0
    assert spec.protocol == "legacy"


def test_server_override_replaces_command_and_args() -> None:
    server = ServerConfig(command="old", args=["a"])
    options = ServerOptions(environ=BASE, server_override=("node", "dist/index.js", "{{fixture}}"))
    spec = connect_spec(server, {"fixture": "/f"}, options, request_timeout=1)
    assert (spec.command, spec.args) == ("node", ("dist/index.js", "/f"))


def test_docker_wraps_stdio_with_fixture_mount_and_case_env_names() -> None:
    server = ServerConfig(command="srv", args=["{{fixture}}"], env={"MODE": "x", "API_KEY": "${TOKEN}"})
    options = ServerOptions(environ=BASE, docker="img:1")
    spec = connect_spec(server, {"fixture": "/f"}, options, request_timeout=1)
    assert spec.command == "docker"
    assert spec.args == (
        "run", "--rm", "-i", "-v", "/f:/f", "-e", "MODE", "-e", "API_KEY", "img:1", "srv", "/f"
    )
    assert spec.env == {**BASE, "MODE": "x", "API_KEY": "s3cret"}  # the values, in the docker client's env


def test_docker_never_puts_an_env_value_on_the_command_line() -> None:
    server = ServerConfig(command="srv", env={"PASSWORD": "hunter2=x y", "URL": "${TOKEN}"})
    spec = connect_spec(server, {}, ServerOptions(environ=BASE, docker="img:1"), request_timeout=1)
    argv = " ".join((spec.command, *spec.args))
    assert "hunter2" not in argv
    assert "s3cret" not in argv


def test_http_headers_and_url_expand_env() -> None:
    server = ServerConfig(
        transport=Transport.HTTP,
        url="http://127.0.0.1:${PORT:-8000}/mcp",
        headers={"Authorization": "Bearer ${TOKEN}"},
    )
    spec = connect_spec(server, {}, ServerOptions(environ=BASE), request_timeout=1)
    assert spec.url == "http://127.0.0.1:8000/mcp"
    assert spec.headers == {"Authorization": "Bearer s3cret"}
    assert spec.command == ""


def test_mocks_fill_roots_and_block_sampling_applies_only_without_server_sampling() -> None:
    block_mock = SamplingMock(text="from block")
    plain = connect_spec(
        ServerConfig(command="s", client_capabilities=ClientCapabilities(roots=["{{fixture}}", "file:///x"])),
        {"fixture": "/f"},
        ServerOptions(environ=BASE),
        sampling=block_mock,
        request_timeout=1,
    )
    assert plain.mocks.roots == ("/f", "file:///x")
    assert plain.mocks.sampling == block_mock
    own = SamplingMock(text="from server")
    declared = connect_spec(
        ServerConfig(command="s", client_capabilities=ClientCapabilities(sampling=own)),
        {},
        ServerOptions(environ=BASE),
        sampling=block_mock,
        request_timeout=1,
    )
    assert declared.mocks.sampling == own
