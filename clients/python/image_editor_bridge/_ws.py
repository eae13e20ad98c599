"""Opening a WebSocket with whichever `websockets` is installed: 10.4 (Debian 12) to 15.x.

Releases from 13 on have a new asyncio client (`websockets.asyncio.client.connect`), the one `websockets.connect`
names from 14 on; it renamed some arguments (`extra_headers` became `additional_headers`) and reports a refused
upgrade as `InvalidStatus` instead of `InvalidStatusCode`. The arguments used here are the ones both take.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import websockets.exceptions

from websockets.typing import Subprotocol

def _client_module() -> tuple[Any, bool]:
    """The newest asyncio client there is, found at run time (a static import would name a module one of the
    releases lacks)."""
    try:
        return importlib.import_module("websockets.asyncio.client"), True
    except ImportError:
        return importlib.import_module("websockets.legacy.client"), False


_module, NEW_CLIENT = _client_module()
"""`NEW_CLIENT`: whether the new asyncio client (websockets >= 13) is in use."""
_connect: Callable[..., Awaitable[Any]] = _module.connect

MAX_MESSAGE_BYTES: Final = 128 * 1024 * 1024
"""Largest message the client takes: above the bridge's own `maxPayloadBytes` (96 MiB), so an image of any size
the bridge sends arrives."""

ConnectionClosed = websockets.exceptions.ConnectionClosed


class Socket(Protocol):
    """The part of a websockets connection the client uses (the same in both client implementations)."""

    async def send(self, message: str | bytes) -> None: ...

    async def recv(self) -> str | bytes: ...

    async def close(self, code: int = 1000, reason: str = "") -> None: ...


async def open_socket(url: str, subprotocols: list[str], open_timeout: float) -> Socket:
    """Opens `url` offering `subprotocols`; raises what websockets raises (see `refused_status`)."""
    options: dict[str, Any] = {
        "subprotocols": [Subprotocol(name) for name in subprotocols],
        "max_size": MAX_MESSAGE_BYTES,
        "open_timeout": open_timeout,
        "compression": None,
    }
    socket: Socket = await _connect(url, **options)
    return socket


def refused_status(error: BaseException) -> int | None:
    """The HTTP status a refused upgrade answered (401, 403, …), from either release's exception."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def close_of(error: BaseException) -> tuple[int, str]:
    """The close code and reason the bridge sent (1006 when the socket just ended)."""
    received = getattr(error, "rcvd", None)
    if received is None:
        return 1006, "connection lost"
    return int(getattr(received, "code", 1006)), str(getattr(received, "reason", ""))
