"""One side of bench/python-client.js: `document:current` round trips per second to a bridge, either through the
Python client (`client`) or through a bare `websockets` loop writing the same frames (`bare`). Prints the rate.

    python3 bench/_python_rpc.py client|bare <ws-url> <in-flight> <warm-up ms> <duration ms>
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))

from image_editor_bridge import Client  # noqa: E402
from image_editor_bridge._ws import open_socket  # noqa: E402


async def measure(loops: int, once, warmup: float, duration: float) -> float:
    counting = False
    stopped = False
    completed = 0

    async def loop() -> None:
        nonlocal completed
        while not stopped:
            await once()
            if counting:
                completed += 1

    tasks = [asyncio.create_task(loop()) for _ in range(loops)]
    await asyncio.sleep(warmup)
    counting = True
    started = time.perf_counter()
    await asyncio.sleep(duration)
    counting = False
    elapsed = time.perf_counter() - started
    stopped = True
    await asyncio.gather(*tasks)
    return completed / elapsed


async def with_client(url: str, loops: int, warmup: float, duration: float) -> float:
    async with Client(url) as client:
        return await measure(loops, client.document.current, warmup, duration)


async def bare(url: str, loops: int, warmup: float, duration: float) -> float:
    """The least a Python program can do: one socket, a frame per call, answers matched to waiters by id."""
    socket = await open_socket(url + "?binary=1", ["image-editor-bridge"], 10.0)
    await socket.recv()  # the connected handshake
    waiters: dict[str, asyncio.Future[object]] = {}
    ids = 0

    async def read() -> None:
        while True:
            frame = json.loads(await socket.recv())
            waiter = waiters.pop(frame.get("id"), None)
            if waiter is not None:
                waiter.set_result(frame)

    async def once() -> None:
        nonlocal ids
        ids += 1
        request_id = str(ids)
        waiter = asyncio.get_running_loop().create_future()
        waiters[request_id] = waiter
        await socket.send(json.dumps({"id": request_id, "method": "document:current", "params": {}}, separators=(",", ":")))
        await waiter

    reader = asyncio.create_task(read())
    try:
        return await measure(loops, once, warmup, duration)
    finally:
        reader.cancel()
        await socket.close(4000)


def main() -> None:
    mode, url, loops, warmup, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]) / 1000, float(sys.argv[5]) / 1000
    side = with_client if mode == "client" else bare
    print(f"{asyncio.run(side(url, loops, warmup, duration)):.1f}")


main()
