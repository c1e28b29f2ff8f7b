"""`--max-rps`: a provider's requests started at most N a second, however many cases of a run share it.

`Paced` wraps any provider; every request waits its turn on the provider's `Pacer`, which spaces the starts
of requests `1/N` seconds apart (a retry inside the provider is the provider's own and is not paced again).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

from toolproof.providers.base import ModelReply, ModelRequest, Provider


class Pacer:
    """Spaces the starts of the callers of `wait` at least `1 / rate` seconds apart, in arrival order."""

    def __init__(
        self,
        rate: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        if rate <= 0:
            raise ValueError(f"a request rate must be positive, got {rate:g}")
        self.interval = 1.0 / rate
        self._clock = clock
        self._sleep = sleep
        self._next = float("-inf")

    async def wait(self) -> None:
        """Return when the caller may start its request."""
        now = self._clock()
        start = max(now, self._next)
        self._next = start + self.interval  # claimed before sleeping: the next caller queues behind
        if start > now:
            await self._sleep(start - now)


class Paced:
    """`provider` with its requests paced by `pacer`."""

    def __init__(self, provider: Provider, pacer: Pacer) -> None:
        self.name = provider.name
        self.inner = provider
        self.pacer = pacer

    async def complete(self, request: ModelRequest) -> ModelReply:
        await self.pacer.wait()
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
