"""The blocking facade: the client's methods without `await`, for scripts and notebooks."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ._base import ProgressCallback
from ._generated import SyncMethodGroups
from .client import BatchCall, BatchOutcome, Client, Listener

T = TypeVar("T")


class SyncClient(SyncMethodGroups):
    """A `Client` on an event loop in a thread of its own; every method blocks until it is answered.

    `Client.sync(url, token=...)` makes one, connected. Listeners run on the client's thread: hand work back to
    yours through a `queue.Queue` if it must run there. Ctrl-C while a call waits cancels it on the bridge too.
    """

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(self._call_blocking)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="image-editor-bridge", daemon=True)
        self._thread.start()
        self._client: Client = self._run(_make(url, options))
        try:
            self._run(self._client.connect())
        except BaseException:
            self._stop()
            raise

    @property
    def client(self) -> Client:
        """The asynchronous client underneath (its coroutines belong to the client's thread)."""
        return self._client

    @property
    def client_id(self) -> str | None:
        return self._client.client_id

    def invoke(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None, on_progress: ProgressCallback | None = None) -> Any:
        """Calls any method by name, plugins' too; see `Client.invoke`."""
        return self._run(self._client.invoke(method, params, timeout=timeout, on_progress=on_progress))

    def batch(self, calls: Sequence[BatchCall], *, halt_on_failure: bool = False, atomic: bool = False, timeout: float | None = None) -> list[BatchOutcome]:
        """Several calls in one `batch` request; see `Client.batch`."""
        return self._run(self._client.batch(calls, halt_on_failure=halt_on_failure, atomic=atomic, timeout=timeout))

    def on(self, kind: str, listener: Listener, *, once: bool = False) -> Callable[[], None]:
        """Adds a listener (run on the client's thread); returns its remover. See `Client.on`."""
        remove: Callable[[], None] = self._run(_later(lambda: self._client.on(kind, listener, once=once)))
        return self._remover(remove)

    def subscribe(self, kind: str, listener: Listener) -> Callable[[], None]:
        """Adds a listener once the bridge confirmed the subscription; see `Client.subscribe`."""
        return self._remover(self._run(self._client.subscribe(kind, listener)))

    def _remover(self, remove: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            self._loop.call_soon_threadsafe(remove)

        return run

    def close(self) -> None:
        """Disposes the logical client and stops the client's thread."""
        if self._loop.is_closed():
            return
        try:
            self._run(self._client.close())
        finally:
            self._stop()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    def _call_blocking(self, method: str, params: dict[str, Any], timeout: float | None, on_progress: ProgressCallback | None) -> Any:
        return self._run(self._client.invoke(method, params, timeout=timeout, on_progress=on_progress))

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()  # cancels the task: a sent request is cancelled on the bridge
            raise

    def _stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


async def _make(url: str, options: dict[str, Any]) -> Client:
    return Client(url, **options)


async def _later(make: Callable[[], T]) -> T:
    return make()
