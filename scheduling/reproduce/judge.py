"""Judging a claim from its parts: each asserted ordering, bound or stated magnitude is a
:class:`Check` that holds, is refuted, or is undecided at this size, and :func:`judged` turns the
checks into the claim's :class:`~scheduling.reproduce.claims.Outcome`.

A claim's verdict follows its weakest part: it is *reproduced* only when every check holds
significantly; *not reproduced* as soon as one check is refuted (significant the other way, or a
deterministic fact that fails); otherwise *not significant* -- the printed numbers do not
support a verdict either way (at reduced size: "not significant at this size").

* :func:`ordering` -- "A < B" as a paired difference over common random numbers, replicated until
  its 95% interval excludes zero or a stated cap (:func:`~scheduling.metrics.significance.compare_paired`).
* :func:`paired` -- the same test on values already measured per seed (both sides on the same seeds).
* :func:`bound` -- "the mean is above (or below) a value": the 95% interval of the mean over seeds
  must lie wholly on the stated side; lying wholly on the other side refutes it.
* :func:`within` -- a magnitude the paper states, with a tolerance stated beside it: the interval
  of the mean must lie inside ``target ± tolerance``; wholly outside refutes it.
* :func:`fact` -- a deterministic statement (a count, an exact value): holds or is refuted.

>>> from scheduling.reproduce.judge import bound, fact, judged
>>> out = judged([bound("utilisation > 0.8", [0.82, 0.83, 0.84], 0.8, above=True), fact("jobs = 3", True)])
>>> out.holds, out.undecided
(True, ())
>>> judged([bound("utilisation > 0.8", [0.79, 0.83, 0.81], 0.8, above=True)]).undecided
('utilisation > 0.8',)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, Ordering, compare_paired, paired_interval
from ..metrics.summary import confidence_interval
from .claims import Outcome

__all__ = ["Check", "HOLDS", "REFUTED", "UNDECIDED", "ordering", "paired", "bound", "within", "fact", "judged"]

#: The states of a :class:`Check`.
HOLDS, REFUTED, UNDECIDED = "holds", "refuted", "undecided"


@dataclass(frozen=True, slots=True)
class Check:
    """One asserted part of a claim: ``name`` says what is compared (``"R/S(leaves) < R/S(EASY-LL)
    at T = 1000 s"``), ``state`` is :data:`HOLDS`, :data:`REFUTED` or :data:`UNDECIDED`, ``text``
    our numbers with their interval, ``value`` the number compared (a mean or a mean difference)."""

    name: str
    state: str
    text: str
    value: float = math.nan

    def __post_init__(self) -> None:
        if self.state not in (HOLDS, REFUTED, UNDECIDED):
            raise ValueError(f"check {self.name!r}: state must be one of {HOLDS!r}, {REFUTED!r}, {UNDECIDED!r}, "
                             f"got {self.state!r}")

    def __str__(self) -> str:
        return f"{self.name}: {self.text} [{self.state}]"


def _from_ordering(name: str, o: Ordering, expect: str, unit: str = "seeds") -> Check:
    if expect not in (LESS, GREATER):
        raise ValueError(f"check {name!r}: expect must be {LESS!r} or {GREATER!r}, got {expect!r}")
    state = UNDECIDED if o.verdict == NOT_SIGNIFICANT else HOLDS if o.verdict == expect else REFUTED
    last = o.start + o.replications - 1
    text = (f"A - B = {o.mean:.4g} [{o.low:.4g}, {o.high:.4g}] ({o.verdict}; {o.replications} paired "
            f"replications, {unit} {o.start}..{last})")
    return Check(name, state, text, o.mean)


def ordering(name: str, measure_a: Callable[[int], float], measure_b: Callable[[int], float], expect: str = LESS,
             *, start: int = 1, min_replications: int = 3, max_replications: int = 30) -> Check:
    """The ordering ``A expect B`` (``"A < B"`` or ``"A > B"``) as a paired difference over seeds
    ``start, start + 1, ...`` (common random numbers: both measures get the same seed), replicated
    until the 95% interval excludes zero or ``max_replications``. O(replications) measures.

    >>> ordering("A < B", lambda s: 1.0 + 0.1 * s, lambda s: 2.0 + 0.1 * s).state
    'holds'
    """
    return _from_ordering(name, compare_paired(measure_a, measure_b, start=start, min_replications=min_replications,
                                               max_replications=max_replications), expect)


def paired(name: str, a: Sequence[float], b: Sequence[float], expect: str = LESS, *, start: int = 1,
           unit: str = "seeds") -> Check:
    """The ordering ``A expect B`` on values already measured on the same replications (``a[i]``
    and ``b[i]`` on seed ``start + i``; ``unit`` names the replications in the text, e.g.
    ``"windows"`` of a log): holds or is refuted when the 95% interval of the mean difference
    excludes zero, else undecided. With one pair the interval is undefined: undecided.

    >>> paired("A > B", [3.0, 4.0, 5.0], [1.0, 2.0, 2.0], expect="A > B").state
    'holds'
    """
    mean, lo, hi = paired_interval(a, b)
    verdict = GREATER if lo > 0.0 else LESS if hi < 0.0 else NOT_SIGNIFICANT
    o = Ordering(mean, lo, hi, len(a), start, tuple(map(float, a)), tuple(map(float, b)), verdict)
    return _from_ordering(name, o, expect, unit)


def _interval(values: Sequence[float]) -> tuple[float, float, float, int]:
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("no values to judge")
    est = confidence_interval(vals)
    if est.n < 2 or math.isnan(est.half_width):
        return est.mean, est.mean, est.mean, est.n  # one value, or identical ones: no noise to allow for
    return est.mean, est.low, est.high, est.n


def bound(name: str, values: Sequence[float], limit: float, *, above: bool) -> Check:
    """The mean of ``values`` (one per seed) is above ``limit`` (``above=True``) or below it: holds
    when the 95% interval lies wholly on that side, refuted when wholly on the other, else
    undecided. A single value is judged as it is (a deterministic run).

    >>> bound("saturation load > 0.8", [0.835], 0.8, above=True).state
    'holds'
    """
    mean, lo, hi, n = _interval(values)
    ok, bad = (lo > limit, hi < limit) if above else (hi < limit, lo > limit)
    state = HOLDS if ok else REFUTED if bad or (n == 1 and mean == limit) else UNDECIDED
    return Check(name, state, f"{mean:.4g} [{lo:.4g}, {hi:.4g}] (n={n}) against {'>' if above else '<'} {limit:g}",
                 mean)


def within(name: str, values: Sequence[float], target: float, tolerance: float, *, relative: bool = False) -> Check:
    """A magnitude the paper states: the mean of ``values`` equals ``target`` within ``tolerance``
    (absolute, or a fraction of ``|target|`` with ``relative=True``): holds when the 95% interval
    of the mean lies inside the band, refuted when it lies wholly outside, else undecided.

    >>> within("turnaround ~ 1,000 s (±10%)", [1030.0, 990.0, 1010.0], 1000.0, 0.10, relative=True).state
    'holds'
    """
    if tolerance < 0 or not math.isfinite(tolerance):
        raise ValueError(f"check {name!r}: tolerance must be a finite number >= 0, got {tolerance!r}")
    half = tolerance * abs(target) if relative else tolerance
    low, high = target - half, target + half
    mean, lo, hi, n = _interval(values)
    state = HOLDS if low <= lo and hi <= high else REFUTED if hi < low or lo > high else UNDECIDED
    band = f"{target:g} ± {tolerance:.0%}" if relative else f"{target:g} ± {tolerance:g}"
    return Check(name, state, f"{mean:.4g} [{lo:.4g}, {hi:.4g}] (n={n}) against {band}", mean)


def fact(name: str, holds: bool, text: str = "") -> Check:
    """A deterministic part of a claim (no replication noise): it holds or is refuted."""
    return Check(name, HOLDS if holds else REFUTED, text or ("true" if holds else "false"))


def judged(checks: Sequence[Check], ours: str = "", values: Mapping[str, Any] | None = None, *,
           context: str = "", readings: Mapping[str, Outcome] | None = None) -> Outcome:
    """The :class:`~scheduling.reproduce.claims.Outcome` of a claim made of ``checks``: holds
    when every check holds; refuted (``holds`` false, nothing undecided) when any is refuted;
    otherwise undecided, naming the undecided checks. ``ours`` is what the report prints (default:
    ``context``, a colon, then every check with its numbers and state); ``values`` adds numbers;
    ``readings`` the outcomes under the claim's other readings
    (:class:`~scheduling.reproduce.claims.Reading`)."""
    if not checks:
        raise ValueError("a claim needs at least one check")
    refuted = [c for c in checks if c.state == REFUTED]
    undecided = () if refuted else tuple(c.name for c in checks if c.state == UNDECIDED)
    text = ours or (f"{context}: " if context else "") + "; ".join(str(c) for c in checks)
    vals: dict[str, Any] = {"checks": {c.name: (c.state, c.value) for c in checks}}
    vals.update(values or {})
    return Outcome(not refuted and not undecided, text, vals, undecided=undecided, readings=dict(readings or {}))
