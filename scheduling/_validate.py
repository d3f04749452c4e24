"""Parameter checks for the scheduling layer (private).

The checks themselves live in the bottom layer (:mod:`topologies._validate`) so that all three
packages refuse NaN, infinities, booleans and out-of-range values with the same message shape
(``load must be a finite number > 0, got nan``); this module re-exports them and adds the few
checks only scheduling needs.
"""

from __future__ import annotations

from typing import Any

from topologies._validate import check_bool, check_choice, check_int, check_real, is_int, is_real, shown
from topologies.errors import ParameterError

__all__ = ["ParameterError", "check_int", "check_real", "check_bool", "check_choice", "check_seed", "check_has",
           "check_optional_real", "is_int", "is_real", "shown"]


def check_seed(value: Any, name: str = "seed", *, error: type[Exception] = ParameterError) -> int:
    """A seed for ``numpy.random.SeedSequence``: an integer >= 0."""
    return check_int(value, name, low=0, error=error)


def check_optional_real(value: Any, name: str, **bounds: Any) -> float | None:
    """``None``, or :func:`check_real` of ``value``."""
    return None if value is None else check_real(value, name, **bounds)


def check_has(value: Any, name: str, what: str, *attributes: str) -> Any:
    """``value`` if it has every one of ``attributes`` (duck typing); else :class:`ParameterError`
    saying what ``name`` must be (``what``) and which attribute is missing."""
    for attr in attributes:
        if not hasattr(value, attr):
            raise ParameterError(f"{name} must be {what} (with .{attr}), got {shown(value)}")
    return value
