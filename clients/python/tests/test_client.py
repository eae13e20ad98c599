"""The client against real bridges: every method group, events across a dropped socket, binary images,
cancellation, atomic batches, errors and plugin endpoints."""

from __future__ import annotations

import asyncio
import json
import struct
import urllib.request
import zlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from conftest import TOKEN, Bridge

from image_editor_bridge import BridgeError, BridgeImage, Client, Event, Progress, ReconnectOptions
from image_editor_bridge._generated import TemplateRenderVariantsItem
from image_editor_bridge.client import _binary_header, _Pending, _Sequence, endpoints

T = TypeVar("T")
WAIT = 60.0
"""Seconds a test waits for something that must happen; generous for a loaded machine, never a verdict."""


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(asyncio.wait_for(scenario(), 4 * WAIT))


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, checked against its CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    body = data[16 : 16 + length]
    (crc,) = struct.unpack(">I", data[16 + length : 20 + length])
    assert zlib.crc32(kind + body) == crc, "IHDR CRC mismatch"
    width, height = struct.unpack(">II", body[:8])
    return width, height


def test_every_method_group_once(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN, name="py-groups") as client:
            info = await client.get_server_info()
            assert info["name"] == "image-editor-bridge"
            assert (await client.server.ping())["pong"] is True
            assert any(c["name"] == "py-groups" for c in (await client.server.clients())["clients"])
            doc = await client.document.create(width=64, height=48, name="groups")
            assert (await client.document.current())["id"] == doc["id"]
            assert any(d["id"] == doc["id"] for d in await client.document.list())
            layer = await client.layer.create(name="Paint", fill_color="#ff0000")
            updated = await client.layer.update(layer_id=layer["id"], opacity=40, visible=False)
            assert updated["opacity"] == 40 and updated["visible"] is False
            assert (await client.layer.get_info_by_id(layer_id=layer["id"]))["name"] == "Paint"
            assert [entry["name"] for entry in await client.document.layers()][0] == "Paint"
            rect = await client.selection.set(rect={"x": 4, "y": 4, "width": 20, "height": 10})
            assert rect == {"x": 4, "y": 4, "width": 20, "height": 10}
            assert await client.selection.get_area() == rect
            await client.selection.set(rect=None)  # an explicit null, not a left-out argument
            assert await client.selection.get_area() is None
            history = await client.history.list()
            assert history["current"] >= 2
            undone = await client.history.undo()
            assert undone["current"] == history["current"] - 1
            preview = await client.image.export_layer(layer_id=layer["id"], max_size=32)
            assert isinstance(preview, BridgeImage) and max(preview.width, preview.height) <= 32
            assert isinstance(await client.action.auto_cutout(method="flood"), bool)
            assert (await client.jsx.run(script="6 * 7"))["result"] == 42
            assert isinstance((await client.webhook.list())["webhooks"], list)
            assert (await client.batch([{"method": "server:ping"}]))[0].ok
            await client.document.close(document_id=doc["id"])

    run(scenario)


def test_events_in_seq_order_resume_across_a_bridge_side_drop(bridge: Bridge) -> None:
    async def scenario() -> None:
        events: list[Event] = []
        lost: list[Any] = []
        closes: list[Any] = []
        five = asyncio.Event()
        # A second's wait before resuming, so the changes below happen while the socket is away (replayed).
        watcher = Client(bridge.url, token=TOKEN, reconnect=ReconnectOptions(initial_delay=1.0, jitter=0.0), on_lost=lost.append)
        async with watcher, Client(bridge.url, token=TOKEN) as operator:
            doc = await operator.document.create(width=40, height=40, name="events")

            def seen(event: Event) -> None:
                events.append(event)
                if len(events) == 5:
                    five.set()

            await watcher.subscribe("selection:changed", seen)
            watcher.on("$close", lambda event: closes.append(event.data))
            before = watcher.client_id
            assert before is not None
            # The bridge closes the watcher's socket (4010); the logical client stays resumable.
            await operator.server.disconnect_client(client_id_prefix=before[:8])
            for n in range(1, 6):
                await operator.selection.set(rect={"x": n, "y": n, "width": 10, "height": 10})
            # A request made while the socket is away waits for the resume.
            current = await watcher.document.current(timeout=WAIT)
            assert current["id"] == doc["id"]
            await asyncio.wait_for(five.wait(), WAIT)
            assert watcher.client_id == before and watcher.hello is not None and watcher.hello["resumed"] is True
            assert closes and closes[0]["code"] == 4010 and closes[0]["willReconnect"] is True
            seqs = [event.seq or 0 for event in events]
            assert seqs == list(range(seqs[0], seqs[0] + 5)), seqs
            assert [event.data["x"] for event in events] == [1, 2, 3, 4, 5]
            assert lost == []
            await operator.document.close(document_id=doc["id"])

    run(scenario)


