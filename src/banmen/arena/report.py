"""The statistics of a run, rebuilt from its games in the database.

Everything here is a pure function of the run's configuration and games, so
``banmen arena report RUN`` gives the same report however often and whenever it runs.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Sequence
from typing import Any

from banmen.arena.play import start_board
from banmen.arena.runner import planned_jobs, sprt_decisions
from banmen.arena.schedule import Player, make_pairings
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.games import Termination
from banmen.games.registry import get_game, parse_spec
from banmen.stats import bradley_terry, elo_from_score, mean_ci, wilson, z_value

__all__ = [
    "build_report", "games_csv", "pairings_csv", "game_records", "compare_rows",
    "comparison_csv", "endings", "endings_words", "ENDING_WORDS", "proof_counts",
    "proofs_words",
]  # fmt: skip


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return elo_from_score(score)


def _finite(x: float) -> float | None:
    """JSON has no infinity: an unbounded Elo (a 100% score) is reported as null."""
    return x if math.isfinite(x) else None


def _margin(g: GameRecord, a: str) -> int:
    return g.score1 - g.score2 if g.first == a else g.score2 - g.score1


def _points(g: GameRecord, name: str) -> float:
    return g.points_first() if g.first == name else 1 - g.points_first()


def _stopped(g: GameRecord) -> bool:
    """Whether the game was stopped at the ply cap (no result: not a draw)."""
    return g.termination is Termination.PLY_CAP


#: a report's ``endings`` keys in words, in the order they are told
ENDING_WORDS = {
    **{t.value: t.words for t in Termination},
    Termination.PLY_CAP.value: f"{Termination.PLY_CAP.words} (no result: half a point each)",
    "unrecorded": "not recorded (stored before outcomes were)",
}


def endings_words(endings: dict[str, int] | None) -> str:
    """ "ended: 38 by the rules, 2 stopped at the ply cap (no result: half a point
    each)" from a report's ``endings``; "" for a report without them or no games."""
    parts = [f"{n} {ENDING_WORDS.get(k, k)}" for k, n in (endings or {}).items() if n]
    return f"ended: {', '.join(parts)}" if parts else ""


def endings(games: list[GameRecord]) -> dict[str, int]:
    """How many games ended each way, by :class:`~banmen.games.Termination` value
    (``rules``, ``resignation``, ``forfeit``, ``ply_cap``, ``time``), every way listed;
    games stored before outcomes were (and not forfeited) as ``unrecorded``, if any."""
    out = {t.value: 0 for t in Termination}
    for g in games:
        t = g.termination
        key = "unrecorded" if t is None else t.value
        out[key] = out.get(key, 0) + 1
    return out


#: the answers an engine's proofs are counted by, in the order they are told
PROOF_WORDS = ("win", "draw", "loss", "no win", "unproved")


