"""The browser front end: a Starlette app with one WebSocket per game view.

``banmen serve`` calls :func:`banmen.web.server.serve`; tests and tools build the app with
:func:`banmen.web.server.create_app`.
"""

from __future__ import annotations

from banmen.web.server import create_app, serve

__all__ = ["create_app", "serve"]
