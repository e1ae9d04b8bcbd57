"""Compiled code, loaded before any clock starts: kernel sets, warm stamps, the notice.

banmen's searches are numba code, compiled the first time they run and cached on disk
(numba's ``cache=True``: banmen's own in the machine-wide cache, :mod:`banmen._jit`; a game
package's in ``__pycache__`` beside its sources; or ``$NUMBA_CACHE_DIR``).
Compiling takes seconds to tens of seconds; loading the cache a fraction of one. Neither
may be paid for by a time limit, nor happen in silence in front of a user.

A **kernel set** (:class:`KernelSet`) is the compiled code one kind of work needs — the Go
board's rules, the Go search, the Othello endgame solver — with a ``load`` function that
compiles it, or loads it from the cache, by running it once on a small position. Each game
lists its sets (``GameDef.kernel_sets``); engines, analyses and front ends call
:func:`ensure` for the sets they need before their clock starts
(:meth:`banmen.engine.Engine.warm_up`, which :meth:`~banmen.engine.Engine.think` calls
once itself), and ``banmen warm-up`` compiles them all ahead, in parallel processes
(:mod:`banmen.warmup`).

Whether a set is cold is known before it loads: when a set has been loaded (compiled, or
found in the cache) a **stamp** is written beside numba's cache (:func:`stamp_dir`),
naming the banmen source files that were loaded then, with their sizes and digests of
their contents, and the numba and Python versions. numba recompiles a function when its
source file changes; the stamp goes stale with it. banmen's own compiled code is cached
once per machine and version (:class:`banmen._jit.MachineCacheLocator`), and its stamps
with it: a later clone of the same code finds both warm. :func:`ensure` on a set without a
valid stamp tells the user once (``banmen: compiling the Go search, first run only…`` on
stderr, or whatever :func:`set_notice` installed: the web app's engine workers pass it to
the pages), and compiles under a lock shared by every process, so two processes that meet the
same cold set compile it once between them: the second waits, then loads.

That lock also lets a first run use a second core (issue 40): numba compiles in one thread,
so a process that will need two cold sets can hand one to a **helper process**
(:func:`beside`) while it compiles the other, and then finds it compiled, or waits on its
lock until it is. The Go engine compiles its search while a helper compiles the dead-stone
estimate; the Othello engine its search while a helper compiles the endgame solver. A
helper is a process of this one's: it says nothing (this process gave the notice), runs
only the sets' loaders, ends when they are done or when this process ends however it ends
(:mod:`banmen._reaper`, as a user's engine does), and is reaped at once.
``BANMEN_COMPILE_BESIDE=0`` (and a machine with one core) keeps every compile in the
process that needs it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from banmen import _reaper
from banmen._flock import flock

__all__ = [
    "KernelSet",
    "beside",
    "ensure",
    "is_warm",
    "loaded",
    "notice_text",
    "set_notice",
    "stamp_dir",
    "usable_cores",
]

_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class KernelSet:
    """The compiled code one kind of work needs, and how to load it.

    ``load()`` runs its ``loader``, which compiles the set's code (or loads it from numba's
    cache) by running it once on a small position; ``label`` names it for people ("the Go
    search"); ``estimate`` is the seconds it takes to compile on a quiet core (the
    warm-up's order and progress);
    ``default`` sets are what ``banmen warm-up`` compiles without ``--all`` (the others
    serve options few use, such as Othello's hand-set evaluation)."""

    game: str
    name: str
    label: str
    #: ``"module:function"``: the loader, imported only when the set is loaded (a game
    #: declares its sets in a leaf module that imports none of its compiled code);
    #: ``"module:function:a:b"`` calls ``function("a", "b")``
    loader: str
    estimate: float = 10.0
    default: bool = True
    #: the game's boards run this code (their rules, Go's count): a front end that keeps
    #: boards in its own process (the web server) loads it before it serves
    board: bool = False
    #: other packages whose compiled files this code is built from (a game package's
    #: kernels in the sets of banmen's evaluators): an edit there makes it cold too
    packages: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``game.name``: how the warm-up and the stamps name the set."""
        return f"{self.game}.{self.name}"

    def load(self) -> None:
        """Run the loader: the set's code compiled, or loaded from the cache."""
        run_loader(self.loader)


def _stderr(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # no stderr to write to (a closed pipe): nothing to say
        pass


_notice: Callable[[str], None] = _stderr
_lock = threading.RLock()
_loaded: set[str] = set()
_loading = threading.local()


def set_notice(fn: Callable[[str], None]) -> Callable[[str], None]:
    """Send the "compiling…" notices to ``fn`` (default: a line on stderr); returns the
    previous receiver."""
    global _notice
    previous, _notice = _notice, fn
    return previous


def notice_text(ks: KernelSet) -> str:
    """What a user is told when ``ks`` must be compiled."""
    return f"banmen: compiling {ks.label}, first run only…"


def loaded() -> frozenset[str]:
    """The ids of the sets this process has loaded."""
    return frozenset(_loaded)


def stamp_dir() -> Path:
    """Where the warm stamps live: beside numba's cache of banmen's code
    (``$NUMBA_CACHE_DIR`` if set, else this version's folder of the machine-wide cache,
    else the package's ``__pycache__`` if it can be written, else the user's cache)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env) / "banmen-warm"
    from banmen._jit import machine_cache_dir

    machine = machine_cache_dir()
    if machine is not None:
        return machine / "banmen-warm"
    here = _PACKAGE / "__pycache__"
    if os.access(here if here.is_dir() else _PACKAGE, os.W_OK):
        return here / "banmen-warm"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("banmen")) / "warm"


#: how banmen keys numba's cache (3: a package's compiled files, and banmen's, stale together,
#: banmen._jit; 4: stamps name files by content, banmen's own cached per machine); a
#: stamp from another scheme names a cache numba will not load
CACHE_SCHEME = "4"


def _versions() -> dict[str, str]:
    import numba

    return {"numba": numba.__version__, "python": platform.python_version(),
            "scheme": CACHE_SCHEME}  # fmt: skip


def _entry(path: str) -> list[Any] | None:
    """A stamp's entry for a source file: its name (relative to the folder banmen's package
    is in, for banmen's own files: the same in every clone), size and content digest."""
    from banmen._jit import file_digest

    try:
        size, digest = file_digest(path)
    except OSError:
        return None
    p = Path(path)
    name = str(p.relative_to(_PACKAGE.parent)) if p.is_relative_to(_PACKAGE) else path
    return [name, size, digest.hex()[:32]]


def _sources(*also: str) -> list[list[Any]]:
    """The source files a set's compiled code depends on, with their sizes and contents'
    digests: every file that compiles functions in banmen's package and in the
    packages ``also`` (a game package's, named by its set's loader or its ``packages``).
    numba's cache holds a package's compiled code as one whole
    (:func:`banmen._jit.compiled_files`): an edit to any of them makes it compile again;
    an edit to a command's module does not."""
    from banmen._jit import compiled_files, package_root

    roots = {str(_PACKAGE)}
    for name in also:
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            root = package_root(mod.__file__)
            if root is not None:
                roots.add(root)
    entries = (_entry(f) for f in sorted({f for r in roots for f in compiled_files(r)}))
    return [e for e in entries if e is not None]


def _stamp_path(ks: KernelSet) -> Path:
    return stamp_dir() / f"{ks.id}.json"


def read_stamp(ks: KernelSet) -> dict[str, Any] | None:
    """The set's stamp if it is valid (its files unchanged, the same numba and Python)."""
    try:
        stamp = json.loads(_stamp_path(ks).read_text())
        if stamp.get("versions") != _versions():
            return None
        for name, size, digest in stamp["files"]:
            path = Path(name) if os.path.isabs(name) else _PACKAGE.parent / name
            if _entry(str(path)) != [name, size, digest]:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return stamp if isinstance(stamp, dict) else None


def is_warm(ks: KernelSet) -> bool:
    """Whether ``ks`` loads from the cache (a valid stamp), without loading it."""
    return read_stamp(ks) is not None


def _write_stamp(ks: KernelSet, seconds: float, compiled: int) -> None:
    path = _stamp_path(ks)
    body = {"set": ks.id, "seconds": round(seconds, 3), "compiled": compiled,
            "written": time.time(), "versions": _versions(),
            "files": _sources(ks.loader.split(":")[0].split(".")[0], *ks.packages)}  # fmt: skip
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp.{os.getpid()}")
        tmp.write_text(json.dumps(body))
        os.replace(tmp, path)
    except OSError:  # a read-only cache: the notice will come again, nothing worse
        pass


def run_loader(loader: str) -> None:
    """Import and run one ``module:function`` loader (``module:function:a:b``: called
    with the arguments ``"a"``, ``"b"``)."""
    module, _, rest = loader.partition(":")
    function, *args = rest.split(":")
    getattr(importlib.import_module(module), function)(*args)


def ensure(ks: KernelSet) -> bool:
    """Load ``ks`` in this process (once), compiling it first if it is cold — after telling
    the user so. Returns whether it was cold. Thread-safe; a ``load`` that calls back
    into :func:`ensure` for its own set (an engine's warm-up inside it) returns at once."""
    busy: set[str] = _loading.__dict__.setdefault("ids", set())
    if ks.id in _loaded or ks.id in busy:
        return False
    with _lock:
        if ks.id in _loaded:
            return False
        busy.add(ks.id)
        try:
            return _ensure(ks)
        finally:
            busy.discard(ks.id)


def _ensure(ks: KernelSet) -> bool:
    if is_warm(ks):
        ks.load()
        _loaded.add(ks.id)
        return False
    _tell_once(ks)  # (told already if a helper compiles it: beside)
    with contextlib.suppress(OSError):
        stamp_dir().mkdir(parents=True, exist_ok=True)
    with flock(stamp_dir() / f"{ks.id}.lock"):  # one process compiles; the others wait
        cold = not is_warm(ks)  # (another process may have compiled it meanwhile)
        from numba.core import event

        t0 = time.perf_counter()
        with event.install_recorder("numba:compile") as rec:
            ks.load()
        if cold:  # (``compiled``: functions numba compiled, not loaded from its cache)
            _write_stamp(ks, time.perf_counter() - t0, len(rec.buffer) // 2)
    _loaded.add(ks.id)
    return cold


# ---------------------------------------------------------------------------------------
# A second core for a first run (see the module's note)

#: sets this process has told the user it compiles (a helper's included)
_told: set[str] = set()
#: the environment variable that keeps every compile in its own process ("0")
BESIDE_ENV = "BANMEN_COMPILE_BESIDE"


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity, else every core."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not on Linux)
        return os.cpu_count() or 1


def _tell_once(ks: KernelSet) -> None:
    if ks.id not in _told:
        _told.add(ks.id)
        _notice(notice_text(ks))


def beside(*sets: KernelSet, while_: KernelSet) -> bool:
    """Compile the cold ones of ``sets`` in a helper process while this process compiles
    ``while_`` — only if ``while_`` is cold too (else there is nothing to overlap), the
    machine has a second core and ``$BANMEN_COMPILE_BESIDE`` is not ``0``. The user is told
    now, for each set the helper takes. This process's later :func:`ensure` of such a set
    waits on its lock while the helper compiles it, then loads it (or compiles it itself if
    the helper has not begun, or failed). Returns whether a helper was started."""
    if os.environ.get(BESIDE_ENV) == "0" or usable_cores() < 2 or not sys.executable:
        return False
    if while_.id in _loaded or is_warm(while_):
        return False
    cold = [ks for ks in sets if ks.id not in _loaded and not is_warm(ks)]
    if not cold:
        return False
    env = {**os.environ, BESIDE_ENV: "0",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # fmt: skip
    todo = json.dumps([dataclasses.asdict(ks) for ks in cold])
    quiet = None if os.environ.get("BANMEN_DEBUG") else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import banmen.warm as w; w._helper()", todo],
            stdin=subprocess.DEVNULL, stdout=quiet, stderr=quiet, env=env,
            start_new_session=True,
        )  # fmt: skip
    except OSError:
        return False
    # killed if this process ends first (its sets' locks go with it; a cache entry is
    # written data first, so none is half there); reaped as soon as it ends
    _reaper.watch(proc.pid)
    threading.Thread(target=_reap, args=(proc,), daemon=True).start()
    for ks in cold:
        _tell_once(ks)
    return True


def _reap(proc: subprocess.Popen[bytes]) -> None:
    proc.wait()
    _reaper.forget(proc.pid)


def _helper() -> None:
    """A helper's main: ``python -c ... SETS_JSON`` (:func:`beside`)."""
    for fields in json.loads(sys.argv[1]):
        ensure(KernelSet(**{**fields, "packages": tuple(fields.get("packages", ()))}))
