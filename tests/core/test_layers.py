"""The house's shape: no import cycle inside banmen, no board typed ``Any``.

The import graph is read from the source (``ast``), function-level imports included; only
imports under ``if TYPE_CHECKING:`` are left out, since they never run. A cycle is a set of
modules that import each other, directly or through others (a strongly connected
component of more than one module): docs/DESIGN.md's rule "dependencies point downward".
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import paths

SRC = paths.ROOT / "src"
PACKAGE = SRC / "banmen"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: all but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                yield from _runtime_imports(child)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _runtime_imports(node)


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]  # fmt: skip
            graph[mod].update(t for t in targets if t in mods and t != mod)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_type_checking_imports_are_left_out() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import x\n"
        "def f():\n    import y\n"
    )
    assert [ast.unparse(n) for n in _runtime_imports(tree)] == [
        "from typing import TYPE_CHECKING",
        "import y",
    ]


def test_no_import_cycle_inside_banmen() -> None:
    graph = import_graph()
    assert graph["banmen.games.registry"], "the graph reads the registry's imports"
    found = cycles(graph)
    assert not found, "import cycles (dependencies must point downward): " + "; ".join(
        " <-> ".join(c) for c in found
    )


def test_the_engine_contract_is_a_leaf() -> None:
    # (the limits and the game clock they carry: both on the ground floor)
    assert import_graph()["banmen.engine"] == {"banmen.search.limits", "banmen.clock"}


def _compiled(decorator: ast.expr) -> bool:
    text = ast.unparse(decorator)
    return any(w in text for w in ("kernel", "njit", "jit"))


def _board_any(path: Path, root: Path = SRC) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(_compiled(d) for d in node.decorator_list):
                continue  # a compiled kernel: its "board" is an array
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if "board" in a.arg and a.annotation is not None:
                    if ast.unparse(a.annotation) in ("Any", "Any | None", "typing.Any"):
                        yield f"{path.relative_to(root)}:{a.lineno} {node.name}({a.arg})"


def test_board_any_finder_finds_one(tmp_path: Path) -> None:
    tree_text = (
        "def f(board: Any, x: int) -> None: ...\n"
        "def g(board: Board) -> None: ...\n"
        "@kernel\ndef h(board: Any) -> None: ...\n"
    )
    q = tmp_path / "m.py"
    q.write_text(tree_text)
    assert [s.split(" ", 1)[1] for s in _board_any(q, tmp_path)] == ["f(board)"]


def test_no_board_is_typed_any() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _board_any(path)]
    assert found == [], "boards typed Any: " + ", ".join(found)


def _numba_decorators(path: Path) -> list[str]:
    """Where ``path`` takes numba's ``njit``/``jit`` from numba itself."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("numba"):
            hits += [f"{path.name}:{node.lineno}" for a in node.names if a.name in ("njit", "jit")]
        if isinstance(node, ast.Attribute) and node.attr in ("njit", "jit"):
            if isinstance(node.value, ast.Name) and node.value.id == "numba":
                hits.append(f"{path.name}:{node.lineno}")
    return hits


def test_numba_decorators_come_from_banmen_jit_only(tmp_path: Path) -> None:
    """banmen._jit is the one door to numba's decorators: it silences numba's warnings,
    locks the cache's writes, types calls plainly and declares recursive returns before
    anything compiles (docs/DESIGN.md, numba lessons 8-10)."""
    probe = tmp_path / "m.py"
    probe.write_text("import numba\nfrom numba import njit, types\nf = numba.njit(lambda: 0)\n")
    assert _numba_decorators(probe) == ["m.py:2", "m.py:3"]
    found = [h for p in sorted(PACKAGE.rglob("*.py")) if p.name != "_jit.py"
             for h in _numba_decorators(p)]  # fmt: skip
    assert found == [], "numba's decorators taken directly: " + ", ".join(found)


# --------------------------------------------------------------------------- game names

