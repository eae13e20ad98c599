"""The client's one error class, with the bridge's error fields."""

from __future__ import annotations

from typing import Any, Final, TypeGuard

CLIENT_ERROR_CODES: Final = frozenset(
    {"TIMEOUT", "CONNECTION_FAILED", "CONNECTION_LOST", "CONNECTION_CLOSED", "TOO_MANY_REQUESTS", "LISTENER_FAILED"}
)
"""Codes the client raises itself, besides the bridge's. None means the bridge refused the request;
`details["outcome"]` says whether it may still have run (`"unknown"`, `"not-sent"`)."""


class BridgeError(Exception):
    """Every failure the client reports: an error the bridge answered (same fields as its `ProtocolError`) or
    one of `CLIENT_ERROR_CODES`. `retryable` tells whether sending the same request again may succeed."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        retryable: bool = False,
        source: str | None = None,
        request_id: str | None = None,
        method: str | None = None,
        plugin_id: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details
        self.retryable = retryable
        self.source = source
        self.request_id = request_id
        self.method = method
        self.plugin_id = plugin_id

    @property
    def retry_after_ms(self) -> float | None:
        """How long the bridge asked to wait before sending again (its `details.retryAfterMs`), if it named a wait."""
        wait = (self.details or {}).get("retryAfterMs")
        return float(wait) if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait >= 0 else None

    @classmethod
    def from_wire(cls, error: dict[str, Any]) -> BridgeError:
        """The error a bridge answered (`{"code", "message", "details"?, "retryable"?, …}`)."""
        details = error.get("details")
        return cls(
            str(error.get("code", "INTERNAL")),
            str(error.get("message", "The bridge reported an error")),
            details=details if isinstance(details, dict) else None,
            retryable=error.get("retryable") is True,
            source=_text(error.get("source")),
            request_id=_text(error.get("requestId")),
            method=_text(error.get("method")),
            plugin_id=_text(error.get("pluginId")),
        )

    def to_wire(self) -> dict[str, Any]:
        """The wire shape, e.g. to print as JSON."""
        out: dict[str, Any] = {"code": self.code, "message": self.message, "retryable": self.retryable}
        for key, value in (
            ("details", self.details),
            ("source", self.source),
            ("requestId", self.request_id),
            ("method", self.method),
            ("pluginId", self.plugin_id),
        ):
            if value is not None:
                out[key] = value
        return out

    def __repr__(self) -> str:
        return f"BridgeError(code={self.code!r}, message={self.message!r}, details={self.details!r}, retryable={self.retryable!r})"


def looks_like_error(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether a value has the wire error's two required fields."""
    return isinstance(value, dict) and isinstance(value.get("code"), str) and isinstance(value.get("message"), str)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
