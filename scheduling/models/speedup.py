"""Speedup models: how a job's run time changes with the processors it gets.

A job is described by its run time ``t(n)`` on its reference size ``n`` (what it asked for, as the
allocator counts it). A speedup model gives ``S(m)``; the run time on ``m`` processors is
``t(m) = t(n) * S(n) / S(m)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import ParameterError, check_int, check_real

__all__ = ["Speedup", "Linear", "Amdahl", "misp_serial_fraction", "Tabulated"]


class Speedup:
    """Base class: subclasses define :meth:`speedup`."""

    __slots__ = ()

    def speedup(self, m: float) -> float:
        raise NotImplementedError

    def time(self, runtime: float, n: int, m: float) -> float:
        """Run time on ``m`` processors of a job that runs ``runtime`` on ``n``."""
        if m == n:
            return runtime
        return runtime * self.speedup(n) / self.speedup(m)

    def efficiency(self, m: float) -> float:
        """``S(m) / m``."""
        return self.speedup(m) / m


@dataclass(frozen=True, slots=True)
class Linear(Speedup):
    """Linear speedup ``S(m) = m``: folding a job to half its processors doubles its run time
    (Chang & Mohapatra's pessimistic assumption, seed 002 §3.1; Ismail §1.5 ``t(m) = n t(n) / m``).

    >>> Linear().time(10.0, 8, 2)
    40.0
    """

    def speedup(self, m: float) -> float:
        return float(m)

    def time(self, runtime: float, n: int, m: float) -> float:
        return runtime * n / m


@dataclass(frozen=True, slots=True)
class Amdahl(Speedup):
    """MISP speedup from a serial fraction ``f_s`` (Ismail, seed 000 §1.5):
    ``S(m) = m / (f_s (m - 1) + 1)``, so ``t(m) = n [f_s (m-1) + 1] / (m [f_s (n-1) + 1]) t(n)``.

    >>> round(Amdahl(0.1).time(10.0, 8, 4), 4)
    15.2941
    """

    serial_fraction: float

    def __post_init__(self) -> None:
        f = self.serial_fraction
        if not (type(f) is float and 0.0 <= f <= 1.0):  # a float in range: the fast path (one per job under MISP)
            check_real(f, "Amdahl serial_fraction", low=0, high=1)

    def speedup(self, m: float) -> float:
        return m / (self.serial_fraction * (m - 1) + 1)


def misp_serial_fraction(efficiency: float, n: int) -> float:
    """Ismail §1.5: the serial fraction ``f_s = (1 - xi(n)) / (xi(n) (n - 1))`` of a job whose
    efficiency on its ``n`` requested processors is ``xi(n)`` (0 for ``n = 1``)."""
    check_real(efficiency, "efficiency", low=0, high=1, low_open=True)
    check_int(n, "n", low=1)
    if n <= 1:
        return 0.0
    return (1.0 - efficiency) / (efficiency * (n - 1))


@dataclass(frozen=True, slots=True)
class Tabulated(Speedup):
    """Speedup given as a table of efficiencies ``xi(1), xi(2), ..., xi(P)`` (Ismail Table 4.1
    style); ``S(m) = m xi(m)``, linearly interpolated for fractional ``m`` and held at the last
    entry beyond the table."""

    efficiencies: tuple[float, ...]

    def __post_init__(self) -> None:
        e = self.efficiencies
        if isinstance(e, str) or not isinstance(e, tuple | list) or not e:
            raise ParameterError(f"Tabulated efficiencies must be a non-empty sequence xi(1), xi(2), ..., got {e!r}")
        for i, x in enumerate(e):
            check_real(x, f"Tabulated efficiencies[{i}] (xi({i + 1}))", low=0, low_open=True)

    def speedup(self, m: float) -> float:
        e = self.efficiencies
        if m <= 1:
            return m * e[0]
        if m >= len(e):
            return m * e[-1]
        lo = math.floor(m)
        frac = m - lo
        eff = e[lo - 1] * (1 - frac) + e[min(lo, len(e) - 1)] * frac
        return m * eff
