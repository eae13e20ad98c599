"""The asynchronous client: requests, events in `seq` order, and a logical client that survives dropped sockets."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import random
import struct
import urllib.parse
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict

import websockets.exceptions

from . import _ws
from ._base import Progress, ProgressCallback
from ._generated import IMAGE_METHODS, MethodGroups
from .errors import BridgeError, looks_like_error
from .image import BridgeImage

if TYPE_CHECKING:
    from .sync import SyncClient

DEFAULT_URL: Final = "http://127.0.0.1:7700"
DEFAULT_REQUEST_TIMEOUT: Final = 135.0
"""Seconds a request waits for its answer: just above the bridge's own 120 s deadline for exports."""
DEFAULT_CONNECT_TIMEOUT: Final = 10.0
"""Seconds opening a socket and receiving the `connected` handshake may take."""
DEFAULT_MAX_IN_FLIGHT: Final = 64
"""Requests sent and unanswered at once; the bridge's per-client limit, so it never answers 429 for it."""
DEFAULT_MAX_QUEUED: Final = 1000
"""Requests held while the socket is away; past it new ones fail with TOO_MANY_REQUESTS."""
CLOSE_TIMEOUT: Final = 2.0
"""Seconds `close()` waits for the closing handshake."""

SUBPROTOCOL: Final = "image-editor-bridge"
BEARER_PREFIX: Final = "bearer."
DISPOSE: Final = 4000
"""Close code that disposes the logical client at once instead of keeping it for resume."""
FINAL_CLOSE_CODES: Final = frozenset({4000, 4004, 4009, 4409, 4410})
"""Closes after which the client does not reconnect: disposed, no such plugin, taken over, attached, evicted."""
POLICY_VIOLATION: Final = 1008
CANCEL_PREFIX: Final = "cancel:"
BINARY_HEADER_VERSION: Final = 1

LocalEventName = Literal["$open", "$close", "$reconnecting", "$lost", "$error"]


@dataclass(frozen=True)
class ReconnectOptions:
    """When a dropped socket is opened again: exponential backoff from `initial_delay` seconds up to `max_delay`,
    the last `jitter` fraction of each delay random; after `max_attempts` failed attempts in a row the connection
    ends and waiting requests fail with CONNECTION_LOST."""

    initial_delay: float = 0.25
    max_delay: float = 10.0
    jitter: float = 0.5
    max_attempts: float = float("inf")

    def delay(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * 2.0 ** min(max(attempt - 1, 0), 30))
        jitter = min(max(self.jitter, 0.0), 1.0)
        return base * (1 - jitter) + base * jitter * random.random()


@dataclass(frozen=True)
class Event:
    """An event: a bridge event (`type`, `data`, its `seq`) or a local notification (`$`-names, no `seq`)."""

    type: str
    data: Any
    seq: int | None = None


class LostNotice(TypedDict):
    """`$lost` data: events were missed. Re-read whatever state you mirror. `reason` is `gap` (a skipped `seq`),
    `replay-overflow` (the bridge's replay buffer overflowed while the socket was away; `frames` dropped) or
    `new-client` (the bridge no longer knew this client: subscriptions were renewed, requests sent to the old one
    failed with CONNECTION_LOST)."""

    reason: str
    events: int | None
    frames: int | None


Listener = Callable[[Event], object]
"""A listener; one that returns an awaitable is run as a task."""


class _BatchCallRequired(TypedDict):
    method: str


class BatchCall(_BatchCallRequired, total=False):
    """One call of a batch: `method`, its `params`, and an `id` its outcome echoes."""

    params: dict[str, Any]
    id: str


@dataclass(frozen=True)
class BatchOutcome:
    """One call's outcome in a batch: its `result` (images as `BridgeImage`), or its `error`."""

    ok: bool
    result: Any = None
    error: BridgeError | None = None
    id: str | None = None


@dataclass
class _Pending:
    id: str
    method: str
    params: dict[str, Any] | None
    future: asyncio.Future[Any]
    on_progress: ProgressCallback | None
    sent_to: str | None = None


