"""Go rule sets as data: a frozen :class:`Rules` and the named presets.

The fields and the presets follow KataGo's rules, "KataGo's Supported Go Rules"
(https://lightvector.github.io/KataGo/rules.html) and the named rule sets KataGo accepts
(``kata-set-rules``, docs/GTP_Extensions.md in the KataGo repository):

=============  ===========  =======  =========  ====  ==================  ====  ========
preset         ko           suicide  scoring    tax   white hcap bonus    komi  handicap
=============  ===========  =======  =========  ====  ==================  ====  ========
chinese        simple       no       area       none  N                   7.5   free
japanese       simple       no       territory  seki  0                   6.5   fixed
tromp-taylor   positional   yes      area       none  0                   7.5   free
aga            situational  no       area       none  N-1                 7.5   fixed
new-zealand    situational  yes      area       none  0                   7.5   free
=============  ===========  =======  =========  ====  ==================  ====  ========

What the fields mean here:

``ko``
    ``"simple"``: a move may not retake a ko at once (recapture a single stone that just
    captured a single stone). ``"positional"``: a move may not recreate any earlier board
    (positional superko). ``"situational"``: a move may not recreate an earlier board with
    the same player to move (situational superko). Under both superko rules the immediate
    ko recapture is reported as ``"ko"``, longer cycles as ``"superko"``. The history is
    every position since the start position (after setup and handicap stones), passes
    included; a pass is always legal. Under simple ko a long cycle (triple ko, sending two
    returning one) may repeat forever; KataGo ends such games by extra rules that banmen
    does not implement.
``suicide``
    whether *multi-stone* suicide is legal (the player's own group is removed and counts as
    captured by the opponent). Single-stone suicide is never legal: it would leave the
    board unchanged, a pass in disguise (KataGo and GNU Go's ``--allow-suicide`` do the
    same).
``scoring``
    ``"area"``: stones plus empty points surrounded by one colour. ``"territory"``:
    surrounded empty points plus prisoners (captures and dead stones).
``tax``
    ``"seki"``: empty points surrounded by a group in seki count for nobody (Japanese);
    ``"none"``: they count like any other territory. (KataGo's ``"all"``, the ancient
    two-points-per-group tax, is not supported.)
``white_handicap_bonus``
    extra points for white in handicap games: ``"0"``, ``"N"`` (the number of handicap
    stones) or ``"N-1"``.
``komi``
    points added to white's score.
``handicap``
    the usual placement of handicap stones: ``"fixed"`` (the GTP star-point layout,
    :meth:`Board.fixed_handicap`) or ``"free"`` (the player chooses,
    :meth:`Board.set_free_handicap`). It tells front ends which to offer; the board
    accepts either.
``friendly_pass_ok``
    KataGo's flag: whether a player may end the game by passing before every dead stone
    is removed. It changes no legality here (dead stones are given to the scorer); it is
    kept so that rules round-trip to KataGo.

KataGo's button (``hasButton``) and Spight-style ko endings are not supported.

    >>> parse_rules("Japanese").scoring
    'territory'
    >>> parse_rules("tromp_taylor") == TROMP_TAYLOR
    True
    >>> parse_rules("ko=situational,scoring=area,suicide=1,komi=7").describe()
    'ko=situational,scoring=area,suicide=1,tax=none,whb=0,komi=7,handicap=free,fpok=1'
    >>> parse_rules("ing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    banmen.games.go.errors.RulesError: unknown rules 'ing': expected one of aga, chinese, ...
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from banmen.games.go.errors import RulesError

__all__ = [
    "Rules",
    "PRESETS",
    "CHINESE",
    "JAPANESE",
    "TROMP_TAYLOR",
    "AGA",
    "NEW_ZEALAND",
    "parse_rules",
    "komi_value",
]

KoRule = Literal["simple", "positional", "situational"]
Scoring = Literal["area", "territory"]
Tax = Literal["none", "seki"]
Bonus = Literal["0", "N", "N-1"]
Placement = Literal["fixed", "free"]

_KO = ("simple", "positional", "situational")
_SCORING = ("area", "territory")
_TAX = ("none", "seki")
_BONUS = ("0", "N", "N-1")
_PLACEMENT = ("fixed", "free")

#: the largest komi accepted (in points, either sign)
MAX_KOMI = 1000.0


def komi_value(value: Any) -> float:
    """A komi as a float: finite and at most :data:`MAX_KOMI` in size (any other value
    raises :class:`RulesError`)."""
    try:
        k = float(value)
    except (TypeError, ValueError):
        raise RulesError(f"bad komi {value!r}: expected a number like 6.5") from None
    if not math.isfinite(k) or abs(k) > MAX_KOMI:
        raise RulesError(f"bad komi {value!r}: expected a finite number from -1000 to 1000")
    return k + 0.0  # no -0.0


@dataclass(frozen=True)
class Rules:
    """One rule set; see the module docstring for the fields. ``name`` is the preset's
    name, or ``"custom"``."""

    ko: KoRule = "simple"
    suicide: bool = False
    scoring: Scoring = "area"
    tax: Tax = "none"
    white_handicap_bonus: Bonus = "0"
    komi: float = 7.5
    handicap: Placement = "free"
    friendly_pass_ok: bool = True
    name: str = "custom"

    def __post_init__(self) -> None:
        for field, value, allowed in (
            ("ko", self.ko, _KO),
            ("scoring", self.scoring, _SCORING),
            ("tax", self.tax, _TAX),
            ("white_handicap_bonus", self.white_handicap_bonus, _BONUS),
            ("handicap", self.handicap, _PLACEMENT),
        ):
            if value not in allowed:
                raise RulesError(
                    f"bad {field} {value!r}: expected one of {', '.join(map(str, allowed))}"
                )
        if not isinstance(self.suicide, bool) or not isinstance(self.friendly_pass_ok, bool):
            raise RulesError("suicide and friendly_pass_ok must be True or False")
        object.__setattr__(self, "komi", komi_value(self.komi))

    @property
    def superko(self) -> int:
        """0 for simple ko, 1 for positional, 2 for situational superko (kernel codes)."""
        return _KO.index(self.ko)

    def handicap_bonus(self, stones: int) -> int:
        """Points white gets for ``stones`` handicap stones."""
        if stones < 2 or self.white_handicap_bonus == "0":
            return 0
        return stones if self.white_handicap_bonus == "N" else stones - 1

    def with_komi(self, komi: float) -> Rules:
        return replace(self, komi=komi_value(komi))

    def same_rules(self, other: Rules) -> bool:
        """Equal in everything but komi and name."""
        return replace(self, komi=0.0, name="") == replace(other, komi=0.0, name="")

    def preset_name(self) -> str | None:
        """The preset these rules are (ignoring komi), or ``None``."""
        for name, preset in PRESETS.items():
            if self.same_rules(preset):
                return name
        return None

    def describe(self) -> str:
        """A ``key=value`` string :func:`parse_rules` reads back (komi included)."""
        return (
            f"ko={self.ko},scoring={self.scoring},suicide={int(self.suicide)},tax={self.tax},"
            f"whb={self.white_handicap_bonus},komi={self.komi:g},handicap={self.handicap},"
            f"fpok={int(self.friendly_pass_ok)}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields by name (:meth:`from_dict` reads them back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Any) -> Rules:
        if isinstance(d, str):
            return parse_rules(d)
        if not isinstance(d, dict):
            raise RulesError("rules must be a preset name or a JSON object")
        known = set(cls.__dataclass_fields__)
        extra = sorted(set(d) - known)
        if extra:
            raise RulesError(f"unknown rules field {extra[0]!r}: expected {', '.join(known)}")
        try:
            rules = cls(**d)
        except TypeError as e:  # pragma: no cover - all fields have defaults
            raise RulesError(f"bad rules: {e}") from None
        return rules


CHINESE = Rules("simple", False, "area", "none", "N", 7.5, "free", True, "chinese")
JAPANESE = Rules("simple", False, "territory", "seki", "0", 6.5, "fixed", False, "japanese")
TROMP_TAYLOR = Rules("positional", True, "area", "none", "0", 7.5, "free", False, "tromp-taylor")
AGA = Rules("situational", False, "area", "none", "N-1", 7.5, "fixed", True, "aga")
NEW_ZEALAND = Rules("situational", True, "area", "none", "0", 7.5, "free", True, "new-zealand")

PRESETS: dict[str, Rules] = {r.name: r for r in (AGA, CHINESE, JAPANESE, NEW_ZEALAND, TROMP_TAYLOR)}
_ALIASES = {
    "korean": "japanese",
    "nz": "new-zealand",
    "newzealand": "new-zealand",
    "tromptaylor": "tromp-taylor",
    "tt": "tromp-taylor",
}
_KEYS = {
    "ko": "ko",
    "scoring": "scoring",
    "score": "scoring",
    "suicide": "suicide",
    "tax": "tax",
    "whb": "white_handicap_bonus",
    "white_handicap_bonus": "white_handicap_bonus",
    "komi": "komi",
    "handicap": "handicap",
    "fpok": "friendly_pass_ok",
    "friendly_pass_ok": "friendly_pass_ok",
}
_TRUE = ("1", "true", "yes", "y")
_FALSE = ("0", "false", "no", "n")


def _unknown(text: str) -> RulesError:
    names = ", ".join(sorted(PRESETS))
    return RulesError(f"unknown rules {text!r}: expected one of {names} (or 'ko=...,scoring=...')")


def parse_rules(text: str | Rules) -> Rules:
    """Rules from a preset name (case-insensitive; ``-``, ``_`` and spaces alike; aliases
    ``korean``, ``nz``, ``tt``) or a ``key=value,...`` string as :meth:`Rules.describe`
    writes (keys ``ko scoring suicide tax whb komi handicap fpok``; unset keys take
    Chinese-like defaults)."""
    if isinstance(text, Rules):
        return text
    if not isinstance(text, str):
        raise RulesError(f"rules must be a preset name, got {type(text).__name__}")
    t = text.strip()
    if "=" in t:
        return _parse_custom(t)
    key = t.lower().replace("_", "-").replace(" ", "-")
    if key in PRESETS:
        return PRESETS[key]
    alias = _ALIASES.get(key.replace("-", ""))
    if alias is not None:
        return PRESETS[alias]
    raise _unknown(t)


def _parse_custom(text: str) -> Rules:
    fields: dict[str, Any] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        k, sep, v = item.partition("=")
        name = _KEYS.get(k.strip().lower())
        if not sep or name is None:
            raise RulesError(
                f"bad rules item {item.strip()!r}: expected key=value with keys "
                "ko, scoring, suicide, tax, whb, komi, handicap, fpok"
            )
        value: Any = v.strip()
        if name in ("suicide", "friendly_pass_ok"):
            low = value.lower()
            if low not in _TRUE + _FALSE:
                raise RulesError(f"bad {k.strip()} {value!r}: expected 1 or 0")
            value = low in _TRUE
        elif name == "white_handicap_bonus":
            value = value.upper()
        elif name != "komi":
            value = value.lower()
        fields[name] = value
    if "tax" not in fields:
        fields["tax"] = "seki" if fields.get("scoring") == "territory" else "none"
    return Rules(**fields)
