"""banmen._jit's faster ``TargetConfig`` methods give numba's own answers."""

from __future__ import annotations

from numba.core import cpu
from numba.core.compiler import Flags

import banmen._jit as J


def _numba_values(flags: Flags) -> dict[str, object]:
    return {k: getattr(flags, k) for k in flags.options}


def test_values_are_numba_values_in_the_same_order() -> None:
    assert Flags.values is J._config_values  # installed
    plain = Flags()
    assert list(plain.values().items()) == list(_numba_values(plain).items())
    set_ = Flags()
    set_.nrt = True
    set_.boundscheck = True
    set_.fastmath = cpu.FastMathOptions(True)
    assert list(set_.values().items()) == list(_numba_values(set_).items())
    assert set_.values() != plain.values()


def test_equality_and_hash_as_numba_has_them() -> None:
    a, b = Flags(), Flags()
    assert a == b and hash(a) == hash(b)
    b.nrt = True
    assert a != b
    assert hash(a) == hash(b)  # numba hashes the option names only
    c = Flags(copy_from=b)
    assert c == b and c is not b
    assert (a == "flags") is False


def test_a_value_outside_the_options_takes_numba_path() -> None:
    odd = Flags()
    odd._values["not_an_option"] = 1
    assert J._config_values(odd) == J._numba_config_values(odd)
    assert "not_an_option" not in odd.values()