def test_sequence_reports_gaps_duplicates_and_replay_loss() -> None:
    sequence = _Sequence()
    assert sequence.accept(1) == 0
    assert sequence.accept(1) is None  # a duplicate is dropped
    assert sequence.accept(4) == 2  # two events skipped
    sequence.start_replay(2, 3)
    sequence.count_frame()
    assert sequence.accept(9) == 0  # counted into the replay loss instead
    assert sequence.take_replay_loss() is None  # the replay is not over
    sequence.count_frame()
    assert sequence.take_replay_loss() == {"reason": "replay-overflow", "events": 4, "frames": 3}
    assert sequence.take_replay_loss() is None


def test_endpoints() -> None:
    assert endpoints("http://127.0.0.1:7700", None) == ("ws://127.0.0.1:7700/ws", "http://127.0.0.1:7700")
    assert endpoints("wss://h:1/ws", "stats") == ("wss://h:1/ws/stats", "https://h:1")
    with pytest.raises(ValueError):
        endpoints("ftp://h", None)


def test_binary_export_decodes_to_the_document_size(bridge: Bridge, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client, Client(bridge.url, token=TOKEN, binary=False) as text:
            assert "binary" in (client.hello or {})["features"]
            doc = await client.document.create(width=123, height=45, name="binary")
            image = await client.image.export_document(document_id=doc["id"], format="png")
            assert isinstance(image, BridgeImage) and image.mime == "image/png"
            assert png_size(image.data) == (123, 45) == (image.width, image.height)
            target = tmp_path / "export.png"
            image.save(target)
            assert target.read_bytes() == image.data == bytes(image)
            # A text connection gets a data URI; the client decodes it to the same kind of image.
            inline = await text.image.export_document(document_id=doc["id"], format="png")
            assert png_size(inline.data) == (123, 45)
            # Bytes as a param go as a binary part.
            imported = await client.layer.import_image(document_id=doc["id"], image=image.data, name="copy")
            assert imported["name"] == "copy"
            await client.document.close(document_id=doc["id"])

    run(scenario)


def test_template_render_images_arrive_as_binary_parts(bridge: Bridge, tmp_path: Path) -> None:
    """Three variants answered inline: over a binary socket each image is a binary part; the client puts a
    BridgeImage where each reference was, with the bytes a text connection's data URIs decode to."""

    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client, Client(bridge.url, token=TOKEN, binary=False) as text:
            doc = await client.document.create(width=40, height=20, name="template")
            sizes = [(30, 20), (50, 24), (64, 10)]
            variants: list[TemplateRenderVariantsItem] = [
                {"id": f"v{n}", "edits": [{"method": "document:resize", "params": {"width": w, "height": h}}]} for n, (w, h) in enumerate(sizes)
            ]
            params: dict[str, Any] = {"template": {"documentId": doc["id"]}, "variants": variants, "output": {"format": "png"}}
            typed = await client.template.render(template={"documentId": doc["id"]}, variants=variants, output={"format": "png"})
            binary = await client.invoke("template:render", params)
            inline = await text.invoke("template:render", params)
            await client.document.close(document_id=doc["id"])
            assert [v["id"] for v in binary["variants"]] == ["v0", "v1", "v2"]
            for (w, h), got, want in zip(sizes, binary["variants"], inline["variants"], strict=True):
                image = got["image"]
                assert got["ok"] is True and isinstance(image, BridgeImage) and image.mime == "image/png"
                assert png_size(image.data) == (w, h) == (image.width, image.height)
                assert isinstance(want["image"], BridgeImage) and want["image"].data == image.data
            # The typed helper's result says what the client gives: a `BridgeImage` with `save`.
            target = tmp_path / "v1.png"
            typed["variants"][1]["image"].save(target)
            assert target.read_bytes() == binary["variants"][1]["image"].data

    run(scenario)


def test_an_answer_waits_for_all_its_binary_parts() -> None:
    """An answer naming parts 0..2 is held until the third binary message, then carries an image at each place; a
    part out of order fails that request alone."""

    def reference(n: int, size: int) -> dict[str, Any]:
        return {"data": {"binary": n, "mime": "image/png", "bytes": size}, "format": "png", "width": n + 1, "height": 1, "bounds": {}}

    async def scenario() -> None:
        client = Client("http://127.0.0.1:9")  # never connected: frames are fed in as the reader would
        loop = asyncio.get_running_loop()
        pending = _Pending("r1", "template:render", None, loop.create_future(), None)
        client._pending["r1"] = pending
        variants = [{"id": str(n), "ok": True, "image": reference(n, 3 + n)} for n in range(3)]
        client._on_text(json.dumps({"id": "r1", "ok": True, "result": {"variants": variants}}))
        for n in range(3):
            assert not pending.future.done(), f"answered before part {n}"
            client._on_binary(_binary_header("r1", n) + bytes([n]) * (3 + n))
        result = await pending.future
        images = [variant["image"] for variant in result["variants"]]
        assert all(isinstance(image, BridgeImage) for image in images)
        assert [(image.data, image.width) for image in images] == [(bytes([n]) * (3 + n), n + 1) for n in range(3)]

        wrong = _Pending("r2", "template:render", None, loop.create_future(), None)
        client._pending["r2"] = wrong
        client._on_text(json.dumps({"id": "r2", "ok": True, "result": {"variants": variants[:2]}}))
        client._on_binary(_binary_header("r2", 1) + bytes([1]) * 4)  # part 1 where part 0 was due
        with pytest.raises(BridgeError) as raised:
            await wrong.future
        assert raised.value.code == "CONNECTION_LOST"

    run(scenario)


def first_editor(bridge: Bridge) -> dict[str, Any]:
    """The first editor's view in `/status` (running and queued calls, restarts)."""
    request = urllib.request.Request(f"{bridge.url}/status", headers={"authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        editors: list[dict[str, Any]] = json.load(response)["editors"]
    return editors[0]


def running(count: int) -> Callable[[dict[str, Any]], bool]:
    return lambda view: bool(view["running"] == count)


async def until_editor(bridge: Bridge, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Polls `/status` until `condition` holds for the first editor (bounded by WAIT)."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        view = await asyncio.to_thread(first_editor, bridge)
        if condition(view):
            return view
        assert asyncio.get_running_loop().time() < deadline, f"the editor never reached the state: {view}"
        await asyncio.sleep(0.05)


def test_cancelling_the_task_cancels_a_looping_script(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client:
            restarts = first_editor(bridge)["restarts"]
            # The script would loop for ten minutes; the bridge must stop it for the next call to run.
            looping = asyncio.create_task(client.jsx.run(script="for(;;){}", timeout_ms=600_000))
            await until_editor(bridge, running(1))
            looping.cancel()
            with pytest.raises(asyncio.CancelledError):
                await looping
            # Answered only once the editor is free again, without a restart.
            assert (await client.jsx.run(script="1 + 1", timeout=WAIT))["result"] == 2
            view = await until_editor(bridge, running(0))
            assert view["restarts"] == restarts

    run(scenario)


def test_progress_reports_reach_the_callback(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client:
            reports: list[Progress] = []
            script = 'progress(0.25, "a quarter"); let x = 0; for (let i = 0; i < 2e6; i++) x += i; progress(0.75, "most"); 7'
            assert (await client.jsx.run(script=script, on_progress=reports.append))["result"] == 7
            assert reports and reports[0].message == "a quarter"
            assert [r.progress for r in reports] == sorted(r.progress for r in reports)

    run(scenario)


def test_an_atomic_batch_that_fails_rolls_back(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client:
            doc = await client.document.create(width=30, height=30, name="atomic")
            layer = await client.layer.create(name="Keep")
            revision = (await client.document.current())["revision"]
            outcomes = await client.batch(
                [
                    {"method": "layer:update", "params": {"layerId": layer["id"], "visible": False}, "id": "hide"},
                    {"method": "layer:update", "params": {"layerId": 99_999, "opacity": 10}, "id": "missing"},
                    {"method": "layer:update", "params": {"layerId": layer["id"], "name": "never"}, "id": "after"},
                ],
                atomic=True,
            )
            assert [outcome.id for outcome in outcomes] == ["hide", "missing"]
            assert outcomes[0].error is not None and outcomes[0].error.code == "ROLLED_BACK"
            assert outcomes[1].error is not None and outcomes[1].error.code == "LAYER_NOT_FOUND"
            assert (outcomes[1].error.details or {}).get("rolledBack") == 1
            kept = await client.layer.get_info_by_id(layer_id=layer["id"])
            assert kept["visible"] is True and kept["name"] == "Keep"
            assert (await client.document.current())["revision"] == revision
            await client.document.close(document_id=doc["id"])

    run(scenario)


def test_bad_params_raise_the_bridge_error_shape(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN) as client:
            with pytest.raises(BridgeError) as caught:
                await client.layer.update(opacity=500)
            error = caught.value
            assert error.code == "BAD_REQUEST" and error.retryable is False
            assert error.method == "layer:update" and error.request_id is not None
            assert error.details is not None and error.details.get("issues")
            assert error.to_wire()["code"] == "BAD_REQUEST"
            with pytest.raises(BridgeError) as unknown:
                await client.invoke("no:such-method")
            assert unknown.value.code == "UNKNOWN_METHOD"

    run(scenario)


def test_wrong_token_is_unauthorized(bridge: Bridge) -> None:
    async def scenario() -> None:
        with pytest.raises(BridgeError) as caught:
            await Client(bridge.url, token="wrong").connect()
        assert caught.value.code == "UNAUTHORIZED"

    run(scenario)


def test_plugin_endpoint(bridge: Bridge) -> None:
    async def scenario() -> None:
        async with Client(bridge.url, token=TOKEN, plugin_id="layer-stats") as client:
            assert client.ws_url.endswith("/ws/layer-stats")
            updated = asyncio.get_running_loop().create_future()

            def seen(event: Event) -> None:
                if not updated.done():
                    updated.set_result(event.data)

            await client.subscribe("layer-stats:updated", seen)
            summary = await client.invoke("layer-stats:summary")
            assert summary["layers"] >= 1
            assert (await asyncio.wait_for(updated, WAIT))["layers"] == summary["layers"]
        with pytest.raises(BridgeError) as missing:
            await Client(bridge.url, token=TOKEN, plugin_id="no-such-plugin").connect()
        assert missing.value.code.startswith("PLUGIN")

    run(scenario)


def test_sync_facade(bridge: Bridge, tmp_path: Path) -> None:
    with Client.sync(bridge.url, token=TOKEN) as client:
        doc = client.document.create(width=16, height=8, name="sync")
        image = client.image.export_document(document_id=doc["id"], format="png")
        image.save(tmp_path / "sync.png")
        assert png_size((tmp_path / "sync.png").read_bytes()) == (16, 8)
        [first] = client.batch([{"method": "document:current"}])
        assert first.ok and first.result["id"] == doc["id"]
        with pytest.raises(BridgeError):
            client.layer.get_info_by_id(layer_id=99_999)
        client.document.close(document_id=doc["id"])