@dataclass
class _Subscription:
    listeners: list[tuple[Listener, bool]] = field(default_factory=list)
    active: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class _Sequence:
    """Event order of one logical client: a repeated `seq` is a duplicate, a skipped one an event that will never
    come. After a resume the bridge says how many frames it replays and how many it had to drop; that loss is
    reported once the replay is over."""

    def __init__(self) -> None:
        self.last = 0
        self.replay_left = 0
        self.replay_lost = 0
        self.replay_gap = 0

    def start_replay(self, replayed: int, lost: int) -> None:
        self.replay_left, self.replay_lost, self.replay_gap = replayed, lost, 0

    def count_frame(self) -> None:
        if self.replay_left > 0:
            self.replay_left -= 1

    def accept(self, seq: int) -> int | None:
        """None for a duplicate, else how many events were skipped right before it that should be reported now."""
        if seq <= self.last:
            return None
        gap = seq - self.last - 1
        self.last = seq
        if gap > 0 and self.replay_lost > 0:
            self.replay_gap += gap
            return 0
        return gap

    def take_replay_loss(self) -> LostNotice | None:
        if self.replay_left > 0 or self.replay_lost == 0:
            return None
        notice = LostNotice(reason="replay-overflow", events=self.replay_gap, frames=self.replay_lost)
        self.replay_lost = self.replay_gap = 0
        return notice


def endpoints(url: str, plugin_id: str | None) -> tuple[str, str]:
    """The WebSocket and HTTP addresses a URL stands for (`http://h:p`, `ws://h:p/ws`, `ws://h:p`)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise ValueError(f'Not a bridge URL: "{url}" (expected e.g. http://127.0.0.1:7700 or ws://127.0.0.1:7700/ws)')
    secure = parts.scheme in ("https", "wss")
    path = parts.path.rstrip("/") or "/ws"
    if plugin_id is not None:
        path = "/ws/" + urllib.parse.quote(plugin_id, safe="")
    ws = urllib.parse.urlunsplit(("wss" if secure else "ws", parts.netloc, path, parts.query, ""))
    return ws, f"{'https' if secure else 'http'}://{parts.netloc}"


def _binary_header(request_id: str, index: int) -> bytes:
    encoded = request_id.encode()
    return struct.pack(">BBH", BINARY_HEADER_VERSION, index, len(encoded)) + encoded


def _read_binary(message: bytes) -> tuple[str, int, bytes] | None:
    if len(message) < 4 or message[0] != BINARY_HEADER_VERSION:
        return None
    length = (message[2] << 8) | message[3]
    if length == 0 or 4 + length > len(message):
        return None
    try:
        request_id = message[4 : 4 + length].decode()
    except UnicodeDecodeError:
        return None
    return request_id, message[1], message[4 + length :]


def _is_binary_reference(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("binary"), int) and not isinstance(value.get("binary"), bool)


def _is_image_reference(value: object) -> bool:
    """`{"data": {"binary": n, "mime": …, "bytes": …}, "format": …}`: an image whose bytes come as binary part n."""
    if not isinstance(value, dict):
        return False
    data = value.get("data")
    return isinstance(data, dict) and _is_binary_reference(data) and isinstance(data.get("mime"), str) and isinstance(data.get("bytes"), int)


def _image_references(value: Any, into: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The image references in a result, at any depth (the result itself, `variants[i].image`, …), in order."""
    if _is_image_reference(value):
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _image_references(item, into)
    elif isinstance(value, list):
        for item in value:
            _image_references(item, into)
    return into


def _with_images(value: Any, images: list[BridgeImage]) -> Any:
    """A copy of a result with each image reference replaced by the image of its binary part."""
    if _is_image_reference(value):
        return images[value["data"]["binary"]]
    if isinstance(value, dict):
        return {key: _with_images(item, images) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_images(item, images) for item in value]
    return value


class _HeldAnswer:
    """An answer waiting for its binary parts: `references[n]` is the image part n fills."""

    def __init__(self, frame: dict[str, Any], references: list[dict[str, Any]]) -> None:
        self.frame = frame
        self.references = references
        self.images: list[BridgeImage] = []


def _as_image(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("data"), str) and value["data"].startswith("data:"):
        return BridgeImage.from_data_uri(value)
    return value


def _image_result(method: str, result: Any) -> Any:
    """An image method's result as a `BridgeImage` (a text connection's data URI decoded), and so each image of
    `template:render`'s variants."""
    if method in IMAGE_METHODS and isinstance(result, dict) and isinstance(result.get("data"), str):
        return BridgeImage.from_data_uri(result)
    if method == "template:render" and isinstance(result, dict) and isinstance(result.get("variants"), list):
        variants = [{**v, "image": _as_image(v["image"])} if isinstance(v, dict) and "image" in v else v for v in result["variants"]]
        return {**result, "variants": variants}
    return result


