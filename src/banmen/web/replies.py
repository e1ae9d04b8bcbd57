"""What the web app's JSON endpoints share: how an error becomes one line, and the headers
of answers that must not be cached."""

from __future__ import annotations

__all__ = ["NO_STORE_JSON", "one_line"]

#: headers of a JSON answer computed for one request
NO_STORE_JSON = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def one_line(e: BaseException | str, limit: int = 240) -> str:
    """The first line of an error (its class name if it has no text), at most ``limit``
    characters — what a client is shown, never a traceback."""
    text = (str(e) if isinstance(e, BaseException) else e).strip().splitlines()
    line = text[0] if text else (type(e).__name__ if isinstance(e, BaseException) else "error")
    return line[:limit]
