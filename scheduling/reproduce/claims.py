"""One definition per paper claim, shared by the reproduction tests and ``topoalloc reproduce``.

A :class:`Claim` names the paper, the figure or table, the claim *as the paper states it*, the
paper's number where it gives one, and a function that runs the experiment at a :class:`Size`
(``quick``: a reduced size that the test suite runs in seconds; ``full``: the paper's size) and
returns an :class:`Outcome`: whether the claim holds in our run, and our numbers with their 95%
intervals over seeds. ``expected`` is what the library asserts today: ``True`` for a claim that
reproduces, ``False`` for a documented non-reproduction (the tests mark those
``xfail(strict=True)``, so a claim that starts to hold is noticed too). ``diagnosis`` points to
the claim's section of ``docs/reproductions.md``. A claim that needs a shared trace finds it with
:func:`~scheduling.formats.trace_files.trace_path`; when the trace is absent, :func:`run_claim` reports
it skipped (the tests skip it with the same reason) instead of failing.

Claims register themselves from one module per paper (:data:`PAPER_MODULES`), imported on
demand, so ``claims("002")`` imports only seed 002's definitions.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..metrics.summary import Estimate, confidence_interval
from ._papers import PAPER_MODULES

__all__ = ["Size", "Outcome", "Claim", "register", "run_claim", "claims", "papers", "PAPER_MODULES", "estimate",
           "UnknownClaimError", "NOT_SIGNIFICANT", "outcome_verdict"]

#: The verdict of a claim whose asserted ordering could not be told from noise: the 95% interval of
#: a paired difference still straddled zero at the stated replication cap
#: (:mod:`scheduling.metrics.significance`). Such a claim is never "reproduced".
NOT_SIGNIFICANT = "not significant"

class UnknownClaimError(KeyError):
    """No claim (or paper) of that name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class Size:
    """How big a reproduction run is: ``quick`` (reduced, for the tests) or the papers' size."""

    quick: bool = True

    def pick(self, quick: Any, full: Any) -> Any:
        """``quick`` at reduced size, ``full`` at the paper's size."""
        return quick if self.quick else full

    @property
    def name(self) -> str:
        return "quick" if self.quick else "full"


@dataclass(frozen=True)
class Outcome:
    """What one run of a claim found: ``holds`` (the claim as stated holds), ``ours`` (our numbers,
    human-readable, with 95% intervals over seeds) and ``values`` (the same, as numbers).

    ``undecided`` names the asserted orderings that were not significant at the replication cap
    (and none was significant the other way): the claim's verdict is then :data:`NOT_SIGNIFICANT`,
    and ``holds`` must be false."""

    holds: bool
    ours: str
    values: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""  # why the claim could not run (an input such as a shared trace is missing)
    undecided: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.undecided and self.holds:
            raise ValueError(f"an outcome whose orderings {', '.join(self.undecided)} are not significant cannot "
                             "hold")


def outcome_verdict(outcome: Outcome, expected: bool) -> str:
    """A run's verdict given what the library asserts (``expected``): ``skipped``, ``not
    significant`` (:data:`NOT_SIGNIFICANT`), ``reproduced``, ``reproduced (unexpected)``,
    ``REGRESSION`` or ``not reproduced``.

    >>> outcome_verdict(Outcome(False, "", undecided=("A < B at load 0.05",)), True)
    'not significant'
    """
    if outcome.skipped:
        return "skipped"
    if outcome.undecided:
        return NOT_SIGNIFICANT
    if outcome.holds:
        return "reproduced" if expected else "reproduced (unexpected)"
    return "REGRESSION" if expected else "not reproduced"


def run_claim(claim: Claim, size: Size) -> Outcome:
    """Run ``claim`` at ``size``; a claim whose trace is missing (:class:`TraceNotFoundError`, whose
    message names the directory and ``TOPOALLOC_TRACES``) gives a skipped :class:`Outcome`."""
    from ..formats.trace_files import TraceNotFoundError

    try:
        return claim.run(size)
    except TraceNotFoundError as exc:
        return Outcome(False, f"skipped: {exc}", skipped=str(exc))


@dataclass(frozen=True)
class Claim:
    """One claim of one paper; see the module docstring."""

    id: str
    paper: str
    where: str
    statement: str
    run: Callable[[Size], Outcome]
    paper_value: str = ""
    expected: bool = True
    diagnosis: str = ""
    #: What the library asserts at the paper's size when it differs from ``expected`` (the reduced
    #: size's): a claim that holds on a month of a trace but not on its first days, or the reverse.
    expected_full: bool | None = None

    def expects(self, size: Size) -> bool:
        """Whether the claim is asserted to hold at ``size``."""
        if not size.quick and self.expected_full is not None:
            return self.expected_full
        return self.expected

    @property
    def verdict(self) -> str:
        """What the library asserts: ``reproduced``, ``not reproduced``, or which size it holds at."""
        full = self.expects(Size(quick=False))
        if full == self.expected:
            return "reproduced" if self.expected else "not reproduced"
        return "reproduced at reduced size only" if self.expected else "reproduced at full size only"


_CLAIMS: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (ids are unique)."""
    if claim.paper not in PAPER_MODULES:
        raise ValueError(f"claim {claim.id!r}: unknown paper {claim.paper!r}; known: {', '.join(PAPER_MODULES)}")
    if claim.id in _CLAIMS and _CLAIMS[claim.id] is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    _CLAIMS[claim.id] = claim
    return claim


def papers() -> list[str]:
    """The paper ids that have claims."""
    return list(PAPER_MODULES)


def claims(paper: str | None = None, ids: Sequence[str] | None = None) -> list[Claim]:
    """The registered claims, of one ``paper`` (``"002"``) or all, optionally only ``ids``; in
    paper order, then definition order."""
    if paper is not None and paper not in PAPER_MODULES:
        raise UnknownClaimError(f"unknown paper {paper!r}; known: {', '.join(PAPER_MODULES)}")
    for p in [paper] if paper is not None else list(PAPER_MODULES):
        module = PAPER_MODULES[p][0]
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    out = [c for c in _CLAIMS.values() if paper is None or c.paper == paper]
    order = list(PAPER_MODULES)
    out.sort(key=lambda c: order.index(c.paper))
    if ids is not None:
        known = {c.id for c in out}
        missing = [i for i in ids if i not in known]
        if missing:
            raise UnknownClaimError(
                f"unknown claim(s) {', '.join(map(repr, missing))}; known: {', '.join(sorted(known))}")
        out = [c for c in out if c.id in set(ids)]
    return out


def estimate(values: Sequence[float], fmt: str = ".3g") -> tuple[Estimate, str]:
    """The 95% interval of ``values`` (one per seed) and its text, ``"m ± h (n)"``."""
    est = confidence_interval(values)
    if est.n < 2 or math.isnan(est.half_width):
        return est, f"{est.mean:{fmt}} (n={est.n})"
    return est, f"{est.mean:{fmt}} ± {est.half_width:.2g} (n={est.n})"
