"""How ``banmen train`` fits Go's move weights (``+policy``) from banmen's own self-play:
its :class:`~banmen.trainable.ChoiceTrainer`.

The weights (:mod:`.features`) are Coulom's generalised Bradley-Terry model: a move's
strength is the product of its feature levels' gammas, the chance of choosing it its
strength over the sum of all candidates'. ``tools/go_patterns.py`` fitted the shipped
ones to GNU Go's choices; here they are fitted to the choices of banmen's own tree search
(``mcts:playouts=N`` with the current weights: its priors and its playouts' patterns), so
each iteration distils a search into the priors that guide the next one.

The fit replays each self-play game from its deal and, at every position where the
search chose a move (not a pass), takes the features of every candidate
(:func:`.features.all_features`) and which one the search chose. A 3x3 or 12-point pattern
gets a weight of its own once the search chose it at least 3 (5) times in the games
fitted; the others share their group's level 0, as in the shipped files. The log-gammas
maximise the log-likelihood of the choices under the prior of ``tools/go_patterns.py``
(each level one virtual win and one virtual loss against a gamma of 1), by scipy's
L-BFGS-B (the problem is convex; the gradient is exact). One game in ten is held out;
the fit reports the held-out log-loss a choice (nats) and how often the search's choice
is the model's first, by quarter of the game, for the new weights and the current ones.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.engine import SpecError
from banmen.trainable import ChoiceTrainer, Progress

__all__ = ["PolicyTrainer", "fit_choices", "pattern_vocab", "pattern_levels"]

#: quarters of a game: the held-out figures' phases
PHASES = 4


class PolicyTrainer(ChoiceTrainer):
    """Go's move weights (module docstring)."""

    evaluator = "policy"
    #: the self-play's and the gate's playouts a move when the run names none
    playouts = 400
    #: the plays a 3x3 (a 12-point) pattern needs for a weight of its own
    min3 = 3
    min12 = 5
    #: L-BFGS-B's iterations at most
    max_iterations = 300

    def __init__(self, game: Any) -> None:
        self.game = game

    def search(self, depth: int | None, playouts: int | None) -> str:
        if depth is not None:
            raise SpecError("Go's policy is trained with the tree search: give --playouts "
                            "(the playouts a move), not --depth")  # fmt: skip
        return f"mcts:playouts={playouts or self.playouts}"

    def start(self, path: Path, source: Path | None, size: int | None) -> None:
        from banmen.games.go.features import MAX_LEVEL, NGROUPS, Weights

        if source is not None:
            Weights.load(source)  # checked: one line for a file that is not one
            shutil.copyfile(source, path)
            return
        zeros = np.zeros((NGROUPS, MAX_LEVEL))
        Weights.from_canonical(zeros, {}, {}, "trained from zero").save(path)

    def read(self, path: Path) -> npt.NDArray[np.float64]:
        from banmen.games.go.features import Weights

        w = Weights.load(path)
        return np.concatenate([w.levels.ravel(), w.pat3_lg, w.pat12_lg])

    def fit(self, games: Iterable[Any], size: int | None, current: Path, out: Path,
            meta: Mapping[str, Any], progress: Progress) -> dict[str, Any]:  # fmt: skip
        from banmen.games.go.features import Weights

        t0 = time.perf_counter()
        train, held = _Choices(), _Choices()
        count = 0
        for g in games:
            (held if g.index % 10 == 9 else train).add_game(self.game, g, size)
            count += 1
            progress("features", count)
        if train.decisions == 0:
            raise ValueError("no choices to fit: the self-play's search chose no move")
        weights, figures = fit_choices(train, self.min3, self.min12, self.max_iterations,
                                       progress)  # fmt: skip
        info = "; ".join(f"{k}={v}" for k, v in meta.items())
        weights = dataclasses.replace(weights, info=info)
        weights.save(out)
        before = Weights.load(current)
        loss, top1 = held.figures(weights)
        loss0, top10 = held.figures(before)
        return {
            "positions": train.decisions + held.decisions, "held_out": held.decisions,
            "candidates": train.candidates + held.candidates, "error": "log-loss",
            "held_out_error": loss, "held_out_error_before": loss0,
            "held_out_top1": top1, "held_out_top1_before": top10,
            **figures, "seconds": round(time.perf_counter() - t0, 3),
        }  # fmt: skip


