"""The examples of docs/python.md: type-checked with `mypy --strict`, and run against a real bridge."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, TOKEN, Bridge
from test_client import WAIT, png_size, run

from image_editor_bridge import Client

DOC = ROOT / "docs" / "python.md"
PACKAGE = ROOT / "clients" / "python"


def examples() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 4, "docs/python.md: quick start, blocking, watch and template examples"
    return blocks


def write_examples(folder: Path) -> list[Path]:
    paths = []
    for n, block in enumerate(examples()):
        path = folder / f"docs_example_{n}.py"
        path.write_text(block, encoding="utf-8")
        paths.append(path)
    return paths


def example_env(bridge: Bridge) -> dict[str, str]:
    return {**os.environ, "BRIDGE_URL": bridge.url, "BRIDGE_TOKEN": TOKEN, "PYTHONPATH": str(PACKAGE)}


def test_examples_pass_mypy_strict(tmp_path: Path) -> None:
    try:
        from mypy import api
    except ImportError:
        if os.environ.get("REQUIRE_PYTHON_CLIENT"):
            raise
        pytest.skip("mypy is not installed (apt-get install mypy)")
    paths = write_examples(tmp_path)
    # Incremental, in the cache MYPY_CACHE_DIR names (npm run test:python sets it): the standard library's analysis
    # from the package's own check is reused, and only the examples are new.
    out, err, status = api.run(["--strict", "--python-version", "3.10", *map(str, paths)])
    assert status == 0, out + err


def test_quick_start_and_blocking_examples_run(bridge: Bridge, tmp_path: Path) -> None:
    quick, blocking, _, _ = write_examples(tmp_path)
    done = subprocess.run([sys.executable, str(quick)], cwd=tmp_path, env=example_env(bridge), capture_output=True, text=True, timeout=4 * WAIT)
    assert done.returncode == 0, done.stderr
    assert "LAYER_NOT_FOUND False" in done.stdout
    width, height = png_size((tmp_path / "preview.png").read_bytes())
    assert max(width, height) <= 512
    listed = subprocess.run([sys.executable, str(blocking)], cwd=tmp_path, env=example_env(bridge), capture_output=True, text=True, timeout=4 * WAIT)
    assert listed.returncode == 0, listed.stderr
    assert "background" in listed.stdout, listed.stdout  # the bottom layer of the active document


def test_watch_recipe_prints_selection_changes(bridge: Bridge, tmp_path: Path) -> None:
    watch = write_examples(tmp_path)[2]
    process = subprocess.Popen([sys.executable, str(watch), "2"], env=example_env(bridge), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        assert lines.get(timeout=WAIT) == "watching"
        printed: list[str] = []

        async def change_until_printed() -> None:
            async with Client(bridge.url, token=TOKEN) as client:
                # The recipe subscribes when its loop starts: changes before that are not its to print.
                for n in range(1, 10_000):
                    await client.selection.set(rect={"x": n % 50, "y": 1, "width": 5, "height": 5})
                    while not lines.empty():
                        line = lines.get()
                        if line is None:
                            return
                        printed.append(line)

        run(change_until_printed)
        assert process.wait(timeout=WAIT) == 0, process.stderr.read() if process.stderr else ""
        assert len(printed) == 2 and all("'width': 5" in line for line in printed), printed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_template_recipe_renders_each_variant(bridge: Bridge) -> None:
    template = bridge.files / "card.psd"
    out = bridge.files / "cards"
    out.mkdir(exist_ok=True)

    async def make_template() -> None:
        async with Client(bridge.url, token=TOKEN) as client:
            doc = await client.document.create(width=40, height=30, name="card")
            await client.layer.create(name="Colour")
            await client.layer.create(name="Badge", fill_color="#ffff00")
            await client.document.save(document_id=doc["id"], save_path=str(template))
            await client.document.close(document_id=doc["id"])

    run(make_template)
    recipe = write_examples(bridge.files)[3]
    done = subprocess.run([sys.executable, str(recipe), str(template), str(out)], env=example_env(bridge), capture_output=True, text=True, timeout=4 * WAIT)
    assert done.returncode == 0, done.stderr
    assert "failed" not in done.stdout, done.stdout
    for name in ("red-sale", "blue"):
        assert png_size((out / f"{name}.png").read_bytes()) == (40, 30)
