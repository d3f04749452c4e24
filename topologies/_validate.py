"""Checks of public parameters, shared by :mod:`topologies`, :mod:`topoalloc` and :mod:`scheduling`.

Private: the three packages call these at their public boundaries (constructors, ``simulate``,
configuration files) so that NaN, infinities, booleans, strings and out-of-range numbers are
refused where they are given, with one message shape that names the parameter and the value::

    load must be a finite number > 0, got nan
    jobs must be an integer >= 1, got True (bool)

Each check returns the value converted (``int``, ``float`` or ``bool``) or raises ``error``
(:class:`~topologies.errors.ParameterError` unless the caller's module has a more specific
:class:`ValueError` subclass, e.g. :class:`~topologies.TopologyError`). A boolean is never a
number here (``True`` is an ``int`` to Python, but a load of ``True`` is a mistake), and an
integral parameter refuses floats such as ``2.0``.

>>> check_real(0.5, "load", low=0, low_open=True)
0.5
>>> check_real(float("nan"), "load", low=0, low_open=True)
Traceback (most recent call last):
...
topologies.errors.ParameterError: load must be a finite number > 0, got nan
>>> check_int(True, "jobs", low=1)
Traceback (most recent call last):
...
topologies.errors.ParameterError: jobs must be an integer >= 1, got True (bool)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = ["check_int", "check_real", "check_bool", "check_choice", "shown", "is_real", "is_int"]


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integral number that is not a boolean (numpy integers count)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number that is not a boolean (ints and numpy floats count)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """``value`` as a message shows it: numbers plainly (``nan``, ``-inf``, ``2.5``, ``3``), anything
    else as its repr with its type (``True (bool)``, ``'3' (str)``)."""
    if is_int(value):
        return str(int(value))
    if is_real(value):
        return repr(float(value))
    return f"{value!r} ({type(value).__name__})"


def _bounds(low: Any, high: Any, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high}"
    return ""


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None,
              error: type[Exception] = ParameterError) -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) in ``[low, high]``; else ``error``
    naming ``name`` and the value."""
    if is_int(value):
        got = int(value)
        if (low is None or got >= low) and (high is None or got <= high):
            return got
        value = got  # shown as the int it is
    raise error(f"{name} must be an integer {_bounds(low, high, False, False)}".rstrip() + f", got {shown(value)}")


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, finite: bool = True,
               error: type[Exception] = ParameterError) -> float:
    """``value`` as a ``float`` if it is a real number (not a bool, not NaN; finite unless
    ``finite=False``) within the bounds (``low_open``/``high_open`` exclude the bound itself);
    else ``error`` naming ``name`` and the value."""
    if is_real(value):
        got = float(value)
        ok = not math.isnan(got) and (not finite or math.isfinite(got))
        ok = ok and (low is None or (got > low if low_open else got >= low))
        ok = ok and (high is None or (got < high if high_open else got <= high))
        if ok:
            return got
        value = got  # shown as the float it is
    what = "a finite number" if finite else "a number"
    raise error(f"{name} must be {what} {_bounds(low, high, low_open, high_open)}".rstrip()
                + f", got {shown(value)}")


def check_bool(value: Any, name: str, *, error: type[Exception] = ParameterError) -> bool:
    """``value`` if it is ``True`` or ``False`` (numpy booleans count); else ``error``."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise error(f"{name} must be true or false, got {shown(value)}")


def check_choice(value: Any, name: str, choices: Any, *, error: type[Exception] = ParameterError) -> Any:
    """``value`` if it is one of ``choices``; else ``error`` listing them."""
    try:
        ok = value in choices
    except TypeError:  # an unhashable value against a set or dict
        ok = False
    if not ok:
        raise error(f"{name} must be one of {', '.join(map(str, choices))}; got {shown(value)}")
    return value
