"""A typed Python client for image-editor-bridge: asynchronous (`Client`) and blocking (`Client.sync`).

    async with Client("http://127.0.0.1:7700", token="…") as client:
        doc = await client.document.current()
        await client.layer.update(layer_id=3, visible=False)
"""

from ._base import OMITTED, Omitted, Progress, ProgressCallback
from ._generated import EVENT_TYPES, IMAGE_METHODS, METHOD_NAMES, SERVER_VERSION, EventName
from .client import BatchCall, BatchOutcome, Client, Event, Listener, LostNotice, ReconnectOptions
from .errors import CLIENT_ERROR_CODES, BridgeError
from .image import BridgeImage
from .sync import SyncClient

__all__ = [
    "CLIENT_ERROR_CODES",
    "EVENT_TYPES",
    "IMAGE_METHODS",
    "METHOD_NAMES",
    "OMITTED",
    "SERVER_VERSION",
    "BatchCall",
    "BatchOutcome",
    "BridgeError",
    "BridgeImage",
    "Client",
    "Event",
    "EventName",
    "Listener",
    "LostNotice",
    "Omitted",
    "Progress",
    "ProgressCallback",
    "ReconnectOptions",
    "SyncClient",
]