class Client(MethodGroups):
    """A connection to the bridge.

    `await client.layer.update(layer_id=3, visible=False)` calls a built-in method (every one has a typed helper,
    generated from the bridge's schema); `await client.invoke("name", {...})` calls any method, plugins' too.
    Events are delivered in `seq` order to `on()` listeners or `watch()`; a dropped socket is opened again with
    backoff and the logical client resumed, with `$lost` when events were missed.

    Use it as `async with Client(url, token=...) as client:`, or `await client.connect()` and `await client.close()`.
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        token: str | None = None,
        name: str | None = None,
        plugin_id: str | None = None,
        binary: bool = True,
        reconnect: ReconnectOptions | bool = True,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        max_queued: int = DEFAULT_MAX_QUEUED,
        on_lost: Callable[[LostNotice], object] | None = None,
    ) -> None:
        super().__init__(self._call)
        self.ws_url, self.http_url = endpoints(url, plugin_id)
        self._token = token
        self._name = name
        self._binary = binary
        self._reconnect: ReconnectOptions | None = (
            reconnect if isinstance(reconnect, ReconnectOptions) else ReconnectOptions() if reconnect else None
        )
        self._request_timeout = request_timeout
        self._connect_timeout = connect_timeout
        self._max_in_flight = max_in_flight
        self._max_queued = max_queued
        self._hello: dict[str, Any] | None = None
        self._socket: _ws.Socket | None = None
        self._state: Literal["idle", "connecting", "open", "reconnecting", "closed"] = "idle"
        self._final_error: BridgeError | None = None
        self._ids = itertools.count(1)
        self._pending: dict[str, _Pending] = {}
        self._outbox: deque[str] = deque()
        self._in_flight = 0
        self._send_lock: asyncio.Lock | None = None
        self._flushing = False
        self._held: _HeldAnswer | None = None
        self._sequence = _Sequence()
        self._subscriptions: dict[str, _Subscription] = {}
        self._local: dict[str, list[tuple[Listener, bool]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._opened: asyncio.Future[dict[str, Any]] | None = None
        self._policy_closes = 0
        if on_lost is not None:
            callback = on_lost
            self.on("$lost", lambda event: callback(event.data))

    @classmethod
    def sync(cls, url: str = DEFAULT_URL, **options: Any) -> SyncClient:
        """A blocking client for scripts: the same methods without `await`, run on an event loop in a thread of
        its own. Takes the constructor's options; connects before it returns. Close it (or use `with`)."""
        from .sync import SyncClient

        return SyncClient(url, **options)

    # ——— lifecycle ———

    @property
    def client_id(self) -> str | None:
        """The logical client's id (stable across resumes). A bearer secret: keep it like a token."""
        return None if self._hello is None else str(self._hello.get("clientId"))

    @property
    def hello(self) -> dict[str, Any] | None:
        """The last `connected` handshake: `clientId`, `resumed`, `protocolVersion`, `features`, `replayed`, `lost`."""
        return self._hello

    @property
    def state(self) -> str:
        """`idle`, `connecting`, `open`, `reconnecting` (the socket is away) or `closed` (for good)."""
        return self._state

    async def connect(self) -> dict[str, Any]:
        """Opens the connection and returns the `connected` handshake. Raises `BridgeError` when the bridge refuses
        (`UNAUTHORIZED` for a wrong token) or cannot be reached (`CONNECTION_FAILED`)."""
        if self._state == "open" and self._hello is not None:
            return self._hello
        if self._state == "closed":
            raise self._final_error or BridgeError("CONNECTION_CLOSED", "The connection was closed")
        self._send_lock = asyncio.Lock()
        self._state = "connecting"
        try:
            socket, hello = await self._open()
        except BridgeError as error:
            self._state = "closed"
            self._final_error = error
            raise
        self._socket = socket
        self._runner = asyncio.get_running_loop().create_task(self._run(socket))
        self._on_connected(hello)
        return hello

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        """Ends the connection and disposes the logical client on the bridge at once (close code 4000). Waiting
        requests fail with CONNECTION_CLOSED."""
        if self._state == "closed" and self._runner is None:
            return
        socket = self._socket
        self._finish(BridgeError("CONNECTION_CLOSED", "The connection was closed"), (DISPOSE, "client closed"))
        runner, self._runner = self._runner, None
        if socket is not None:
            try:
                await asyncio.wait_for(socket.close(DISPOSE, "client closed"), CLOSE_TIMEOUT)
            except (asyncio.TimeoutError, OSError, _ws.ConnectionClosed):
                pass
        if runner is not None:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _socket_url(self) -> str:
        parts = urllib.parse.urlsplit(self.ws_url)
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        if self._hello is not None:
            query.append(("resume", str(self._hello["clientId"])))
        if self._name is not None:
            query.append(("name", self._name))
        if self._binary:
            query.append(("binary", "1"))
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, urllib.parse.urlencode(query), ""))

    async def _open(self) -> tuple[_ws.Socket, dict[str, Any]]:
        """One connect: the socket and its `connected` handshake, or the bridge's reason for refusing."""
        protocols = [SUBPROTOCOL] + ([BEARER_PREFIX + self._token] if self._token else [])
        try:
            socket = await _ws.open_socket(self._socket_url(), protocols, self._connect_timeout)
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException) as error:
            status = _ws.refused_status(error)
            if status == 401:
                raise BridgeError("UNAUTHORIZED", "The bridge refused the token", details={"status": status}) from error
            if status == 403:
                raise BridgeError("FORBIDDEN", "The bridge refused this client", details={"status": status}) from error
            raise BridgeError(
                "CONNECTION_FAILED", f"Cannot connect to {self.ws_url}: {error}", retryable=True, details={"status": status}
            ) from error
        try:
            first = await asyncio.wait_for(socket.recv(), self._connect_timeout)
            frame = json.loads(first) if isinstance(first, str) else None
        except (asyncio.TimeoutError, _ws.ConnectionClosed, ValueError) as error:
            await _quiet_close(socket)
            raise BridgeError("CONNECTION_FAILED", f"No handshake from {self.ws_url}: {error}", retryable=True) from error
        if isinstance(frame, dict) and frame.get("type") == "connected" and isinstance(frame.get("data"), dict):
            return socket, frame["data"]
        await _quiet_close(socket)
        data = frame.get("data") if isinstance(frame, dict) else None
        if looks_like_error(data):
            raise BridgeError.from_wire(data)
        raise BridgeError("CONNECTION_FAILED", f"{self.ws_url} did not answer with a connected handshake")

    def _on_connected(self, hello: dict[str, Any]) -> None:
        previous = self.client_id
        forgotten = previous is not None and hello.get("resumed") is not True
        self._hello = hello
        self._state = "open"
        if forgotten:
            # A new logical client: answers to what the old one was asked can never come, and it has no subscriptions.
            self._sequence = _Sequence()
            for pending in list(self._pending.values()):
                if pending.sent_to == previous:
                    self._settle(
                        pending,
                        error=BridgeError(
                            "CONNECTION_LOST",
                            f"{pending.method} was lost: the bridge no longer knew this client",
                            request_id=pending.id,
                            method=pending.method,
                            retryable=True,
                            details={"outcome": "unknown"},
                        ),
                    )
            for subscription in self._subscriptions.values():
                subscription.active = False
        resumed = hello.get("resumed") is True
        self._sequence.start_replay(int(hello.get("replayed", 0)) if resumed else 0, int(hello.get("lost", 0)) if resumed else 0)
        self._flush()
        resync = self._spawn(self._resync())
        if forgotten:
            # Tell the app to re-read state only once its subscriptions are back, so nothing falls between.
            resync.add_done_callback(lambda _: self._emit_local("$lost", LostNotice(reason="new-client", events=None, frames=None)))
        self._emit_local("$open", hello)

    async def _run(self, socket: _ws.Socket) -> None:
        """Reads the socket until it closes, then opens another with backoff and resumes, until the end."""
        while True:
            code, reason = await self._read(socket)
            self._socket = None
            if self._held is not None:
                frame = self._held.frame
                self._held = None
                self._answer(_lost_image(frame, "The connection closed before the image arrived"))
            if self._state == "closed":
                return
            if code in FINAL_CLOSE_CODES or self._reconnect is None:
                self._finish(BridgeError("CONNECTION_LOST", f"The bridge closed the connection ({code} {reason})".strip(), details={"code": code}), (code, reason))
                return
            if code == POLICY_VIOLATION:
                self._policy_closes += 1
            self._state = "reconnecting"
            self._emit_local("$close", {"code": code, "reason": reason, "willReconnect": True})
            attempt = 0
            while True:
                attempt += 1
                if attempt > self._reconnect.max_attempts:
                    self._finish(BridgeError("CONNECTION_LOST", f"Gave up reconnecting after {attempt - 1} attempts", retryable=True), None)
                    return
                delay = self._reconnect.delay(attempt + self._policy_closes)
                self._emit_local("$reconnecting", {"attempt": attempt, "delay": delay})
                await asyncio.sleep(delay)
                try:
                    socket, hello = await self._open()
                except BridgeError as error:
                    if error.code in ("UNAUTHORIZED", "FORBIDDEN", "CLIENT_ATTACHED"):
                        self._finish(error, None)
                        return
                    continue
                self._socket = socket
                self._on_connected(hello)
                break

    async def _read(self, socket: _ws.Socket) -> tuple[int, str]:
        while True:
            try:
                message = await socket.recv()
            except _ws.ConnectionClosed as closed:
                return _ws.close_of(closed)
            except OSError as error:
                return 1006, str(error)
            self._sequence.count_frame()
            if isinstance(message, str):
                self._on_text(message)
            else:
                self._on_binary(bytes(message))
            notice = self._sequence.take_replay_loss()
            if notice is not None:
                self._emit_local("$lost", notice)

    def _on_text(self, text: str) -> None:
        try:
            frame = json.loads(text)
        except ValueError:
            return
        if not isinstance(frame, dict):
            return
        if "ok" in frame and "id" in frame:
            result = frame.get("result")
            references = _image_references(result, []) if frame.get("ok") is True else []
            if references:
                by_part: list[dict[str, Any] | None] = [None] * len(references)
                for reference in references:
                    n = reference["data"]["binary"]
                    if n >= len(by_part) or by_part[n] is not None:
                        self._answer(_lost_image(frame, "The answer's binary part numbers are not 0, 1, … each once"))
                        return
                    by_part[n] = reference
                self._held = _HeldAnswer(frame, [r for r in by_part if r is not None])
                return
            if frame.get("ok") is True:
                self._policy_closes = 0
            self._answer(frame)
        elif isinstance(frame.get("type"), str):
            self._on_event(frame["type"], frame.get("data"), frame.get("seq"))

    def _on_binary(self, message: bytes) -> None:
        held = self._held
        if held is None:
            return
        frame = held.frame
        n = len(held.images)
        reference = held.references[n]
        decoded = _read_binary(message)
        if decoded is None or decoded[0] != str(frame["id"]) or decoded[1] != n or len(decoded[2]) != reference["data"]["bytes"]:
            self._held = None
            self._answer(_lost_image(frame, "The binary message did not match its answer"))
            return
        held.images.append(BridgeImage.from_result(reference, decoded[2], str(reference["data"]["mime"])))
        if len(held.images) < len(held.references):
            return
        self._held = None
        self._answer({**frame, "result": _with_images(frame["result"], held.images)})

    def _on_event(self, kind: str, data: Any, seq: Any) -> None:
        if not isinstance(seq, int):
            if kind == "error":
                error = BridgeError.from_wire(data) if looks_like_error(data) else BridgeError("INTERNAL", "The bridge reported an error")
                self._emit_local("$error", error)
            elif kind == "progress" and isinstance(data, dict):
                pending = self._pending.get(str(data.get("requestId")))
                if pending is not None and pending.on_progress is not None and isinstance(data.get("progress"), (int, float)):
                    total, message = data.get("total"), data.get("message")
                    report = Progress(
                        float(data["progress"]),
                        float(total) if isinstance(total, (int, float)) else None,
                        message if isinstance(message, str) else None,
                    )
                    self._call_listener(pending.on_progress, report)
            return
        gap = self._sequence.accept(seq)
        if gap is None:
            return
        if gap > 0:
            self._emit_local("$lost", LostNotice(reason="gap", events=gap, frames=None))
        subscription = self._subscriptions.get(kind)
        if subscription is None:
            return
        event = Event(kind, data, seq)
        for listener, once in list(subscription.listeners):
            if once:
                self.off(kind, listener)
            self._call_listener(listener, event)

    def _finish(self, error: BridgeError, closed: tuple[int, str] | None) -> None:
        """Ends the connection for good: everything waiting fails with `error`."""
        if self._state == "closed":
            return
        was_open = self._hello is not None
        self._state = "closed"
        self._final_error = error
        for pending in list(self._pending.values()):
            self._settle(
                pending,
                error=BridgeError(
                    error.code,
                    error.message,
                    request_id=pending.id,
                    method=pending.method,
                    retryable=error.retryable,
                    details={**(error.details or {}), "outcome": "not-sent" if pending.sent_to is None else "unknown"},
                ),
            )
        if was_open:
            code, reason = closed if closed is not None else (1006, error.message)
            self._emit_local("$close", {"code": code, "reason": reason, "willReconnect": False})

    # ——— requests ———

    async def invoke(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """Calls any method by name: built-ins (the typed helpers call this) and a plugin endpoint's own. Images
        come as `BridgeImage`. Raises `BridgeError`; cancelling the awaiting task cancels the request on the bridge."""
        return await self._call(method, params, timeout, on_progress)

    async def _call(self, method: str, params: dict[str, Any] | None, timeout: float | None, on_progress: ProgressCallback | None) -> Any:
        if self._state == "closed" or self._state == "idle":
            raise self._final_error or BridgeError("CONNECTION_CLOSED", "Not connected: call connect() or use `async with`", method=method)
        if len(self._outbox) >= self._max_queued:
            raise BridgeError("TOO_MANY_REQUESTS", f"{len(self._outbox)} requests are already waiting to be sent", method=method, retryable=True)
        request_id = str(next(self._ids))
        pending = _Pending(request_id, method, params, asyncio.get_running_loop().create_future(), on_progress)
        self._pending[request_id] = pending
        limit = self._request_timeout if timeout is None else timeout
        try:
            if not self._outbox and self._can_send():
                await self._transmit(pending)
            else:
                self._outbox.append(request_id)
                self._flush()
            result = await asyncio.wait_for(pending.future, limit)
        except asyncio.TimeoutError:
            raise BridgeError(
                "TIMEOUT",
                f"{method} got no answer within {limit} s",
                request_id=request_id,
                method=method,
                retryable=pending.sent_to is None,
                details={"timeout": limit, "outcome": "not-sent" if pending.sent_to is None else "unknown"},
            ) from None
        except asyncio.CancelledError:
            if pending.sent_to is not None and pending.sent_to == self.client_id and self._pending.get(request_id) is pending:
                self._cancel_on_bridge(request_id)
            raise
        finally:
            self._forget(pending)
        return _image_result(method, result)

    def _can_send(self) -> bool:
        return self._state == "open" and self._socket is not None and self._in_flight < self._max_in_flight

    async def _transmit(self, pending: _Pending) -> None:
        """Writes one request (and its binary parts right after it) to the socket."""
        socket, hello = self._socket, self._hello
        if socket is None or hello is None or self._send_lock is None:
            self._outbox.appendleft(pending.id)
            return
        frame, parts = self._encode(pending, "binary" in (hello.get("features") or []))
        pending.sent_to = str(hello["clientId"])
        self._in_flight += 1
        try:
            async with self._send_lock:
                await socket.send(frame)
                for part in parts:
                    await socket.send(part)
        except (_ws.ConnectionClosed, OSError):
            pass  # the reader sees the close; a resumed client gets the answer replayed

    def _encode(self, pending: _Pending, binary: bool) -> tuple[str, list[bytes]]:
        frame: dict[str, Any] = {"id": pending.id, "method": pending.method}
        parts: list[bytes] = []
        if pending.params is not None:
            params: dict[str, Any] = {}
            for key, value in pending.params.items():
                if isinstance(value, (bytes, bytearray, memoryview, BridgeImage)):
                    data = bytes(value)
                    if binary:
                        params[key] = {"binary": len(parts)}
                        parts.append(_binary_header(pending.id, len(parts)) + data)
                    else:
                        params[key] = BridgeImage.from_result({}, data, _sniff_mime(data)).data_uri
                else:
                    params[key] = value
            frame["params"] = params
        if pending.on_progress is not None:
            frame["progress"] = True
        return json.dumps(frame, separators=(",", ":")), parts

    def _flush(self) -> None:
        """Sends waiting requests in order while the socket takes them."""
        if self._flushing or not self._outbox or not self._can_send():
            return
        self._flushing = True

        async def drain() -> None:
            try:
                while self._outbox and self._can_send():
                    pending = self._pending.get(self._outbox.popleft())
                    if pending is not None:
                        await self._transmit(pending)
            finally:
                self._flushing = False
            if self._outbox and self._can_send():
                self._flush()

        self._spawn(drain())

    def _answer(self, frame: dict[str, Any]) -> None:
        request_id = str(frame.get("id"))
        if request_id.startswith(CANCEL_PREFIX):
            return
        pending = self._pending.get(request_id)
        if pending is None:
            return
        if frame.get("ok") is True:
            self._settle(pending, result=frame.get("result"))
        else:
            error = frame.get("error")
            self._settle(
                pending,
                error=BridgeError.from_wire(error) if looks_like_error(error) else BridgeError("INTERNAL", "Malformed error response", request_id=request_id),
            )

    def _settle(self, pending: _Pending, *, result: Any = None, error: BridgeError | None = None) -> None:
        self._forget(pending)
        if pending.future.done():
            return
        if error is not None:
            pending.future.set_exception(error)
        else:
            pending.future.set_result(result)

    def _forget(self, pending: _Pending) -> None:
        if self._pending.get(pending.id) is not pending:
            return
        del self._pending[pending.id]
        if pending.sent_to is not None:
            self._in_flight -= 1
        else:
            try:
                self._outbox.remove(pending.id)
            except ValueError:
                pass
        if self._outbox:
            self._flush()

    def _cancel_on_bridge(self, request_id: str) -> None:
        """Asks the bridge to stop a request nobody waits for any more. Fire and forget: its answer is dropped."""
        socket, hello = self._socket, self._hello
        if socket is None or hello is None or "cancel" not in (hello.get("features") or []) or self._send_lock is None:
            return
        frame = json.dumps({"id": CANCEL_PREFIX + request_id, "method": "request:cancel", "params": {"id": request_id}})
        lock, target = self._send_lock, socket

        async def send() -> None:
            async with lock:
                try:
                    await target.send(frame)
                except (_ws.ConnectionClosed, OSError):
                    pass

        self._spawn(send())

    async def batch(
        self,
        calls: Sequence[BatchCall],
        *,
        halt_on_failure: bool = False,
        atomic: bool = False,
        timeout: float | None = None,
    ) -> list[BatchOutcome]:
        """Sends several calls as one `batch` request: they run in order, each after the previous one answered,
        and the answer lists each outcome (images as `BridgeImage`). `halt_on_failure` stops at the first failure
        (the calls after it have no outcome). `atomic` runs them as one change of one document: when one fails,
        what the ones before it changed is undone (they answer `ROLLED_BACK`). Raises only when the batch itself
        is refused or unanswered."""
        params: dict[str, Any] = {"requests": [dict(call) for call in calls]}
        if halt_on_failure:
            params["haltOnFailure"] = True
        if atomic:
            params["atomic"] = True
        entries = await self._call("batch", params, timeout, None)
        outcomes: list[BatchOutcome] = []
        for call, entry in zip(calls, entries):
            entry_id = entry.get("id") if isinstance(entry.get("id"), str) else None
            if entry.get("ok") is True:
                outcomes.append(BatchOutcome(True, _image_result(call["method"], entry.get("result")), None, entry_id))
            else:
                error = entry.get("error")
                failure = BridgeError.from_wire(error) if looks_like_error(error) else BridgeError("INTERNAL", "Malformed batch entry")
                outcomes.append(BatchOutcome(False, None, failure, entry_id))
        return outcomes

    # ——— events ———

    def on(self, kind: str, listener: Listener, *, once: bool = False) -> Callable[[], None]:
        """Adds a listener of an event type (`"selection:changed"`, a plugin's type, or a local `$`-name). The first
        listener of a bridge event subscribes on the wire, the last one removed unsubscribes; a refused subscription
        goes to `$error`. Returns a function that removes the listener."""
        if kind.startswith("$"):
            self._local.setdefault(kind, []).append((listener, once))
        else:
            subscription = self._subscriptions.setdefault(kind, _Subscription())
            subscription.listeners.append((listener, once))
            if len(subscription.listeners) == 1 and self._state in ("open", "reconnecting", "connecting"):
                task = self._spawn(self._sync_subscription(kind))
                task.add_done_callback(lambda done: None if done.cancelled() or done.exception() is None else self._refused(kind, done.exception()))
        return lambda: self.off(kind, listener)

    def off(self, kind: str, listener: Listener) -> None:
        """Removes one registration of a listener; the last one of a bridge event unsubscribes on the wire."""
        entries = self._local.get(kind) if kind.startswith("$") else (self._subscriptions[kind].listeners if kind in self._subscriptions else None)
        if entries is None:
            return
        for index, (registered, _) in enumerate(entries):
            if registered == listener:
                del entries[index]
                break
        if not kind.startswith("$") and not entries and self._state == "open":
            self._spawn(self._sync_subscription(kind))

    async def subscribe(self, kind: str, listener: Listener) -> Callable[[], None]:
        """Like `on()`, but returns once the bridge confirmed the subscription; raises `BridgeError` (e.g.
        `BAD_REQUEST` for an unknown type) without keeping the listener."""
        subscription = self._subscriptions.setdefault(kind, _Subscription())
        subscription.listeners.append((listener, False))
        try:
            await self._sync_subscription(kind)
        except BaseException:
            self.off(kind, listener)
            raise
        return lambda: self.off(kind, listener)

    async def watch(self, *kinds: str) -> AsyncIterator[Event]:
        """The events of `kinds` as they come, in `seq` order, and `$lost` notices among them (re-read your state
        then). Subscribes first; stops listening when the loop ends (use `contextlib.aclosing` to end it at once)."""
        queue: asyncio.Queue[Event] = asyncio.Queue()
        put = queue.put_nowait
        removers = [self.on("$lost", put)]
        try:
            for kind in kinds:
                removers.append(await self.subscribe(kind, put))
            while True:
                yield await queue.get()
        finally:
            for remove in removers:
                remove()

    async def _sync_subscription(self, kind: str) -> None:
        """Makes the bridge's subscription of `kind` match whether it has listeners."""
        subscription = self._subscriptions.get(kind)
        if subscription is None:
            return
        async with subscription.lock:
            wanted = bool(subscription.listeners)
            if wanted == subscription.active:
                if not wanted:
                    self._subscriptions.pop(kind, None)
                return
            answer = await self._call("event:subscribe" if wanted else "event:unsubscribe", {"type": kind}, None, None)
            subscription.active = bool(answer.get("subscribed")) if isinstance(answer, dict) else wanted
            if not subscription.listeners and not subscription.active:
                self._subscriptions.pop(kind, None)

    async def _resync(self) -> None:
        for kind in list(self._subscriptions):
            try:
                await self._sync_subscription(kind)
            except BridgeError as error:
                self._refused(kind, error)

    def _refused(self, kind: str, error: BaseException | None) -> None:
        subscription = self._subscriptions.pop(kind, None)
        if subscription is not None and not subscription.active and isinstance(error, BridgeError):
            self._emit_local("$error", error)

    def _emit_local(self, kind: LocalEventName, data: Any) -> None:
        entries = self._local.get(kind)
        if not entries:
            return
        event = Event(kind, data)
        for listener, once in list(entries):
            if once:
                self.off(kind, listener)
            self._call_listener(listener, event)

    def _call_listener(self, listener: Callable[[Any], object], value: Any) -> None:
        try:
            outcome = listener(value)
            if inspect.isawaitable(outcome):
                self._spawn(_awaited(outcome))
        except Exception as error:  # a listener's failure must not stop the others or the reader
            if not (isinstance(value, Event) and value.type == "$error"):
                failure = BridgeError("LISTENER_FAILED", f"A listener failed: {error!r}")
                failure.__cause__ = error
                self._emit_local("$error", failure)

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


async def _awaited(outcome: Any) -> None:
    await outcome


async def _quiet_close(socket: _ws.Socket) -> None:
    try:
        await asyncio.wait_for(socket.close(), CLOSE_TIMEOUT)
    except (asyncio.TimeoutError, OSError, _ws.ConnectionClosed):
        pass


def _lost_image(frame: dict[str, Any], message: str) -> dict[str, Any]:
    return {
        "id": frame.get("id"),
        "ok": False,
        "error": {"code": "CONNECTION_LOST", "message": message, "retryable": True, "details": {"outcome": "unknown"}},
    }


def _sniff_mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"
