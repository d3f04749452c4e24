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

**The verdict is the full size's.** ``expected`` and ``expected_full`` are *expectations*: ``True``
(reproduced: every asserted part holds significantly), ``False`` (not reproduced) or
:data:`NOT_SIGNIFICANT` (the orderings cannot be told from noise at the replication cap). A claim's
verdict (:attr:`Claim.verdict`, the one ``docs/reproductions.md`` prints and counts) is what the
library asserts at the paper's size; the reduced size the tests run may only confirm it, or say
that it cannot decide (``expected=NOT_SIGNIFICANT`` at reduced size: the test then asserts the
claim is not refuted, and ``topoalloc reproduce`` prints "not significant at this size" beside
the full-size verdict).

**Readings.** Where the paper can be read more than one way, :attr:`Claim.readings` lists every
reading tried, the library's own first, each with the verdict asserted under it; the claim's run
returns the outcome under each (:attr:`Outcome.readings`), and the verdict says "reproduced under
reading X; not reproduced under Y".

**Beyond the papers.** A claim that is not a statement of one of the five seed papers (a set-up
the paper never used, or a paper outside the seeds) says why in :attr:`Claim.beyond` (or belongs to
a paper outside :data:`SEED_PAPERS`): the document reports those in a section of their own, so the
papers' counts are the papers'.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..metrics.summary import Estimate, confidence_interval
from ._papers import PAPER_MODULES

__all__ = ["Size", "Outcome", "Claim", "Reading", "Expectation", "register", "run_claim", "claims", "papers",
           "PAPER_MODULES", "SEED_PAPERS", "estimate", "UnknownClaimError", "NOT_SIGNIFICANT", "NOT_SIGNIFICANT_HERE",
           "outcome_verdict", "expectation_verdict", "satisfies"]

#: The verdict of a claim whose asserted ordering could not be told from noise: the 95% interval of
#: a paired difference still straddled zero at the stated replication cap
#: (:mod:`scheduling.metrics.significance`). Such a claim is never "reproduced".
NOT_SIGNIFICANT = "not significant"
#: The verdict of an undecided run at reduced size: the printed numbers cannot support a verdict
#: there; the full-size verdict is printed beside it.
NOT_SIGNIFICANT_HERE = "not significant at this size"

#: What the library asserts of a claim at one size: ``True`` (reproduced), ``False`` (not
#: reproduced) or :data:`NOT_SIGNIFICANT`.
Expectation = bool | str

#: The five seed papers (``../shared/seeds``); every other paper's claims are reported beyond them.
SEED_PAPERS = ("000", "001", "002", "003", "004")


def _check_expectation(value: Expectation, what: str) -> None:
    if not isinstance(value, bool) and value != NOT_SIGNIFICANT:
        raise ValueError(f"{what} must be True, False or {NOT_SIGNIFICANT!r}, got {value!r}")


def expectation_verdict(expected: Expectation) -> str:
    """The verdict an expectation asserts: ``reproduced``, ``not reproduced`` or ``not significant``.

    >>> expectation_verdict(False), expectation_verdict("not significant")
    ('not reproduced', 'not significant')
    """
    _check_expectation(expected, "expected")
    if expected is True:
        return "reproduced"
    return "not reproduced" if expected is False else NOT_SIGNIFICANT

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
    #: The outcome under each of the claim's other readings (:attr:`Claim.readings`), by name.
    readings: dict[str, Outcome] = field(default_factory=dict)

    @property
    def refuted(self) -> bool:
        """Whether the run contradicts the claim (it neither holds nor is undecided)."""
        return not self.holds and not self.undecided and not self.skipped

    def __post_init__(self) -> None:
        if self.undecided and self.holds:
            raise ValueError(f"an outcome whose orderings {', '.join(self.undecided)} are not significant cannot "
                             "hold")


def satisfies(outcome: Outcome, expected: Expectation, *, quick: bool = False) -> bool:
    """Whether ``outcome`` is what ``expected`` asserts: ``True`` -- it holds; ``False`` -- it does not
    hold; :data:`NOT_SIGNIFICANT` -- undecided at the paper's size, and at reduced size (``quick``)
    merely not refuted (the reduced size cannot decide it, but must not contradict it).

    >>> satisfies(Outcome(True, ""), "not significant", quick=True), satisfies(Outcome(True, ""), "not significant")
    (True, False)
    """
    _check_expectation(expected, "expected")
    if expected is True:
        return outcome.holds
    if expected is False:
        return not outcome.holds
    return not outcome.refuted if quick else bool(outcome.undecided)


