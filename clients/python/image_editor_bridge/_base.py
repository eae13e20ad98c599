"""What the generated methods and the client share: the omitted-argument marker, progress, callers."""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Protocol


class Omitted(enum.Enum):
    """The type of `OMITTED`: an argument left out, for params where `None` means JSON `null`."""

    OMITTED = "OMITTED"


OMITTED: Final = Omitted.OMITTED
"""Default of a param that takes `None` as a value (`selection.set(rect=None)` sends `null`)."""


@dataclass(frozen=True)
class Progress:
    """A `progress` report about one request. Without `total`, `progress` is a fraction of 1."""

    progress: float
    total: float | None = None
    message: str | None = None


ProgressCallback = Callable[[Progress], object]
"""Receives a request's progress reports until it is answered."""


class AsyncCaller(Protocol):
    """Sends one request and returns its result."""

    def __call__(
        self, method: str, params: dict[str, Any], timeout: float | None, on_progress: ProgressCallback | None
    ) -> Awaitable[Any]: ...


class SyncCaller(Protocol):
    """Sends one request, blocks until it is answered and returns its result."""

    def __call__(
        self, method: str, params: dict[str, Any], timeout: float | None, on_progress: ProgressCallback | None
    ) -> Any: ...


def _pick(*pairs: tuple[str, object, bool]) -> dict[str, Any]:
    """The params as sent: `(wire name, value, nullable)`; left-out values (`None`, or `OMITTED`) are not sent."""
    out: dict[str, Any] = {}
    for key, value, nullable in pairs:
        if value is OMITTED or (value is None and not nullable):
            continue
        out[key] = value
    return out