class _Choices:
    """The decisions of some games: every candidate's raw features (the pattern codes and
    the other groups' levels), where each decision's candidates start, which one the
    search chose, and the quarter of its game."""

    def __init__(self) -> None:
        self.feats: list[npt.NDArray[np.int64]] = []
        self.counts: list[int] = []
        self.chosen: list[int] = []
        self.phase: list[int] = []
        self.decisions = 0
        self.candidates = 0

    def add_game(self, game: Any, g: Any, size: int | None) -> None:
        from banmen.games.go.features import NGROUPS, all_features
        from banmen.games.go.game import board_of

        board = game.new_board(g.seed, size)
        n = len(g.moves)
        cap = board_of(board).size ** 2 + 1
        moves = np.zeros(cap, dtype=np.int64)
        buf = np.zeros((cap, NGROUPS), dtype=np.int64)
        for i, played in enumerate(g.moves):
            best = g.best[i] if i < len(g.best) else ""
            if best:
                mv = board.parse_move(best)  # (the game's: a resignation too)
                pos = board_of(board).position
                k = all_features(pos.board, pos.grp, pos.meta, moves, buf)
                hit = np.nonzero(moves[:k] == mv)[0]
                if len(hit):  # (a pass, a resignation, an own eye's point: no candidate)
                    self.feats.append(buf[:k].copy())
                    self.counts.append(k)
                    self.chosen.append(int(hit[0]))
                    self.phase.append(i * PHASES // n)
                    self.decisions += 1
                    self.candidates += k
            board.push(board.parse_move(played))

    def arrays(self) -> tuple[Any, Any, Any, Any]:
        """The candidates' features, each decision's first candidate, the chosen
        candidates (indices into the first array) and the phases."""
        from banmen.games.go.features import NGROUPS

        feats = np.concatenate(self.feats) if self.feats else np.zeros((0, NGROUPS), np.int64)
        counts = np.array(self.counts, dtype=np.int64)
        starts = (np.cumsum(counts) - counts).astype(np.int64)  # (none for no decision)
        chosen = starts + np.array(self.chosen, dtype=np.int64)
        return feats, starts, chosen, np.array(self.phase, dtype=np.int64)

    def figures(self, w: Any) -> tuple[list[float | None], list[float | None]]:
        """The log-loss a choice and the top-1 rate under the weights ``w``, by phase."""
        feats, starts, chosen, phase = self.arrays()
        if len(starts) == 0:
            return [None] * PHASES, [None] * PHASES
        s = log_gammas(w, feats)
        loss, first = _choice_loss(s, starts, chosen)
        out_loss: list[float | None] = []
        out_top: list[float | None] = []
        for p in range(PHASES):
            m = phase == p
            out_loss.append(float(loss[m].mean()) if m.any() else None)
            out_top.append(float(first[m].mean()) if m.any() else None)
        return out_loss, out_top


def log_gammas(w: Any, feats: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Each candidate's log-gamma under the weights ``w`` (:class:`.features.Weights`),
    as the engine reads them (:func:`.features.move_log_gamma`), for a block of raw
    feature rows."""
    from banmen.games.go.features import NGROUPS

    t = np.zeros(len(feats))
    for col, codes, lg in ((0, w.pat3_codes, w.pat3_lg), (1, w.pat12_codes, w.pat12_lg)):
        i = np.minimum(np.searchsorted(codes, feats[:, col]), max(len(codes) - 1, 0))
        hit = codes[i] == feats[:, col] if len(codes) else np.zeros(len(feats), bool)
        t += np.where(hit, lg[i] if len(codes) else 0.0, w.levels[col, 0])
    for g in range(2, NGROUPS):
        t += w.levels[g, feats[:, g]]
    return t


def _choice_loss(s: npt.NDArray[np.float64], starts: npt.NDArray[np.int64],
                 chosen: npt.NDArray[np.int64]) -> tuple[Any, Any]:  # fmt: skip
    """Per decision: minus the log-probability of the chosen candidate, and whether no
    other candidate scores as high (a tie counts against the choice)."""
    m = np.maximum.reduceat(s, starts)
    counts = np.diff(np.append(starts, len(s)))
    dec = np.repeat(np.arange(len(starts)), counts)
    z = np.add.reduceat(np.exp(s - m[dec]), starts)
    loss = -(s[chosen] - m - np.log(z))
    ties = np.add.reduceat((s >= s[chosen][dec]).astype(np.int64), starts) - 1
    return loss, ties == 0


def fit_choices(data: _Choices, min3: int, min12: int, max_iterations: int,
                progress: Progress) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """The weights (:class:`.features.Weights`) that maximise the choices' likelihood
    (module docstring), and the fit's figures."""
    from scipy.optimize import minimize

    from banmen.games.go.features import GROUPS, LEVELS, MAX_LEVEL, NGROUPS, Weights

    feats, starts, chosen, _phase = data.arrays()
    vocab = [pattern_vocab(feats[chosen, 0], 8, min3), pattern_vocab(feats[chosen, 1], 12, min12)]
    sizes = [len(vocab[0]) + 1, len(vocab[1]) + 1] + [LEVELS[g] for g in GROUPS[2:]]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cols = [pattern_levels(feats[:, 0], vocab[0], 8), pattern_levels(feats[:, 1], vocab[1], 12)]
    cols += [feats[:, g] for g in range(2, NGROUPS)]
    ids = np.stack([c + offsets[g] for g, c in enumerate(cols)], axis=1)
    nf = int(offsets[-1])
    counts = np.diff(np.append(starts, len(ids)))
    dec = np.repeat(np.arange(len(starts)), counts)
    flat = ids.ravel()
    wins = np.bincount(ids[chosen].ravel(), minlength=nf).astype(np.float64)
    calls = {"n": 0}

    def objective(lg: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        calls["n"] += 1
        progress("lbfgs", calls["n"])
        s = lg[ids].sum(axis=1)
        m = np.maximum.reduceat(s, starts)
        e = np.exp(s - m[dec])
        z = np.add.reduceat(e, starts)
        p = e / z[dec]
        nll = -float(np.sum(s[chosen] - m - np.log(z)))
        grad = np.bincount(flat, weights=np.repeat(p, ids.shape[1]), minlength=nf) - wins
        # the prior: one virtual win and one virtual loss against a gamma of 1 a level
        nll += float(np.sum(2.0 * np.logaddexp(0.0, lg) - lg))
        grad += 2.0 / (1.0 + np.exp(-lg)) - 1.0
        return nll, grad

    res = minimize(objective, np.zeros(nf), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iterations})  # fmt: skip
    lg = np.asarray(res.x, dtype=np.float64)
    levels = np.zeros((NGROUPS, MAX_LEVEL))
    levels[0, 0] = lg[offsets[0]]
    levels[1, 0] = lg[offsets[1]]
    for g in range(2, NGROUPS):
        n = LEVELS[GROUPS[g]]
        levels[g, :n] = lg[offsets[g] : offsets[g] + n]
    pat3 = {c: float(lg[offsets[0] + i]) for c, i in vocab[0].items()}
    pat12 = {c: float(lg[offsets[1] + i]) for c, i in vocab[1].items()}
    figures = {"patterns3": len(vocab[0]), "patterns12": len(vocab[1]),
               "lbfgs_iterations": int(res.nit),
               "train_log_loss": float(res.fun) / len(starts)}  # fmt: skip
    return Weights.from_canonical(levels, pat3, pat12), figures


def pattern_vocab(codes: npt.NDArray[np.int64], ncells: int, min_count: int) -> dict[int, int]:
    """Canonical pattern -> level (1 ..), for those chosen at least ``min_count`` times."""
    from banmen.games.go.features import canonical

    uniq, n = np.unique(codes, return_counts=True)
    counts: dict[int, int] = {}
    for code, k in zip(uniq.tolist(), n.tolist(), strict=True):
        c = canonical(int(code), ncells)
        counts[c] = counts.get(c, 0) + int(k)
    kept = sorted(c for c, k in counts.items() if k >= min_count)
    return {c: i + 1 for i, c in enumerate(kept)}


def pattern_levels(raw: npt.NDArray[np.int64], vocab: dict[int, int],
            ncells: int) -> npt.NDArray[np.int64]:  # fmt: skip
    """Each raw code's level (0: its canonical pattern is not in ``vocab``)."""
    from banmen.games.go.features import canonical

    uniq, inv = np.unique(raw, return_inverse=True)
    lv = np.array([vocab.get(canonical(int(u), ncells), 0) for u in uniq], dtype=np.int64)
    return lv[inv].reshape(-1)