def proof_counts(games: list[GameRecord], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per player whose engine says what it proved (a game's ``extra["proofs"]``: the
    df-pn player's answers, move by move): the moves answered, how many of them each
    answer (:data:`PROOF_WORDS`), the games in which it proved the result at some move,
    and ``contradicted``: proofs the game's end by the rules belies — a proved win in a
    game its side did not win, a proved draw in one it lost (a sound prover has none; a
    proved loss is not belied by an opponent's mistake). Players without proofs are left
    out."""
    out = []
    for name in names:
        count = dict.fromkeys(PROOF_WORDS, 0)
        moves = games_proved = contradicted = 0
        for g in games:
            mine = [p for p in g.extra.get("proofs", ()) if p.get("player") == name]
            if not mine:
                continue
            moves += len(mine)
            if any(p.get("exact") for p in mine):
                games_proved += 1
            by_rules = g.termination is Termination.RULES
            for p in mine:
                word = str(p.get("proof"))
                count[word] = count.get(word, 0) + 1
                side = int(p.get("side", 0))
                if by_rules and ((word == "win" and g.winner != side)
                                 or (word == "draw" and g.winner == 3 - side)):  # fmt: skip
                    contradicted += 1
        if moves:
            out.append({"player": name, "moves": moves, **count, "games_proved": games_proved,
                        "contradicted": contradicted})  # fmt: skip
    return out


def proofs_words(row: dict[str, Any]) -> str:
    """ "d: 12 moves proved a win, 0 a draw, 0 a loss; 3 no win, 5 unproved; the result
    proved in 4 games; none contradicted by a game's result" from a row of
    :func:`proof_counts`."""
    told = ", ".join(f"{row.get(w, 0)} a {w}" for w in ("draw", "loss"))
    rest = f"{row.get('no win', 0)} no win, {row.get('unproved', 0)} unproved"
    bad = row.get("contradicted", 0)
    belied = "none contradicted by a game's result" if not bad else (
        f"{bad} CONTRADICTED by a game's result")  # fmt: skip
    return (f"{row['player']}: {row['moves']} moves answered: {row.get('win', 0)} proved a "
            f"win, {told}; {rest}; the result proved in {row['games_proved']} games; "
            f"{belied}")  # fmt: skip


def _mover_plies(g: GameRecord, name: str, first_side: int) -> list[int]:
    """The plies of ``g`` (indices into its ``times``) that ``name`` played."""
    mine_even = (g.first == name) == (first_side == 1)
    return [k for k in range(len(g.times)) if (k % 2 == 0) == mine_even]


def clock_report(games: list[GameRecord], config: RunConfig,
                 first_side: int = 1) -> dict[str, Any] | None:  # fmt: skip
    """A run on clocks (``--tc``: ``extra["clock"]``, :mod:`banmen.arena.play`), per
    player: its time control, the games it lost on time, the worst clock it had left
    after a move, the share of its time it used in the games that went the distance
    (not lost on time or forfeited: used / (used + left at the end)), and by its move
    number the mean time a move took and the mean clock left (the report's ``clock``
    plot). ``None`` for a run on no clock."""
    timed = [g for g in games if g.extra.get("clock")]
    if not timed:
        return None
    players = []
    margin = None
    for p in config.players:
        name = str(p["name"])
        seconds: dict[int, list[float]] = {}
        left_by: dict[int, list[float]] = {}
        worst: float | None = None
        used_share: list[float] = []
        lost = 0
        n = 0
        for g in timed:
            if name not in (g.first, g.second):
                continue
            clock = g.extra["clock"]
            margin = clock.get("margin", margin)
            flag = g.extra.get("flag")
            if flag and flag.get("player") == name:
                lost += 1
            side = 1 if (g.first == name) == (first_side == 1) else 2
            if clock["controls"][side - 1] is None:
                continue
            n += 1
            left = clock.get("left", [])
            plies = _mover_plies(g, name, first_side)
            for i, k in enumerate(plies):
                seconds.setdefault(i + 1, []).append(g.times[k])
                if k < len(left) and left[k] is not None:
                    left_by.setdefault(i + 1, []).append(float(left[k]))
                    worst = float(left[k]) if worst is None else min(worst, float(left[k]))
            if not flag and not g.extra.get("forfeit") and plies:
                last = left[plies[-1]] if plies[-1] < len(left) else None
                used = sum(g.times[k] for k in plies)
                if last is not None and used + float(last) > 0:
                    used_share.append(used / (used + float(last)))
        players.append({
            "name": name, "tc": p.get("tc"), "games": n, "time_losses": lost,
            "worst_left": worst,
            "used_share": statistics.fmean(used_share) if used_share else None,
            "used_share_min": min(used_share) if used_share else None,
            "by_move": [{"move": m, "mean_seconds": statistics.fmean(seconds[m]),
                         "mean_left": statistics.fmean(left_by[m]) if m in left_by else None,
                         "games": len(seconds[m])} for m in sorted(seconds)],
        })  # fmt: skip
    return {"margin": margin, "players": players}


def _first_side(config: RunConfig) -> int:
    """The side that moves first in the run's games: 1, unless its start position (a
    position given by text) has side 2 to move."""
    if not config.start:
        return 1
    board_from_text = get_game(config.game).board_from_text
    return 1 if board_from_text is None else int(board_from_text(config.start).turn)


def _pairing_row(
    index: int, a: str, b: str, games: list[GameRecord], sprt: dict[str, Any] | None
) -> dict[str, Any]:
    n = len(games)
    wins = sum(1 for g in games if _points(g, a) == 1)
    losses = sum(1 for g in games if _points(g, a) == 0)
    stopped = sum(1 for g in games if _stopped(g))
    draws = n - wins - losses - stopped
    pts = wins + (draws + stopped) / 2
    score = pts / n if n else 0.5
    lo, hi = wilson(pts, n) if n else (0.0, 1.0)
    margins = [_margin(g, a) for g in games]
    row: dict[str, Any] = {
        "pairing": index,
        "a": a,
        "b": b,
        "games": n,
        "a_wins": wins,
        "draws": draws,
        "a_losses": losses,
        # games stopped at the ply cap: no result, half a point each (not draws)
        "stopped": stopped,
        "a_score": score,
        "a_score_ci95": [lo, hi],
        "elo_diff": _finite(_elo(score)) if n else None,
        "elo_diff_ci95": [_finite(_elo(lo)), _finite(_elo(hi))] if n else [None, None],
        "mean_margin": statistics.fmean(margins) if margins else None,
        "mean_margin_ci95": list(mean_ci(margins)[1:]) if len(margins) > 1 else None,
        "margins": margins,
        "first_player_wins": sum(1 for g in games if g.winner == 1),
    }
    if sprt is not None:
        row["sprt"] = sprt
    return row


def build_report(store: ArenaStore, run_id: str) -> dict[str, Any]:
    """The whole report as one JSON-ready dict."""
    config = store.run_config(run_id)
    games = store.games(run_id)
    return report_from(config, games, run_id, store.status(run_id))


def report_from(
    config: RunConfig, games: list[GameRecord], run_id: str = "", status: str = ""
) -> dict[str, Any]:
    players = [Player(p["name"], p["spec"]) for p in config.players]
    names = [p.name for p in players]
    pairings = make_pairings(players, config.gauntlet)
    sprt = sprt_decisions(config, games) if config.sprt else {}
    by_pairing: dict[int, list[GameRecord]] = {i: [] for i in range(len(pairings))}
    for g in games:
        by_pairing.setdefault(g.pairing, []).append(g)
    rows = [_pairing_row(i, a, b, by_pairing[i], sprt.get(i)) for i, (a, b) in enumerate(pairings)]

    # Elo from all pairwise results at once (relative to the first player listed).
    index = {n: i for i, n in enumerate(names)}
    results = [(index[r["a"]], index[r["b"]], r["a_score"] * r["games"], r["games"])
               for r in rows if r["games"]]  # fmt: skip
    ratings, cov = bradley_terry(len(names), results)
    z = z_value(0.95)
    per_player = []
    first_side = _first_side(config) if games else 1
    for i, p in enumerate(players):
        mine = [g for g in games if p.name in (g.first, g.second)]
        pts = sum(_points(g, p.name) for g in mine)
        # (side 1 is the job's first player; the even moves are the first side's)
        moves = [g.times[k] for g in mine for k in _mover_plies(g, p.name, first_side)]
        half = z * math.sqrt(cov[i][i]) if math.isfinite(cov[i][i]) else math.inf
        per_player.append({
            "name": p.name,
            "spec": p.spec,
            "games": len(mine),
            "forfeits": sum(1 for g in mine if g.extra.get("forfeit", {}).get("player") == p.name),
            "points": pts,
            "score": pts / len(mine) if mine else None,
            "elo": ratings[i],
            "elo_ci95": [_finite(ratings[i] - half), _finite(ratings[i] + half)],
            "mean_move_seconds": statistics.fmean(moves) if moves else None,
        })  # fmt: skip

    n = len(games)
    fw = sum(1 for g in games if g.winner == 1)
    fl = sum(1 for g in games if g.winner == 2)
    fs = sum(1 for g in games if _stopped(g))
    fd = n - fw - fl - fs
    planned = len(planned_jobs(config))
    report: dict[str, Any] = {
        "run": run_id,
        "status": status,
        "config": config.to_dict(),
        "games_played": n,
        "games_planned": planned,
        "pairings": rows,
        "players": per_player,
        "elo_anchor": names[0],
        "first_player": {
            "games": n,
            "wins": fw,
            "draws": fd,
            "losses": fl,
            "stopped": fs,
            "win_rate": fw / n if n else None,
            "win_rate_ci95": list(wilson(fw, n)) if n else None,
            "score": (fw + (fd + fs) / 2) / n if n else None,
            "score_ci95": list(wilson(fw + (fd + fs) / 2, n)) if n else None,
        },
        # how the games ended: by the rules, resignation, forfeit, the ply cap, on time
        "endings": endings(games),
    }
    lost: dict[tuple[str, str], int] = {}
    for g in games:
        f = g.extra.get("forfeit")
        if f:
            key = (str(f["player"]), str(f["reason"]))
            lost[key] = lost.get(key, 0) + 1
    # games lost on the spot, per player and reason (arena.play: a user's player that
    # raised, broke its protocol, played an illegal move or overran its time)
    report["forfeits"] = [{"player": p, "reason": r, "games": n}
                          for (p, r), n in sorted(lost.items())]  # fmt: skip
    clocked = clock_report(games, config, first_side)
    if clocked is not None:  # the run played on clocks (--tc): time used and left
        report["clock"] = clocked
    # what the players' engines proved, move by move (the df-pn player: arena.play)
    proved = proof_counts(games, names)
    if proved:
        report["proofs"] = proved
    settled = [g.extra for g in games if "settled" in g.extra or "dead_from" in g.extra]
    if settled:  # Go: how the counted games were settled (banmen.games.go.settle)
        both = [x["dead_answers"] for x in settled if len(x.get("dead_answers", {})) == 2]
        how = [x.get("settled", x.get("dead_from")) for x in settled]
        report["dead_stones"] = {
            "counted_games": len(settled),
            "both_engines_answered": len(both),
            "engines_disagreed": sum(1 for a in both if a["first"] != a["second"]),
            "agreed": how.count("agreed"),
            "cleanup": how.count("cleanup"),
            # records from before the cleanup: a disagreement counted with banmen's estimate
            "from_estimate": how.count("estimate"),
        }
    return report


def numeric_option(spec: str, key: str) -> float | None:
    """The number the spec text states for ``key`` (``depth=4``), or ``None``: a default
    the parser fills in (an ``nboard`` player's depth 8) is not stated, and a spec this
    process cannot read (another version's player kind) states nothing it can plot."""
    if f"{key}=" not in spec.lower():
        return None
    try:
        value = parse_spec(spec).options.get(key)
    except ValueError:  # a game's own spec read without its game: the number as written
        import re

        found = re.search(rf"(?:^|[:,\s]){re.escape(key)}=([0-9.eE+-]+)", spec, re.I)
        try:
            value = float(found.group(1)) if found else None
        except ValueError:
            value = None
    return float(value) if isinstance(value, (int, float)) else None


def games_csv(games: list[GameRecord]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["pairing", "pair", "swapped", "first", "second", "deal_seed", "result",
                "score1", "score2", "plies", "seconds", "moves", "termination"])  # fmt: skip
    for g in games:
        t = g.termination
        w.writerow([g.pairing, g.pair, int(g.swapped), g.first, g.second, g.deal_seed, g.result,
                    g.score1, g.score2, len(g.moves), round(sum(g.times), 6),
                    " ".join(g.moves), "" if t is None else t.value])  # fmt: skip
    return buf.getvalue()


def _elo_cells(r: dict[str, Any]) -> list[Any]:
    """A row's Elo difference and its interval for a CSV file: an unbounded one (null in
    JSON) as ``inf`` or ``-inf``."""
    elo: list[Any] = [r["elo_diff"], *r["elo_diff_ci95"]]
    if r["games"]:
        signs = (r["a_score"] - 0.5, -1, 1)
        elo = [
            ("inf" if s > 0 else "-inf") if x is None else x
            for x, s in zip(elo, signs, strict=True)
        ]
    return elo


def pairings_csv(report: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["a", "b", "games", "a_wins", "draws", "a_losses", "a_score", "a_score_lo",
                "a_score_hi", "elo_diff", "elo_lo", "elo_hi", "mean_margin",
                "stopped"])  # fmt: skip
    for r in report["pairings"]:
        w.writerow([r["a"], r["b"], r["games"], r["a_wins"], r["draws"], r["a_losses"],
                    r["a_score"], *r["a_score_ci95"], *_elo_cells(r),
                    r["mean_margin"], r["stopped"]])  # fmt: skip
    return buf.getvalue()


def compare_rows(reports: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs side by side, from their reports (:func:`build_report`, as is or with its
    non-finite floats as ``None``): a row per run and pairing — one per run of two
    players — with the pairing's W-D-L, the score of its first-named player ``a`` with
    its 95% Wilson interval and the Elo difference it implies (as the report has them),
    the first mover's score over the pairing's games with its interval, and each
    player's forfeits and mean time per move over its whole run (the report's players)."""
    rows: list[dict[str, Any]] = []
    for rep in reports:
        config = rep["config"]
        players = {p["name"]: p for p in rep["players"]}
        for r in rep["pairings"]:
            n = r["games"]
            # A draw is half a point for the first mover as for anyone; so is a game
            # stopped at the ply cap (a report from before them has none).
            first = r["first_player_wins"] + (r["draws"] + r.get("stopped", 0)) / 2
            a, b = players[r["a"]], players[r["b"]]
            rows.append({
                "run": rep["run"],
                "status": rep["status"],
                "game": config["game"],
                "size": config.get("size"),
                "games_played": rep["games_played"],
                "games_planned": rep["games_planned"],
                "pairing": r["pairing"],
                "pairings": len(rep["pairings"]),
                "a": r["a"],
                "b": r["b"],
                "a_spec": a["spec"],
                "b_spec": b["spec"],
                "games": n,
                "a_wins": r["a_wins"],
                "draws": r["draws"],
                "a_losses": r["a_losses"],
                "stopped": r.get("stopped", 0),
                "a_score": r["a_score"],
                "a_score_ci95": r["a_score_ci95"],
                "elo_diff": r["elo_diff"],
                "elo_diff_ci95": r["elo_diff_ci95"],
                "mean_margin": r["mean_margin"],
                "first_player_score": first / n if n else None,
                "first_player_score_ci95": list(wilson(first, n)) if n else None,
                "a_forfeits": a.get("forfeits", 0),
                "b_forfeits": b.get("forfeits", 0),
                "a_move_seconds": a["mean_move_seconds"],
                "b_move_seconds": b["mean_move_seconds"],
            })  # fmt: skip
    return rows


def comparison_csv(rows: Sequence[dict[str, Any]]) -> str:
    """:func:`compare_rows` as CSV, a line per row (an unbounded Elo as ``inf``/``-inf``)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["run", "status", "game", "size", "a", "a_spec", "b", "b_spec", "games",
                "a_wins", "draws", "a_losses", "a_score", "a_score_lo", "a_score_hi",
                "elo_diff", "elo_lo", "elo_hi", "first_player_score", "first_player_lo",
                "first_player_hi", "a_forfeits", "b_forfeits", "a_move_seconds",
                "b_move_seconds"])  # fmt: skip
    for r in rows:
        played = bool(r["games"])
        score = [r["a_score"], *r["a_score_ci95"]] if played else [None] * 3
        elo = _elo_cells(r) if played else [None] * 3
        first = [r["first_player_score"], *(r["first_player_score_ci95"] or [None, None])]
        cells = [r["run"], r["status"], r["game"], r["size"], r["a"], r["a_spec"], r["b"],
                 r["b_spec"], r["games"], r["a_wins"], r["draws"], r["a_losses"], *score,
                 *elo, *first, r["a_forfeits"], r["b_forfeits"], r["a_move_seconds"],
                 r["b_move_seconds"]]  # fmt: skip
        w.writerow(["" if x is None else x for x in cells])
    return buf.getvalue()


def game_records(game_name: str, size: int | None, games: list[GameRecord],
                 specs: dict[str, str], start: str | None = None,
                 ) -> list[tuple[str, str]]:  # fmt: skip
    """Each game as a record file of the game's own format (``GameDef.write_record``,
    Go: SGF), naming the players and their specs: ``(file name, text)``. Games without a
    record format give []. ``start``: the run's start position, if it gave one."""
    game = get_game(game_name)
    write = game.write_record
    if write is None:
        return []
    out = []
    for g in games:
        board = start_board(game, size, g.deal_seed, start)
        for m in g.moves:
            if board.is_game_over():  # (Go: a cleanup's moves follow; settle plays them)
                break
            board.push(board.parse_move(m))
        if game.settle is not None and g.extra:
            game.settle(board, (None, None), g.extra, None)  # the count as it was scored
        first, second = g.first, g.second
        text = write(board, f"{first} ({specs.get(first, '?')})",
                     f"{second} ({specs.get(second, '?')})")  # fmt: skip
        name = f"p{g.pairing}-{g.pair:04d}-{'b' if g.swapped else 'a'}{game.record_suffix}"
        out.append((name, text))
    return out
