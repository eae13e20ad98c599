"""Real bridges for the client's tests: `image-editor-bridge serve --listen 0` from the repository (built first:
`node scripts/build.mjs`), its port read from the startup line, stopped when the tests end."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "clients" / "python"))

BIN = ROOT / "bin" / "image-editor-bridge.js"
STARTUP_TIMEOUT = 60.0
"""Seconds the bridge may take to print its startup line (its editor process starts first)."""
TOKEN = "py-client-token"
PLUGIN = ROOT / "examples" / "plugins" / "layer-stats"


@dataclass
class Bridge:
    process: subprocess.Popen[str]
    port: int
    token: str | None
    files: Path
    lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_bridge(*args: str, token: str | None = TOKEN) -> Bridge:
    node = os.environ.get("NODE") or shutil.which("node")
    assert node is not None, "node is not on PATH"
    files = Path(tempfile.mkdtemp(prefix="py-client-files-"))
    command = [node, str(BIN), "serve", "--listen", "0", "--log-level", "warn", "--files-root", str(files), "--allow-editor-scripts"]
    if token is not None:
        command += ["--token", token]
    process = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={"PATH": os.environ.get("PATH", "")})
    lines: list[str] = []
    found: queue.Queue[int | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if match:
                found.put(int(match.group(1)))
        found.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        port = found.get(timeout=STARTUP_TIMEOUT)
    except queue.Empty:
        port = None
    if port is None:
        process.kill()
        raise RuntimeError("the bridge printed no startup line:\n" + "\n".join(lines))
    return Bridge(process, port, token, files, lines)


@pytest.fixture(scope="session")
def bridge() -> Iterator[Bridge]:
    """One bridge for the session: token required, files confined to a temporary folder, scripts allowed, the
    layer-stats example plugin loaded."""
    started = start_bridge("--plugin", str(PLUGIN))
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(started.files, ignore_errors=True)
