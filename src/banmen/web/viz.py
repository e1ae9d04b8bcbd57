"""The bitboard visualiser in the web app: the ``/viz`` page and its JSON API.

Routes (see :func:`viz_routes`; the page ``/viz`` itself is one of :mod:`banmen.web.pages`:
``static/pages/viz.html``, ``static/js/viz.js``, ``static/css/viz.css``):
``GET /api/viz/walkthroughs`` (the
walkthroughs and their parameters, :data:`banmen.viz.WALKTHROUGHS`) and
``GET /api/viz/walkthrough?name=…&kind=…&n=…&board=…&move=…`` (one walkthrough, step by
step: ``{"ok": true, **Walkthrough.to_dict()}``; each step carries its hex value and an SVG
of the board). Which parameters a walkthrough takes, and their types, is in the list:
``board`` is an Othello position for ``moves`` and ``flips`` but a 64-bit pattern for
``line`` and ``popcount``; a parameter left out takes the walkthrough's default.

A walkthrough that cannot be made from the parameters (an unknown name, a bad board string,
an illegal move, a parameter the walkthrough does not take) is answered with
``{"ok": false, "error": one line}`` and status 200, as ``/api/tsume/sfen`` answers a bad
position: the request itself succeeded, so the browser logs no failed request. A request
without ``?name=`` is a 400. No input ever gets a traceback or a 500.

Walkthroughs are computed in a worker thread (the event loop never waits on one) and the
most recent ones are cached, keyed by their normalized parameters.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from banmen.viz import WALKTHROUGHS, VizError, walkthrough
from banmen.web.replies import NO_STORE_JSON, one_line

__all__ = ["viz_routes", "walkthrough_json", "params_of", "CACHE_SIZE", "MAX_PARAM_CHARS"]

#: how many walkthroughs are kept, as their JSON text (each up to about 600 kB of SVG)
CACHE_SIZE = 32
#: the longest parameter value accepted (a board string is 65 characters plus spaces)
MAX_PARAM_CHARS = 200

#: query parameters the page keeps in its address that are not the walkthrough's
_PAGE_ONLY = frozenset({"name", "step"})


class RequestError(ValueError):
    """A request the API cannot answer with a walkthrough; the message is one line."""


def _shown(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:40] + "…")


def params_of(name: str) -> dict[str, str]:
    """The parameters of walkthrough ``name`` (their names and types), from
    :data:`WALKTHROUGHS`."""
    spec = WALKTHROUGHS.get(name)
    if not isinstance(spec, Mapping):
        raise RequestError(
            f"unknown walkthrough {_shown(name)}: expected one of {', '.join(WALKTHROUGHS)}"
        )
    return {str(p["name"]): str(p.get("type", "")) for p in spec.get("params", ())}


def _normalized(name: str, query: Mapping[str, str]) -> tuple[tuple[str, Any], ...]:
    """The walkthrough's parameters from the query: its own names only, whole numbers as
    ints, the rest stripped of surrounding space; sorted, so that equal requests share a
    cache entry. The page's ``step`` may come along and is ignored."""
    params = params_of(name)
    unknown = sorted(k for k in query if k not in params and k not in _PAGE_ONLY)
    if unknown:
        takes = ", ".join(params) if params else "no parameters"
        raise RequestError(
            f"walkthrough {name!r} does not take {_shown(unknown[0])}: it takes {takes}"
        )
    out: dict[str, Any] = {}
    for key, kind in params.items():
        raw = query.get(key)
        if raw is None:
            continue  # the walkthrough's default
        if len(raw) > MAX_PARAM_CHARS:
            raise RequestError(f"{key} is too long: at most {MAX_PARAM_CHARS} characters")
        value = raw.strip()
        if kind == "int":
            try:
                out[key] = int(value)
            except ValueError:
                raise RequestError(f"{key} must be a whole number, got {_shown(raw)}") from None
        else:
            out[key] = value
    return tuple(sorted(out.items()))


@functools.lru_cache(maxsize=CACHE_SIZE)
def _cached(name: str, params: tuple[tuple[str, Any], ...]) -> str:
    # A VizError propagates and is not cached; only finished walkthroughs are.
    data = walkthrough(name, **dict(params)).to_dict()
    return json.dumps({"ok": True, **data}, separators=(",", ":"))


def walkthrough_json(name: str, query: Mapping[str, str]) -> str:
    """The JSON text of walkthrough ``name`` made from the query's parameters; raises
    :class:`RequestError` or :class:`~banmen.viz.VizError` (one line each) if it cannot
    be made."""
    key = name.strip().lower()
    return _cached(key, _normalized(key, query))


def _error(message: str, status: int = 200) -> Response:
    return JSONResponse({"ok": False, "error": message}, status_code=status, headers=NO_STORE_JSON)


def viz_routes() -> list[BaseRoute]:
    """``/api/viz/walkthroughs`` and ``/api/viz/walkthrough``."""
    listing = json.dumps(WALKTHROUGHS)

    async def walkthroughs(request: Request) -> Response:
        return Response(listing, media_type="application/json", headers=NO_STORE_JSON)

    async def one(request: Request) -> Response:
        query = request.query_params
        name = query.get("name")
        if name is None or not name.strip():
            return _error(
                f"missing ?name=: expected a walkthrough, one of {', '.join(WALKTHROUGHS)}",
                status=400,
            )
        try:
            body = await run_in_threadpool(walkthrough_json, name.strip(), dict(query.items()))
        except (RequestError, VizError) as e:
            return _error(one_line(e))
        except Exception as e:  # a parameter the library did not expect: still one line
            return _error(f"walkthrough {_shown(name.strip())} could not be made: {one_line(e)}")
        return Response(body, media_type="application/json", headers=NO_STORE_JSON)

    return [
        Route("/api/viz/walkthroughs", walkthroughs),
        Route("/api/viz/walkthrough", one),
    ]
