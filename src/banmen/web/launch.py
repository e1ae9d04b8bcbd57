"""The web app as a subprocess on a free port, for the lag benchmark and the browser
tests: pick a port, wait until the engines are ready, stop it."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx

__all__ = ["free_port", "wait_ready", "stop"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_ready(base: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    """Wait until ``base``'s ``/api/health`` reports its engines ready; ``RuntimeError``
    (with the end of the server's ``log``) if it exits or takes over ``timeout`` s."""
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=base, timeout=2.0) as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the server exited with code {proc.returncode}: "
                    f"{log.read_text(errors='replace')[-2000:]}"
                )
            try:
                if http.get("/api/health").json().get("engines_ready"):
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            time.sleep(0.1)
    raise RuntimeError(f"the server did not get its engines ready in {timeout:.0f} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate the server; kill it if it has not exited within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
