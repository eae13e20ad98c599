"""Images the bridge answers: the encoded bytes, what they are, and `save(path)`."""

from __future__ import annotations

import base64
import os
import tempfile
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BridgeImage:
    """An image a method returned (`image.export_document`, `image.get_preview`, …). `data` is the encoded file
    (PNG, JPEG or WebP) as it came off the wire; `bytes(image)` gives it too."""

    data: bytes
    mime: str
    format: str
    width: int
    height: int
    bounds: dict[str, Any]

    def __bytes__(self) -> bytes:
        return self.data

    @property
    def data_uri(self) -> str:
        """The image as a `data:` URI, as a text-only connection receives it."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the bytes to `path` atomically: a temporary file beside it, renamed over it once complete, so a
        crash leaves the old file or the new one, never half of one."""
        target = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(target))
        handle, temporary = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(self.data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
        except BaseException:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
            raise

    @classmethod
    def from_result(cls, result: dict[str, Any], data: bytes, mime: str) -> BridgeImage:
        """An image result's fields with its bytes (from a binary message or a decoded data URI)."""
        bounds = result.get("bounds")
        return cls(
            data=data,
            mime=mime,
            format=str(result.get("format", mime.rpartition("/")[2])),
            width=int(result.get("width", 0)),
            height=int(result.get("height", 0)),
            bounds=bounds if isinstance(bounds, dict) else {},
        )

    @classmethod
    def from_data_uri(cls, result: dict[str, Any]) -> BridgeImage:
        """An image result as a text connection answers it (`data` is a base64 data URI)."""
        uri = str(result["data"])
        header, _, payload = uri.partition(",")
        mime = header[len("data:") :].split(";")[0] or "application/octet-stream"
        return cls.from_result(result, base64.b64decode(payload), mime)