def outcome_verdict(outcome: Outcome, expected: Expectation, *, quick: bool = False) -> str:
    """A run's verdict given what the library asserts (``expected``): ``skipped``, ``not
    significant`` (:data:`NOT_SIGNIFICANT`; at reduced size :data:`NOT_SIGNIFICANT_HERE`),
    ``reproduced``, ``reproduced (unexpected)``, ``REGRESSION`` (a claim asserted reproduced that is
    refuted, or undecided at the paper's size) or ``not reproduced``.

    >>> outcome_verdict(Outcome(False, "", undecided=("A < B at load 0.05",)), True)
    'REGRESSION (not significant)'
    >>> outcome_verdict(Outcome(False, "", undecided=("A < B at load 0.05",)), True, quick=True)
    'not significant at this size'
    """
    _check_expectation(expected, "expected")
    if outcome.skipped:
        return "skipped"
    if outcome.undecided:
        if quick:
            return NOT_SIGNIFICANT_HERE
        return "REGRESSION (not significant)" if expected is True else NOT_SIGNIFICANT
    if outcome.holds:
        return "reproduced" if expected is True else "reproduced (unexpected)"
    return "REGRESSION" if expected is True else "not reproduced"


def run_claim(claim: Claim, size: Size) -> Outcome:
    """Run ``claim`` at ``size``; a claim whose trace is missing (:class:`TraceNotFoundError`, whose
    message names the directory and ``TOPOALLOC_TRACES``) gives a skipped :class:`Outcome`."""
    from ..formats.trace_files import TraceNotFoundError

    try:
        return claim.run(size)
    except TraceNotFoundError as exc:
        return Outcome(False, f"skipped: {exc}", skipped=str(exc))


@dataclass(frozen=True, slots=True)
class Reading:
    """One way of reading an ambiguous statement: its ``name`` (``"changes = processors moved"``),
    what it means (``how``), and the verdict the library asserts under it at the paper's size
    (``expected``; at reduced size ``expected_quick`` when it differs)."""

    name: str
    expected: Expectation
    how: str = ""
    expected_quick: Expectation | None = None

    def __post_init__(self) -> None:
        _check_expectation(self.expected, f"reading {self.name!r}: expected")
        if self.expected_quick is not None:
            _check_expectation(self.expected_quick, f"reading {self.name!r}: expected_quick")

    def expects(self, size: Size) -> Expectation:
        """What the library asserts under this reading at ``size``."""
        if size.quick and self.expected_quick is not None:
            return self.expected_quick
        return self.expected


@dataclass(frozen=True)
class Claim:
    """One claim of one paper; see the module docstring.

    ``where`` names the paper's section, figure or table; ``quantity`` the quantity compared (``"mean
    response time over service time per class, paired over seeds"``); ``readings`` every reading
    tried, the library's own first (its expectation must be the claim's at full size); ``beyond``
    why the claim is not a statement of the paper, when it is not."""

    id: str
    paper: str
    where: str
    statement: str
    run: Callable[[Size], Outcome]
    paper_value: str = ""
    expected: Expectation = True
    diagnosis: str = ""
    #: What the library asserts at the paper's size when it differs from ``expected`` (the reduced
    #: size's): a claim that holds on a month of a trace but not on its first days, or the reverse.
    expected_full: Expectation | None = None
    quantity: str = ""
    readings: tuple[Reading, ...] = ()
    beyond: str = ""

    def __post_init__(self) -> None:
        _check_expectation(self.expected, f"claim {self.id!r}: expected")
        if self.expected_full is not None:
            _check_expectation(self.expected_full, f"claim {self.id!r}: expected_full")
        names = [r.name for r in self.readings]
        if len(set(names)) != len(names):
            raise ValueError(f"claim {self.id!r}: reading names must be unique, got {names}")
        if self.readings and self.readings[0].expected != self.expects(Size(quick=False)):
            raise ValueError(f"claim {self.id!r}: its first reading ({self.readings[0].name!r}) is the library's own "
                             f"and must assert the claim's full-size verdict")

    def expects(self, size: Size) -> Expectation:
        """What the library asserts at ``size``: ``True``, ``False`` or :data:`NOT_SIGNIFICANT`."""
        if not size.quick and self.expected_full is not None:
            return self.expected_full
        return self.expected

    @property
    def is_beyond(self) -> bool:
        """Whether the claim is reported beyond the five seed papers (module docstring)."""
        return bool(self.beyond) or self.paper not in SEED_PAPERS

    @property
    def verdict(self) -> str:
        """The verdict the library asserts at the paper's size; with readings, per reading:
        ``"reproduced under reading 'a'; not reproduced under 'b', 'c'"``."""
        full = Size(quick=False)
        if not self.readings:
            return expectation_verdict(self.expects(full))
        groups: dict[str, list[str]] = {}
        for r in self.readings:
            groups.setdefault(expectation_verdict(r.expects(full)), []).append(repr(r.name))
        parts = [f"{v} under reading{'s' if len(n) > 1 else ''} {', '.join(n)}" for v, n in groups.items()]
        return "; ".join(parts)

    @property
    def reduced(self) -> str:
        """What the reduced-size check asserts, beside the verdict: ``confirms``, or how it differs."""
        quick, full = self.expects(Size(quick=True)), self.expects(Size(quick=False))
        if quick == full:
            return "confirms"
        if quick == NOT_SIGNIFICANT:
            return "cannot decide (not refuted)"
        return "holds" if quick is True else "does not hold"


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
