"""How the lo97 and contention claims judge their orderings: an ordering significant the other way
refutes a claim, one still straddling zero at the replication cap makes it "not significant", never
reproduced (scheduling.reproduce.claims, scheduling.reproduce.noncontig)."""

from __future__ import annotations

import importlib

import pytest

from scheduling.metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, Ordering
from scheduling.reproduce import Outcome, Size, claims, verdict
from scheduling.reproduce.report import Result

claims_module = importlib.import_module("scheduling.reproduce.claims")
noncontig = importlib.import_module("scheduling.reproduce.noncontig")


def _o(verdict: str) -> Ordering:
    return Ordering(-1.0 if verdict == LESS else 1.0, -2.0, 2.0, 6, 1, (), (), verdict)


def test_every_ordering_must_be_significant_the_asserted_way():
    holds, undecided, lines = noncontig._judge({"x": (_o(LESS), LESS), "y": (_o(GREATER), GREATER)})
    assert holds and undecided == () and len(lines) == 2
    holds, undecided, _ = noncontig._judge({"x": (_o(LESS), LESS), "y": (_o(NOT_SIGNIFICANT), GREATER)})
    assert not holds and undecided == ("y",)
    holds, undecided, _ = noncontig._judge({"x": (_o(GREATER), LESS), "y": (_o(NOT_SIGNIFICANT), GREATER)})
    assert not holds and undecided == ()  # refuted outright


def test_a_claim_that_is_not_significant_is_never_reproduced():
    with pytest.raises(ValueError, match="not significant"):
        Outcome(True, "", undecided=("x",))
    out = Outcome(False, "", undecided=("x",))
    # asserted reproduced but undecided at the paper's size: a regression, which says why
    assert claims_module.outcome_verdict(out, True) == "REGRESSION (not significant)"
    assert claims_module.outcome_verdict(out, False) == claims_module.NOT_SIGNIFICANT
    assert claims_module.outcome_verdict(out, claims_module.NOT_SIGNIFICANT) == claims_module.NOT_SIGNIFICANT
    assert claims_module.outcome_verdict(out, True, quick=True) == claims_module.NOT_SIGNIFICANT_HERE
    assert verdict(Result(claims("lo97")[0], out)) != "reproduced"


def test_the_contention_claim_says_where_paging_loses_to_first_fit(monkeypatch):
    """With runs whose mean response times are set (first fit 10 plus the seed's noise; Paging 1
    slower at load 0.05, 1 faster above; MBS and Hilbert 1 faster everywhere), the claim does not
    hold, names the load where Paging(0) loses, and asserts every other ordering."""

    def run(name, load, seed, jobs, warmup, model="none", placement=False):
        base = 10.0 + 0.3 * ((seed * 7919) % 5)  # the seed's jobs, shared by every allocator
        delta = {"FirstFit": 0.0, "Paging": 1.0 if load < 0.1 else -1.0}.get(name, -1.0)
        return {"mean_turnaround": base + delta + 0.01 * (seed % 2)}

    monkeypatch.setattr(noncontig, "_run", run)
    out = noncontig._ordering(Size(quick=True))
    assert not out.holds and out.undecided == ()
    assert "Paging(0) is significantly slower than first fit at load 0.05;" in out.ours
    assert out.values["Paging < FirstFit at load 0.05"]["verdict"] == GREATER
    assert out.values["Paging < FirstFit at load 0.2"]["verdict"] == LESS
    assert all(out.values[f"{n} < FirstFit at load {x}"]["verdict"] == LESS
               for n in ("MBS", "HilbertBestFit") for x in noncontig.QUICK_LOADS)