#: Where a game's name may be written outside its package: what belongs to one game by
#: nature — a game's own protocol and its commands (GTP is Go's, NBoard Othello's, USI
#: shogi's), a game's own web adapter and page (named by ``GameDef.web``), its benchmarks,
#: the bitboard visualiser's Othello walkthroughs. Everything else reaches a game through
#: the registry and its ``GameDef`` (docs/DESIGN.md, "No layer tests a game's name").
GAME_OWN = (
    "games/",
    "bench/",
    "protocols/gtp.py",
    "games/go/gtp_client.py",
    "protocols/nboard.py",
    "clients/nboard.py",
    "protocols/usi.py",
    "cli/gtp.py",
    "cli/othello.py",
    "cli/shogi.py",
    "web/games/go.py",
    "web/games/mattix.py",
    "web/games/othello.py",
    "web/tsume.py",
    "web/lagbench.py",
    "viz/",
)
#: words that are a game's name and something else too, by file: UGI's ``go`` command
NOT_A_GAME = {"protocols/ugi.py": {"go"}}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _game_names_in(path: Path, names: set[str], root: Path = PACKAGE) -> list[str]:
    """Where ``path`` writes one of ``names`` as a string (docstrings left out)."""
    rel = path.relative_to(root).as_posix()
    allowed = NOT_A_GAME.get(rel, set())
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [f"{rel}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skip and node.value in names - allowed]  # fmt: skip


def test_the_game_name_finder_finds_one(tmp_path: Path) -> None:
    q = tmp_path / "m.py"
    q.write_text('"""About mattix."""\nx = "mattix"\ny = "mattix board"\nz = {"go": 1}\n')
    assert _game_names_in(q, {"mattix", "go"}, tmp_path) == ["m.py:2 'mattix'", "m.py:4 'go'"]


def test_no_layer_outside_a_game_names_it() -> None:
    from banmen.games.registry import BUILT_IN

    found = [hit for path in sorted(PACKAGE.rglob("*.py"))
             if not path.relative_to(PACKAGE).as_posix().startswith(GAME_OWN)
             for hit in _game_names_in(path, set(BUILT_IN))]  # fmt: skip
    assert found == [], "a game named outside its own code: " + ", ".join(found)


# --------------------------------------------------------------------------- floors

#: docs/DESIGN.md's floors, bottom first: a module may import its own floor and those
#: below, never one above. The longest matching prefix names a module's floor.
FLOORS: dict[int, tuple[str, ...]] = {
    0: ("banmen", "banmen.search.limits", "banmen._jit", "banmen.jit", "banmen._bits",
        "banmen._reaper", "banmen._random", "banmen._flock", "banmen._sqlite", "banmen._fields",
        "banmen._atomic", "banmen.stats", "banmen.numbers", "banmen._files", "banmen.clock"),
    1: ("banmen.engine", "banmen.kinds", "banmen.warm", "banmen.analysis", "banmen.clients",
        "banmen.weights", "banmen.trainable"),
    2: ("banmen.search",),
    3: ("banmen.games",),
    4: ("banmen.games.registry", "banmen.python_player", "banmen.python_host",
        "banmen.user_search",
        "banmen.protocols"),
    5: ("banmen.worker", "banmen.arena", "banmen.viz", "banmen.warmup", "banmen.train"),
    6: ("banmen.web",),
    7: ("banmen.cli", "banmen.__main__", "banmen.bench"),
}  # fmt: skip

#: arrows that climb today, each to be removed; the test fails on any other, and on one
#: of these once it is gone (so the list only shrinks)
KNOWN_CLIMBS: set[tuple[str, str]] = set()


#: packages whose ``__init__`` imports nothing: the ground floor, whatever their modules'
#: floors (importing ``banmen.search.limits`` runs ``banmen/search/__init__.py``, which
#: loads nothing); the floor test checks they stay empty
EMPTY_PACKAGES = {"banmen.search"}


def floor_of(module: str) -> int:
    if module in EMPTY_PACKAGES:
        return 0
    best = max(((len(p), f) for f, ps in FLOORS.items() for p in ps
                if module == p or module.startswith(p + ".")), default=None)  # fmt: skip
    assert best is not None, f"{module} has no floor: add it to FLOORS (and to DESIGN.md)"
    return best[1]


def with_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` with the edges an import runs without naming them: importing ``a.b.c``
    runs ``a/__init__.py`` and ``a/b/__init__.py`` first, for the importer and for what
    it imports. (Not for the cycle test: a package's ``__init__`` may import its own
    modules, each of which runs it first; that is Python's order, not a cycle.)"""

    def parents(m: str) -> set[str]:
        parts = m.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts))} & graph.keys()

    return {m: {p for t in targets | {m} for p in parents(t) | {t}} - {m}
            for m, targets in graph.items()}  # fmt: skip


def climbs(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in graph.items() for b in targets
            if floor_of(b) > floor_of(a)}  # fmt: skip


def test_the_floor_finder_finds_a_climb() -> None:
    graph = {"banmen.search.alphabeta": {"banmen.engine", "banmen.web.server"},
             "banmen.web.server": {"banmen.search.alphabeta"}}  # fmt: skip
    assert climbs(graph) == {("banmen.search.alphabeta", "banmen.web.server")}
    assert floor_of("banmen.games.mattix.board") == 3 and floor_of("banmen.games.registry") == 4
    # an import runs the packages above the module it names: their __init__ files count
    graph = {"banmen.games": {"banmen.games.registry"}, "banmen.games.registry": set(),
             "banmen.games.go": set(), "banmen.games.go.board": set(),
             "banmen.search.alphabeta": {"banmen.games.go.board"}}  # fmt: skip
    assert ("banmen.search.alphabeta", "banmen.games") in climbs(with_packages(graph))
    assert ("banmen.games", "banmen.games.registry") in climbs(graph)


def test_no_arrow_climbs_a_floor() -> None:
    graph = import_graph()
    assert all(not graph[p] for p in EMPTY_PACKAGES), "an EMPTY_PACKAGES __init__ imports"
    found = climbs(with_packages(graph))
    assert found - KNOWN_CLIMBS == set(), "arrows that climb: " + ", ".join(
        f"{a} -> {b}" for a, b in sorted(found - KNOWN_CLIMBS)
    )
    assert KNOWN_CLIMBS <= found, "gone, take it off KNOWN_CLIMBS: " + str(KNOWN_CLIMBS - found)


# --------------------------------------------------------------------------- test oracles

#: the tests' own modules (tests/*.py and its packages): banmen must import none of them
TESTS = paths.ROOT / "tests"
TEST_MODULES = (
    {"tests"}
    | {p.stem for p in TESTS.glob("*.py")}
    | {p.parent.name for p in TESTS.glob("*/__init__.py")}
)
#: the oracles the tests keep (tests/dfpn_reference.py, tests/shogi_position.py,
#: tests/mattix_reference.py): under any package, their names mean test code
ORACLES = {"dfpn_reference", "shogi_position", "mattix_reference"}


def _test_imports(path: Path, root: Path = SRC) -> list[str]:
    """Where ``path`` imports a module of the tests, or an oracle under any name's path
    (every import, those under ``if TYPE_CHECKING:`` too)."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names = [f"{base}.{a.name}" if base else a.name for a in node.names]
            if node.level:
                names = [f".{n}" for n in names]  # relative: never a top-level test module
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] in TEST_MODULES or ORACLES & set(parts):
                hits.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {name}")
    return hits


def test_the_test_import_finder_finds_them(tmp_path: Path) -> None:
    probe = tmp_path / "m.py"
    probe.write_text(
        "import dfpn_reference\n"
        "from banmen.search.dfpn_reference import DfPn\n"
        "from banmen.games.shogi import shogi_position\n"
        "from .shogi_position import ShogiPosition\n"
        "from mattix_reference import parse\n"
        "import tests.dfpn_graph\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from paths import DATA\n"
        "from banmen.search.proof import INF\n"
    )
    assert [h.split(" ")[0] for h in _test_imports(probe, tmp_path)] == [
        f"m.py:{n}" for n in (1, 2, 3, 4, 5, 6, 9)
    ]


def test_banmen_imports_no_test_code() -> None:
    """The tests' oracles stay in tests/: no module of banmen imports them, or any other
    module of the tests."""
    assert {"dfpn_reference", "shogi_position", "paths"} <= TEST_MODULES
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _test_imports(path)]
    assert found == [], "banmen imports test code: " + ", ".join(found)
