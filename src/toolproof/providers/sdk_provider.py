"""What the adapters over an official SDK share: the settings they are made with, one client of the SDK with
its own retries switched off, and the `Dispatcher` every request goes through."""

from __future__ import annotations

from typing import ClassVar, Generic, Protocol, TypeVar

from toolproof.providers.retry import Dispatcher, RetryPolicy, sdk_classifier


class _Client(Protocol):
    async def close(self) -> None: ...


C = TypeVar("C", bound=_Client)


class SdkProvider(Generic[C]):
    """A provider over one vendor SDK; a subclass names its `default_name`, the SDK's status and connection
    error classes (`errors`), and opens the client (`open_client`)."""

    default_name: ClassVar[str]
    errors: ClassVar[tuple[type[Exception], type[Exception]]]

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_concurrency: int = 4,
        retry: RetryPolicy | None = None,
        name: str | None = None,
    ) -> None:
        self.name = name or self.default_name
        self._client = self.open_client(api_key, base_url, timeout)
        classify = sdk_classifier(*self.errors)
        self._dispatcher = Dispatcher(
            self.name, classify, max_concurrency=max_concurrency, policy=retry, secret=api_key
        )

    def open_client(self, api_key: str, base_url: str | None, timeout: float) -> C:
        """The SDK's client, with the SDK's retries off (the dispatcher retries)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()
