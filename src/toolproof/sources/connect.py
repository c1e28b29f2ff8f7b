"""Turn a case's `server:` block into a connection spec: templates, environment, docker, overrides."""

from __future__ import annotations

from collections.abc import Mapping

from toolproof.core.template import expand_env, fill, unset_references
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.spec import ConnectSpec, Mocks
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_config import (
    AuthConfig,
    ClientCapabilities,
    SamplingMock,
    ServerConfig,
    Transport,
    check_url,
)
from toolproof.sources.options import ServerOptions


def connect_spec(
    server: ServerConfig,
    variables: Mapping[str, str],
    options: ServerOptions,
    *,
    sampling: SamplingMock | None = None,
    request_timeout: float,
) -> ConnectSpec:
    """The spec for one case's server, with `{{fixture}}` filled and `${VAR}` expanded.

    `sampling` is a block-level mock (assert_sampling) used when the server block declares none. Raises
    RequestFailed (a configuration error) when the url refers to an unset variable or, expanded, is not a
    URL.
    """
    command, args = server.command, list(server.args)
    if options.server_override:
        command, args = options.server_override[0], list(options.server_override[1:])
    args = [fill(arg, variables) for arg in args]
    case_env = {key: expand_env(fill(value, variables), options.environ) for key, value in server.env.items()}
    docker = server.docker or options.docker
    if docker and server.transport is Transport.STDIO:
        command, args = "docker", _docker_args(docker, command, args, case_env, variables.get("fixture"))
    if unset := unset_references(server.url, options.environ):
        names = ", ".join(f"${{{name}}}" for name in unset)
        message = f"server url {server.url!r}: {names} not set in the environment"
        raise RequestFailed(Failure(kind=FailureKind.CONFIG, message=message, check="url"))
    url = expand_env(server.url, options.environ)
    if server.transport is not Transport.STDIO:
        try:
            check_url(url)
        except ValueError as error:
            raise RequestFailed(Failure(kind=FailureKind.CONFIG, message=f"server.url: {error}")) from None
    return ConnectSpec(
        transport=server.transport,
        command=command,
        args=tuple(args),
        env={**options.environ, **case_env},
        cwd=fill(server.cwd, variables) if server.cwd else None,
        url=url,
        headers={key: expand_env(value, options.environ) for key, value in server.headers.items()},
        mocks=_mocks(server.client_capabilities, variables, sampling),
        auth=_auth(server, options),
        protocol=options.protocol,
        request_timeout=request_timeout,
        max_message_bytes=options.max_message_bytes,
    )


def _auth(server: ServerConfig, options: ServerOptions) -> AuthConfig | None:
    """The case's `auth:`, else the command line's for a server over HTTP, expanded."""
    auth = server.auth or (options.auth if server.transport is not Transport.STDIO else None)
    return expand_auth(auth, options.environ) if auth else None


def expand_auth(auth: AuthConfig, environ: Mapping[str, str]) -> AuthConfig:
    """The `auth:` block with `${VAR}` expanded in every text value."""
    expanded = {
        name: expand_env(value, environ) if isinstance(value, str) else value
        for name, value in auth.model_dump().items()
        if name != "scopes"
    }
    expanded["scopes"] = [expand_env(scope, environ) for scope in auth.scopes]
    return AuthConfig.model_validate(expanded)


def _docker_args(
    image: str, command: str, args: list[str], env: Mapping[str, str], fixture: str | None
) -> list[str]:
    """`docker run` arguments for the server. The case's variables are passed by name only (`-e KEY`): their
    values reach the container from the docker client's own environment, never from its command line."""
    wrapped = ["run", "--rm", "-i"]
    if fixture:
        wrapped += ["-v", f"{fixture}:{fixture}"]
    for key in env:
        wrapped += ["-e", key]
    return [*wrapped, image, *([command] if command else []), *args]


def _mocks(
    capabilities: ClientCapabilities | None, variables: Mapping[str, str], sampling: SamplingMock | None
) -> Mocks:
    caps = capabilities or ClientCapabilities()
    roots = tuple(fill(root, variables) for root in caps.roots) if caps.roots is not None else None
    return Mocks(roots=roots, sampling=caps.sampling or sampling, elicitation=caps.elicitation)
