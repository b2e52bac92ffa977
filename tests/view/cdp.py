"""A small driver for Debian's headless Chromium over the DevTools protocol (CDP), for the browser tests.

Chromium is started with ``--remote-debugging-port=0``; it writes the port it picked to
``DevToolsActivePort`` in its profile folder, and the test talks to it over a websocket
(``websockets``' synchronous client). One page target is attached in flat mode, so every command
carries its ``sessionId``. Console errors, uncaught exceptions and failed loads are collected
from the ``Runtime`` and ``Log`` domains while the page runs.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
    "--hide-scrollbars", "--remote-debugging-port=0",
)


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium with one page; ``errors`` lists console errors and exceptions seen so far."""

    def __init__(self, profile: Path, width: int = 1400, height: int = 1000):
        from websockets.sync.client import connect

        binary = chromium_binary()
        if binary is None:
            raise RuntimeError("chromium not found")
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "DevToolsActivePort").unlink(missing_ok=True)  # a stale one would name a dead port
        self._proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        self._ws = None
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port, path = port_file.read_text().splitlines()[:2]
        self._ws = None
        self._id = 0
        self.errors: list[str] = []
        self._events: list[dict[str, Any]] = []
        try:
            self._ws = connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=30)
            target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable")
            self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise

    # -- protocol -------------------------------------------------------------------------------
    def _call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout: float = 60) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while True:
            reply = json.loads(self._ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> dict[str, Any]:
        return self._call(method, params, self._session, timeout)

    def _event(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        p = msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            self.errors.append(f"log: {e.get('text')} {e.get('url', '')}")
        self._events.append(msg)

    def _drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                self._event(json.loads(self._ws.recv(timeout=left)))
            except TimeoutError:
                return

    # -- page -----------------------------------------------------------------------------------
    def open(self, url: str, settle: float = 0.5, timeout: float = 60) -> None:
        """Navigate and wait for the load event (then a moment for scripts that load more scripts).

        A URL that differs from the current one only by its fragment is a same-document navigation
        (the page sees ``hashchange``, no new load), which ``Page.navigatedWithinDocument`` reports.
        """
        self._events.clear()
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + timeout
        done = ("Page.loadEventFired", "Page.navigatedWithinDocument")
        while not any(e.get("method") in done for e in self._events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading")
            self._drain(0.1)
        self._drain(settle)

    def eval(self, expression: str) -> Any:
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout}s for {expression}")
            self._drain(0.1)

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            m = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": m["width"], "height": min(m["height"], 6000), "scale": 1}
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", params)["data"]))
        return path

    def close(self) -> None:
        try:
            if self._ws is not None:
                self._ws.close()
        finally:
            if self._proc.poll() is None:
                os.killpg(self._proc.pid, 15)
                try:
                    self._proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(self._proc.pid, 9)
                    self._proc.wait()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
