"""numba as banmen uses it: the one module that imports numba's decorators.

Every compiled module takes ``njit`` (and ``kernel``) from here, so that before anything
compiles:

* **numba's warnings are silenced** (``NumbaWarning`` and its kinds: experimental
  features, performance hints, "cannot cache"): they are for whoever writes a kernel, not
  for a user, and would otherwise land on a terminal or in a server log. ``BANMEN_DEBUG=1``
  shows them; ``banmen bench compile`` and the tests check what they would say (every
  kernel set loads from the cache in a second process without compiling).
* **the on-disk cache is written under a lock.** numba saves a compiled function by
  reading the function's index file, picking a data file name not yet in it and writing
  both, with no lock (numba issues #4807 and #10128, both open). Two processes compiling
  *different* specialisations of one function at once (two arena workers, two test
  workers, the warm-up's parallel processes: ``search.alphabeta`` serves every game) can
  then pick the same data file: one index entry is lost — a recompilation later — or, if
  the writes interleave, an entry names the other's code. :func:`_locked_save` holds an
  ``flock`` on the index for the read-modify-write and writes the data before the index,
  so a reader that finds an entry finds its code.

* **no function is compiled again for a constant, or for a narrower integer.** numba
  types a call from compiled code with its constant arguments as literals
  (``Literal[int](3)``, ``Literal[bool](False)``) and compiles the callee for them: each
  distinct constant is a compile of its own, and each one compiles everything it calls
  anew; an ``int32`` read from an array likewise compiles the callee again beside its
  ``int64`` version. Go's search compiled ``_collect_libs`` seven times and the ladder
  reader three (``banmen bench compile`` lists such functions). banmen's ``njit`` types
  every call of a function it compiled with plain types — no literals, integers as
  ``int64`` (``uint64`` stays: bitboards) — so one compile serves every caller, and LLVM
  still folds constants where it inlines.

* **a package's compiled code is fresh or stale as a whole.** numba keys a function's
  cache on its own source file only: an edit to another file it calls into (Go's policy
  calls its tactics; a game package calls banmen's bit helpers) left its cached machine
  code in use, stale. The stamp numba checks is that file's with a digest of every
  compiling file of its package (:func:`compiled_files`), and of banmen's.

* **banmen's own compiled code is cached once per machine, per version.** numba caches
  beside the sources (``__pycache__``), so every clone of banmen compiled everything
  again — tens of seconds — though numba's stamps are digests of the sources, the same
  in every clone. :class:`MachineCacheLocator` puts the cache of banmen's package in the
  user's cache folder (``~/.cache/banmen/numba/<tag>/``), ``<tag>`` a digest of banmen's
  compiled files, numba's and Python's versions: a later clone (or a reinstall) of the
  same code loads it; another version gets a folder of its own, so two checkouts side by
  side never evict each other's code. ``$NUMBA_CACHE_DIR`` still decides where
  everything goes when it is set (the tests' cold runs); a game package outside banmen
  is cached beside its sources as before. Only the :data:`KEEP_VERSIONS` most recently
  used versions are kept (about 75 MB each with every game compiled).

* **machine code only where it runs** (issue 40). numba finishes every compiled
  function's library alike: it links in the LLVM IR of everything the function calls,
  optimises that whole module (O3) and makes its machine code. A function compiled because
  a caller's compile typed a call to it (a *callee*) has all of that done again in its
  caller's module, which links its IR and optimises and emits everything: some sixty
  functions a game each paid for their whole call tree — about a third of the CPU time of
  compiling the Go search. A library made inside another function's compile is now
  finalised without either (:func:`_finalize_final_module`): callers link its IR as
  before and optimise it in their own module; the cache keeps it as bitcode (numba's other
  cached kind); its own O3 and machine code wait until something asks for an address in
  it — Python calling the function (the dispatcher's outermost ``compile``:
  :func:`_dispatcher_compile`), a first-class function's address — and it is then cached
  again with its machine code, so a later process loads it as before. A module holding a
  call numba resolves at run time (mutual recursion) is made at once, as numba would. The deferral
  replaces numba internals, not its API: it is installed only when this numba has every one
  of them (:data:`DEFERRED`; else numba runs as it is, with a cache folder of its own), and
  ``BANMEN_JIT_DEFER=0`` switches it off.

* **a helper's untyped IR is made once** (issue 40): numba inlines an
  ``inline="always"`` helper by running its untyped pipeline again at every call site;
  :func:`_inline_function` makes it once per helper and flags (8% fewer Python calls in
  the Go search's first compile).

``@kernel`` is ``njit(cache=True)`` for functions handed to a generic search: numba caches
a function compiled for *another* jitted function as an argument only if that argument
pickles the same way in every process. A dispatcher pickles with a random uuid, so by
default the generic search recompiles in every new process (numba issue #9237). Giving
each kernel a deterministic uuid — its qualified name plus a digest of the source files it
is built from — makes the cache hit, and a changed kernel source gets a new uuid, so a
search compiled for the old kernel is not reused.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import itertools
import os
import pickle
import re
import threading
import warnings
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from llvmlite import binding as _ll
from numba import njit as _numba_njit
from numba import typeof, types
from numba.core import caching, targetconfig, typeinfer
from numba.core import codegen as _codegen
from numba.core import cpu as _cpu
from numba.core import dispatcher as _dispatcher
from numba.core import inline_closurecall as _inline
from numba.core.compiler_lock import global_compiler_lock
from numba.core.errors import NumbaWarning

from banmen._flock import flock

__all__ = ["njit", "kernel", "bound", "compile_returning"]

F = TypeVar("F", bound=Callable[..., Any])

_HERE = Path(__file__).resolve().parent
_digests: dict[str, str] = {}

if not os.environ.get("BANMEN_DEBUG"):
    warnings.filterwarnings("ignore", category=NumbaWarning)


def _locked_save(self: Any, key: Any, data: Any) -> None:
    """``IndexDataCacheFile.save`` with the index read, the data file chosen and both
    written under one lock on the index (see the module's note)."""
    os.makedirs(os.path.dirname(self._index_path), exist_ok=True)  # (pruned meanwhile)
    with flock(self._index_path + ".lock"):
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            name = next(n for i in itertools.count(1) if (n := self._data_name(i)) not in taken)
        self._save_data(name, data)
        overloads[key] = name
        try:
            self._save_index(overloads)
        except ReferenceError:
            self._save_index(_live(overloads))


def _live(overloads: dict[Any, str]) -> dict[Any, str]:
    """The index entries whose keys still pickle. An entry compiled for an older version of
    a kernel passed as an argument (a user editing a game package; the search's index
    keeps every version's entry) names a dispatcher numba rebuilt on reading the index
    and, past ``NUMBA_FUNCTION_CACHE_SIZE`` of them, let go: pickling it again raises
    ``ReferenceError: underlying object has vanished``. No call can hit such an entry
    again (its kernel's source is gone), so it is dropped rather than failing the save."""
    live = {}
    for k, name in overloads.items():
        try:
            pickle.dumps(k)
        except ReferenceError:
            continue
        live[k] = name
    return live


caching.IndexDataCacheFile.save = _locked_save  # type: ignore[method-assign]

#: a line that compiles the function below it
_COMPILED = re.compile(rb"^[ \t]*@(?:njit|kernel)\b", re.M)


@functools.cache
def package_root(path: str) -> str | None:
    """The top folder of the package ``path`` is in (the last one up with an
    ``__init__.py``), or ``None`` for a file outside any package."""
    here = Path(path).resolve().parent
    top = None
    while (here / "__init__.py").is_file():
        top = here
        here = here.parent
    return None if top is None else str(top)


@functools.cache
def compiled_files(root: str) -> tuple[str, ...]:
    """The source files under the package folder ``root`` that compile functions (a
    ``@njit`` or ``@kernel`` line), sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    if _COMPILED.search(f.read()):
                        found.append(path)
    return tuple(sorted(found))


@functools.lru_cache(maxsize=4096)
def _content_digest(path: str, size: int, mtime_ns: int) -> bytes:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def file_digest(path: str) -> tuple[int, bytes]:
    """A file's size and the SHA-256 of its content, read again only when its size or
    modification time moves (``OSError`` if it cannot be read). The cache's version tag
    and the warm stamps (:mod:`banmen.warm`) read the same files: each is read once."""
    st = os.stat(path)
    return st.st_size, _content_digest(path, st.st_size, st.st_mtime_ns)


@functools.cache
def _package_stamp(root: str) -> bytes:
    digest = hashlib.sha256()
    for path in compiled_files(root):
        digest.update(os.path.relpath(path, root).encode() + b"\0")
        digest.update(file_digest(path)[1])
    return digest.digest()


_file_stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp


def _stamp_with_package(self: Any) -> Any:
    """numba's stamp of a function's source file, with its package's compiled files.
    numba checks only the file a function is written in, so an edit to another file it
    calls into (Go's policy calls its tactics) left the caller's cached machine code in
    use, stale: a package's compiled code is one whole, fresh together or stale together
    (and a game package's with banmen's, whose helpers it calls)."""
    own = _file_stamp(self)  # type: ignore[no-untyped-call]
    root = package_root(self._py_file)
    if root is None:
        return own
    # a game package's kernels call banmen's compiled helpers (its bits, its searches'
    # contracts): banmen's compiled files count for them too
    return (own, _package_stamp(root), _package_stamp(str(_HERE)))


caching._SourceFileBackedLocatorMixin.get_source_stamp = _stamp_with_package  # type: ignore[method-assign]

#: what banmen's patches to numba put in the cache (2: callees' libraries as unoptimised
#: bitcode, see the module's note); another one gets a folder of its own
CACHE_FORMAT = 2

#: the most recently used versions' folders of the machine-wide cache that are kept …
KEEP_VERSIONS = 6
#: … and of those, the ones beyond the three most recent go when unused this many days
KEEP_DAYS = 14
#: the file whose modification time says when a version's folder was last used
_USED = "last-used"


def machine_cache_root() -> Path:
    """Where banmen's versions keep their compiled code: ``<user cache>/banmen/numba``."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("banmen")) / "numba"


@functools.cache
def version_tag() -> str:
    """This banmen's compiled code, named: a digest of its compiled files (their paths
    within the package and contents), of numba's and Python's versions and of
    :data:`CACHE_FORMAT`."""
    import platform

    import numba

    h = hashlib.sha256(_package_stamp(str(_HERE)))
    # (a process without the deferral caches as numba does: format 1, a folder of its own,
    # for numba would load banmen's bitcode as it is, unoptimised)
    fmt = CACHE_FORMAT if DEFERRED else 1
    h.update(f"{numba.__version__}|{platform.python_version()}|{fmt}".encode())
    return h.hexdigest()[:16]


@functools.cache
def machine_cache_dir() -> Path | None:
    """This version's folder of the machine-wide cache (made, marked as used, and older
    versions' folders pruned, once a process), or ``None`` if it cannot be written (numba
    then caches beside the sources, as it would without banmen)."""
    root = machine_cache_root()
    here = root / version_tag()
    try:
        here.mkdir(parents=True, exist_ok=True)
        (here / _USED).touch()
    except OSError:
        return None
    _prune(root, keep=here)
    return here


def _prune(root: Path, keep: Path) -> None:
    """Keep the :data:`KEEP_VERSIONS` most recently used versions' folders, and of them the
    three most recent and those used within :data:`KEEP_DAYS` days; never ``keep``. (A
    process still running an older version and compiling into a removed folder makes it
    again: :func:`_locked_save`.)"""
    import shutil
    import time

    try:
        folders = [d for d in root.iterdir() if d.is_dir() and (d / _USED).exists()]
        used = sorted(folders, key=lambda d: (d / _USED).stat().st_mtime, reverse=True)
    except OSError:
        return
    horizon = time.time() - KEEP_DAYS * 86400
    for i, d in enumerate(used):
        try:
            old = i >= KEEP_VERSIONS or (i >= 3 and (d / _USED).stat().st_mtime < horizon)
        except OSError:
            continue
        if old and d != keep:
            shutil.rmtree(d, ignore_errors=True)


class MachineCacheLocator(caching.InTreeCacheLocator):
    """numba's cache locator for banmen's own compiled files: the version's folder of the
    machine-wide cache (see the module's note), laid out like the package."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[no-untyped-call]
        folder = machine_cache_dir()
        assert folder is not None  # from_function checked
        rel = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _HERE.parent)
        self._cache_path = str(folder / rel)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if not _in_banmen(py_file) or machine_cache_dir() is None:
            return None
        return super().from_function(py_func, py_file)  # type: ignore[no-untyped-call]


def _in_banmen(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(_HERE)
    except (OSError, ValueError):
        return False


def _install_locator() -> None:
    """Ask :class:`MachineCacheLocator` first after ``$NUMBA_CACHE_DIR``'s locator."""
    classes = caching.CacheImpl._locator_classes
    if MachineCacheLocator not in classes:
        at = 1 if classes and classes[0] is caching.UserProvidedCacheLocator else 0
        classes.insert(at, MachineCacheLocator)


_install_locator()


#: per ``TargetConfig`` class: its options' defaults, and its hash (see below)
_CONFIG_DEFAULTS: dict[type, dict[str, Any]] = {}
_CONFIG_HASH: dict[type, int] = {}


def _config_defaults(cls: type) -> dict[str, Any]:
    d = _CONFIG_DEFAULTS.get(cls)
    if d is None:
        d = _CONFIG_DEFAULTS[cls] = {k: o.default for k, o in cls.options.items()}  # type: ignore[attr-defined]
    return d


def _config_values(self: Any) -> dict[str, Any]:
    """``TargetConfig.values`` — every option's value, its default where unset — built
    from the defaults and the set values at C speed. numba's own reads each of some forty
    options through its property, and it runs three times for every lookup of an
    overloaded function's implementation (the flags are part of the cache key: hashed,
    then compared): a quarter of the CPU time of compiling the shogi mate solver went to
    it. Same values, same order; a config holding a value that is not one of its class's
    options (none of numba's do) takes numba's path."""
    defaults = _config_defaults(type(self))
    if not self._values.keys() <= defaults.keys():
        return _numba_config_values(self)  # type: ignore[no-untyped-call,no-any-return]
    d = dict(defaults)
    d.update(self._values)
    return d


def _config_eq(self: Any, other: Any) -> Any:
    if self is other:
        return True
    if isinstance(other, targetconfig.TargetConfig):
        return _config_values(self) == _config_values(other)
    return NotImplemented


def _config_hash(self: Any) -> int:
    """numba's hash of a config: of its sorted option *names* (the same for every config
    of a class), computed once per class."""
    cls = type(self)
    h = _CONFIG_HASH.get(cls)
    if h is None:
        h = _CONFIG_HASH[cls] = hash(tuple(sorted(cls.options)))
    return h


_numba_config_values = targetconfig.TargetConfig.values
targetconfig.TargetConfig.values = _config_values  # type: ignore[method-assign]
targetconfig.TargetConfig.__eq__ = _config_eq  # type: ignore[method-assign]
targetconfig.TargetConfig.__hash__ = _config_hash  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------
# Machine code only where it runs (issue 40): see the module's note.


class _Compiling(threading.local):
    depth = 0  # the dispatcher compiles under way in this thread (a caller's, its callees')


_compiling = _Compiling()
_numba_dispatcher_compile: Any = getattr(_dispatcher.Dispatcher, "compile", None)
_numba_add_overload: Any = getattr(_dispatcher.Dispatcher, "add_overload", None)
_numba_library_init: Any = getattr(_codegen.JITCodeLibrary, "__init__", None)
_numba_finalize_final_module: Any = getattr(_codegen.JITCodeLibrary, "_finalize_final_module", None)
_numba_optimize_final_module: Any = getattr(_codegen.JITCodeLibrary, "_optimize_final_module", None)
_numba_pointer_to_function: Any = getattr(_codegen.JITCodeLibrary, "get_pointer_to_function", None)
_numba_serialize: Any = getattr(_codegen.JITCodeLibrary, "serialize_using_object_code", None)
_numba_unserialize: Any = getattr(
    vars(_codegen.CPUCodeLibrary).get("_unserialize"), "__func__", None
)
_numba_set_env: Any = getattr(_codegen.JITCPUCodegen, "set_env", None)
_numba_get_executable: Any = getattr(_cpu.CPUContext, "get_executable", None)
#: environments whose global is in no machine code yet, by global's name (set on emission)
_pending_envs: dict[str, Any] = {}


def _library_init(self: Any, codegen: Any, name: str) -> None:
    _numba_library_init(self, codegen, name)
    # a library made inside another function's compile (a callee's, or a subroutine's):
    # its machine code waits until something asks for an address in it
    self._banmen_deferrable = _compiling.depth >= 2
    self._banmen_pending = False  # finalised, its machine code not made yet
    self._banmen_unoptimised = False  # its final module not optimised yet


def _optimize_final_module(self: Any) -> None:
    """numba's optimisation of a library's final module (it and everything it calls),
    deferred with its machine code for a deferrable library: every caller optimises the
    callee's code again in its own module anyway."""
    if self._banmen_deferrable:
        self._banmen_unoptimised = True
        return
    _numba_optimize_final_module(self)


def _ready(library: Any) -> None:
    """numba's optimisation (if deferred) and its last step: machine code for the module."""
    if library._banmen_unoptimised:
        library._banmen_unoptimised = False
        _numba_optimize_final_module(library)
        library._final_module.verify()
    _numba_finalize_final_module(library)


def _finalize_final_module(self: Any) -> None:
    """numba's last step of a library (its final module into the JIT: machine code for all
    of it), deferred for a deferrable library: the library is finalised (callers link its
    module, the cache takes its bitcode) and :func:`_emit` does the rest. A module with a
    recursive call left to be resolved at run time (numba's ``.numba.unresolved$`` slot,
    filled with the address of a function the JIT has) is made now."""
    if self._banmen_deferrable and not any(
        gv.name.startswith(_codegen.RuntimeLinker.PREFIX)
        for gv in self._final_module.global_variables
    ):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._banmen_pending = True
        self._finalized = True
        return
    _ready(self)


def _emit(library: Any) -> None:
    """Make a deferred library's machine code (what numba would have made at finalize)."""
    with global_compiler_lock:
        if not library._banmen_pending:
            return
        library._banmen_pending = library._banmen_deferrable = False
        library._dynamic_globals = []  # (found again)
        _ready(library)
        codegen = library.codegen
        for gv in library._final_module.global_variables:
            env = _pending_envs.pop(gv.name, None)
            if env is not None and not gv.is_declaration:
                _numba_set_env(codegen, gv.name, env)


def _pointer_to_function(self: Any, name: str) -> int:
    _emit(self)
    return _numba_pointer_to_function(self, name)  # type: ignore[no-any-return]


def _serialize(self: Any) -> Any:
    """A deferred library goes to the cache as its bitcode (numba's other kind of cached
    library, which numba itself loads by making its machine code)."""
    if self._banmen_pending:
        return (self.name, "bitcode", self._final_module.as_bitcode())
    return _numba_serialize(self)


def _unserialize(cls: Any, codegen: Any, state: Any) -> Any:
    """A library cached as bitcode is loaded deferred: no machine code until asked."""
    name, kind, data = state
    if kind != "bitcode":  # machine code: loaded as numba loads it, never deferred
        depth, _compiling.depth = _compiling.depth, 0
        try:
            return _numba_unserialize(cls, codegen, state)
        finally:
            _compiling.depth = depth
    self = codegen.create_library(name)
    self.enable_object_caching()  # (its machine code, once made, is cached again)
    self._final_module = _ll.parse_bitcode(data)
    self._banmen_deferrable = True
    self._banmen_unoptimised = True  # (as banmen caches it; numba's own would not harm)
    self._finalize_final_module()
    return self


def _set_env(self: Any, env_name: str, env: Any) -> None:
    if not self._engine.is_symbol_defined(env_name):
        _pending_envs[env_name] = env  # its library's machine code is not made yet
        return
    _numba_set_env(self, env_name, env)


class _Deferred:
    """The entry point of a function whose machine code is not made yet. Calling it makes
    it (the dispatcher itself never calls one: :func:`_dispatcher_compile`)."""

    __slots__ = ("context", "library", "fndesc", "env", "cfunc")

    def __init__(self, context: Any, library: Any, fndesc: Any, env: Any) -> None:
        self.context, self.library, self.fndesc, self.env = context, library, fndesc, env
        self.cfunc: Any = None

    def made(self) -> Any:
        if self.cfunc is None:
            with global_compiler_lock:
                if self.cfunc is None:
                    self.cfunc = _numba_get_executable(
                        self.context, self.library, self.fndesc, self.env
                    )
        return self.cfunc

    def __call__(self, *args: Any, **kws: Any) -> Any:
        return self.made()(*args, **kws)


def _get_executable(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
    if getattr(library, "_banmen_deferrable", False):
        library._ensure_finalized()
        if library._banmen_pending:
            return _Deferred(self, library, fndesc, env)
    return _numba_get_executable(self, library, fndesc, env)


def _add_overload(self: Any, cres: Any) -> None:
    if isinstance(cres.entry_point, _Deferred):  # not callable from Python yet
        self.overloads[tuple(cres.signature.args)] = cres
        return
    _numba_add_overload(self, cres)


def _dispatcher_compile(self: Any, sig: Any) -> Any:
    """numba's ``Dispatcher.compile``, counting nested compiles; the outermost one (Python
    wants the function: a call, ``compile``, :func:`bound`) makes a deferred overload's
    machine code, hands it to the dispatcher and caches it again with it."""
    _compiling.depth += 1
    try:
        entry = _numba_dispatcher_compile(self, sig)
    finally:
        _compiling.depth -= 1
    if _compiling.depth == 0 and isinstance(entry, _Deferred):
        entry = _made_overload(self, sig, entry)
    return entry


def _made_overload(dispatcher: Any, sig: Any, entry: _Deferred) -> Any:
    with global_compiler_lock:
        for cres in list(dispatcher.overloads.values()):
            if cres.entry_point is entry:
                cres = cres._replace(entry_point=entry.made())
                _numba_add_overload(dispatcher, cres)
                dispatcher.targetctx.insert_user_function(
                    cres.entry_point, cres.fndesc, [cres.library]
                )
                with contextlib.suppress(OSError):  # (a cache that cannot be written)
                    dispatcher._cache.save_overload(sig, cres)
                return cres.entry_point
    return entry.made()


def _deferral_supported() -> bool:
    """Whether this numba has every internal the deferral replaces or calls (they are not
    numba's public API: another version may lack one, and then numba runs as it is), and
    ``BANMEN_JIT_DEFER`` is not ``0`` (a way out, should the deferral ever misbehave)."""
    if os.environ.get("BANMEN_JIT_DEFER", "1") == "0" or _numba_unserialize is None:
        return False
    needed = {
        _codegen.JITCodeLibrary: (
            "_finalize_final_module", "_optimize_final_module", "get_pointer_to_function",
            "serialize_using_object_code", "_finalize_dynamic_globals",
            "_verify_declare_only_symbols", "_ensure_finalized", "enable_object_caching",
        ),
        _codegen.JITCPUCodegen: ("set_env", "create_library"),
        getattr(_codegen, "RuntimeLinker", None): ("PREFIX",),
        _cpu.CPUContext: ("get_executable", "insert_user_function"),
        _dispatcher.Dispatcher: ("compile", "add_overload"),
    }  # fmt: skip
    return all(hasattr(cls, name) for cls, names in needed.items() for name in names)


#: whether callees' machine code is deferred in this process (see the module's note)
DEFERRED = _deferral_supported()

if DEFERRED:
    _codegen.JITCodeLibrary.__init__ = _library_init  # type: ignore[method-assign]
    _codegen.JITCodeLibrary._finalize_final_module = _finalize_final_module  # type: ignore[method-assign]
    _codegen.JITCodeLibrary._optimize_final_module = _optimize_final_module  # type: ignore[method-assign]
    _codegen.JITCodeLibrary.get_pointer_to_function = _pointer_to_function  # type: ignore[method-assign]
    _codegen.JITCodeLibrary.serialize_using_object_code = _serialize  # type: ignore[method-assign]
    _codegen.JITCodeLibrary._unserialize = classmethod(_unserialize)  # type: ignore[method-assign,assignment]
    _codegen.JITCPUCodegen.set_env = _set_env  # type: ignore[method-assign]
    _cpu.CPUContext.get_executable = _get_executable  # type: ignore[method-assign]
    _dispatcher.Dispatcher.add_overload = _add_overload  # type: ignore[method-assign]
    _dispatcher.Dispatcher.compile = _dispatcher_compile  # type: ignore[method-assign]


def _plain(t: Any) -> Any:
    """A call argument's type as banmen compiles for it: no literal, and integers narrower
    than 64 bits (an ``int32`` read from an array) as ``int64``."""
    t = types.unliteral(t)  # type: ignore[no-untyped-call]
    if isinstance(t, types.Integer) and t.bitwidth < 64:  # type: ignore[attr-defined]
        return types.int64
    return t


def _plain_calls(dispatcher: Any) -> Any:
    """Make compiled callers of ``dispatcher`` type their calls with :func:`_plain` types."""
    resolve = dispatcher.get_call_template
    stack = dispatcher.targetdescr.typing_context.callstack

    def get_call_template(args: Any, kws: Any) -> Any:
        plain = tuple(_plain(a) for a in args)
        if kws or stack.match(dispatcher.py_func, plain):
            # A recursive call with a constant, into the very signature being compiled:
            # numba's recursion typing needs it as it is (pass a variable to save the
            # extra compile), and so do keyword arguments (none in banmen's kernels).
            return resolve(args, kws)
        return resolve(plain, kws)

    dispatcher.get_call_template = get_call_template
    return dispatcher


#: recursive functions' declared return types (``njit(returns=...)``), by Python function
_DECLARED: dict[Any, Any] = {}
_partial = typeinfer.TypeInferer.return_types_from_partial


def _declared_return(self: Any) -> Any:
    """numba types a recursive call by typing the whole function again, partially, to
    learn its return type — at every resolution of every recursive call (df-pn's node
    function: twenty times, nine seconds). A function that declares its return type
    (``njit(returns=...)``) is taken at its word."""
    declared = _DECLARED.get(self.func_id.func)
    return declared if declared is not None else _partial(self)  # type: ignore[no-untyped-call]


typeinfer.TypeInferer.return_types_from_partial = _declared_return  # type: ignore[method-assign]


#: numba's untyped IR of each ``inline="always"`` helper, by function: (the flags and
#: contexts it was made under, the IR)
_UNTYPED: weakref.WeakKeyDictionary[Any, list[tuple[tuple[Any, ...], Any]]] = (
    weakref.WeakKeyDictionary()
)
_numba_inline_function: Any = getattr(_inline.InlineWorker, "inline_function", None)
#: flags that only the lowering reads (a caller that allocates has ``nrt``; a kernel
#: called from Python may release the GIL): they do not change a helper's untyped IR
_LOWERING_ONLY = ("nrt", "release_gil")


def _inline_function(self: Any, caller_ir: Any, block: Any, i: int, function: Any,
                     arg_typs: Any = None) -> Any:  # fmt: skip
    """numba's inlining of an ``inline="always"`` helper at one call site, with the
    helper's untyped IR made once. numba runs its whole untyped pipeline (bytecode to IR,
    and the helper's own inlining) on the helper again at every call site, and then
    copies the result before changing it: the pipeline's output depends on the helper,
    the flags the pipeline reads and the contexts, never on the site. Compiling Go's
    search ran that pipeline 99 times for 27 helpers; once each, the compile makes 8% fewer
    Python calls (49.5 M to 45.4 M, counted; 2026-11-30). The IR handed out is the one
    numba made for the first site; numba's inliner copies it before it changes anything,
    as it copied its own. A typed inlining (``arg_typs``, which numba's untyped pass does
    not use) takes numba's path."""
    if arg_typs is not None:
        return _numba_inline_function(self, caller_ir, block, i, function, arg_typs)
    # (numba's pipeline sets the flags' enable_ssa to False, the caller's flags included)
    self.flags.enable_ssa = False
    flags = _config_values(self.flags)
    for name in _LOWERING_ONLY:
        flags.pop(name, None)
    key = (id(self.typingctx), type(self.targetctx), flags)
    made = _UNTYPED.setdefault(function, [])
    callee_ir = next((ir for k, ir in made if k == key), None)
    if callee_ir is None:
        callee_ir = self.run_untyped_passes(function)
        made.append((key, callee_ir))
    return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars)


if _numba_inline_function is not None and hasattr(_inline.InlineWorker, "inline_ir"):
    _inline.InlineWorker.inline_function = _inline_function  # type: ignore[method-assign]


def njit(*args: Any, **options: Any) -> Any:
    """numba's ``njit`` (same arguments), its calls from compiled code typed without
    literals (see the module's note); ``returns`` (a numba type) declares a recursive
    function's return type, which numba would otherwise infer again at every recursive
    call."""
    returns = options.pop("returns", None)

    def wrap(f: Any) -> Any:
        if returns is not None:
            _DECLARED[f] = returns
        return _plain_calls(_numba_njit(*args, **options)(f))

    if len(args) == 1 and callable(args[0]):
        f, args = args[0], ()
        return wrap(f)
    return wrap


def _digest(path: str) -> str:
    d = _digests.get(path)
    if d is None:
        h = hashlib.sha256()
        for p in (Path(path), _HERE / "_bits.py"):
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(str(p).encode())
        d = _digests[path] = h.hexdigest()[:16]
    return d


def kernel(fn: F | None = None, **options: Any) -> Any:
    """Compile ``fn`` like ``njit(cache=True, **options)``, with a stable identity."""

    def wrap(f: F) -> Any:
        dispatcher = _plain_calls(_numba_njit(cache=True, **options)(f))
        ident = f"{f.__module__}.{f.__qualname__}:{_digest(inspect.getfile(f))}"
        try:
            dispatcher._set_uuid(ident)
        except (AttributeError, AssertionError):  # pragma: no cover - numba internals moved
            pass
        return dispatcher

    return wrap(fn) if fn is not None else wrap


def bound(dispatcher: Any, *args: Any) -> Callable[..., Any]:
    """The compiled function ``dispatcher`` runs for ``args``, callable without dispatch.

    Numba types every argument on every call; for a function taking other jitted functions
    as arguments that costs ~20 µs a call (each dispatcher is re-typed), more than a whole
    shallow search. Calling the compiled overload's entry point directly costs ~1 µs. The
    caller must pass arguments of exactly these types from then on. The function is
    compiled (or loaded from the cache), not run: for a search, one call would be a whole
    search outside its caller's time limit.
    """

    sig = tuple(typeof(a) for a in args)  # type: ignore[no-untyped-call]
    dispatcher.compile(sig)
    compiled = dispatcher.overloads.get(sig)
    fn: Callable[..., Any] = dispatcher if compiled is None else compiled.entry_point
    return fn


def compile_returning(
    dispatcher: Any, argtypes: tuple[Any, ...], returns: Any, name: str, caller: str
) -> None:
    """Compile (or load) ``dispatcher`` for ``argtypes`` and check that it returns
    ``returns`` (a literal counts as its type): a search calling it through a function
    pointer of that signature would otherwise call it wrongly. The error names it
    (``name``: "the play kernel") and who expected otherwise (``caller``: "df-pn")."""
    dispatcher.compile(argtypes)
    got = types.unliteral(dispatcher.overloads[argtypes].signature.return_type)  # type: ignore[no-untyped-call]
    if got != returns:
        raise TypeError(f"{name} returns {got}, {caller} expects {returns}")
