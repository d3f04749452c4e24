"""Every paper claim the library asserts, at reduced size: the same definitions ``topoalloc
reproduce`` runs (scheduling/reproduce/). A claim the library documents as not reproduced is
``xfail(strict=True)`` with its diagnosis, so a claim that starts to hold is noticed too."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling.cli import main
from scheduling.reproduce import DOC_PATH, NOT_SIGNIFICANT, Size, claims, document, run_claim, verdict
from scheduling.reproduce.claims import satisfies
from scheduling.reproduce.report import Result

ROOT = Path(__file__).resolve().parents[3]


def _params():
    out = []
    for c in claims():
        marks = [] if c.expected is not False else [
            pytest.mark.xfail(strict=True, reason=f"documented: {DOC_PATH}#{c.id}")]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("claim", _params())
def test_claim_as_the_paper_states_it(claim):
    """At reduced size: a claim asserted to hold holds significantly; one the reduced size cannot
    decide (``expected=NOT_SIGNIFICANT``) is at least not refuted; every reading is reported, and
    each is what the library asserts under it."""
    quick = Size(quick=True)
    outcome = run_claim(claim, quick)
    if outcome.skipped:
        pytest.skip(outcome.skipped)
    for r in claim.readings[1:]:
        assert r.name in outcome.readings, f"{claim.id}: reading {r.name!r} not reported"
        other = outcome.readings[r.name]
        assert satisfies(other, r.expects(quick), quick=True), (
            f"{claim.id} under reading {r.name!r}: asserted {r.expects(quick)!r}, ours: {other.ours}")
    if claim.expected == NOT_SIGNIFICANT:
        assert not outcome.refuted, f"{claim.id}: refuted at reduced size -- ours: {outcome.ours}"
    else:
        assert outcome.holds, f"{claim.id}: {claim.statement} -- ours: {outcome.ours}"


def test_every_claim_is_documented_and_the_document_is_current():
    """docs/reproductions.md is generated from the claim definitions and the diagnosis sections; a
    claim added, removed or re-judged without regenerating it fails here."""
    text = (ROOT / DOC_PATH).read_text(encoding="utf-8")
    assert text == document(ROOT), "run: topoalloc reproduce --doc docs/reproductions.md"
    for c in claims():
        assert f'<a id="{c.id}"></a>' in text
        if not c.expected:
            assert c.diagnosis or (ROOT / "docs" / "reproductions").is_dir()


def test_claim_ids_are_unique_and_name_their_paper():
    ids = [c.id for c in claims()]
    assert len(ids) == len(set(ids))
    assert all(c.id.startswith(c.paper) for c in claims())


def test_verdicts_distinguish_regressions_from_documented_gaps():
    ok = claims("002")[0]
    from scheduling.reproduce import Outcome

    assert verdict(Result(ok, Outcome(True, ""))) == "reproduced"
    assert verdict(Result(ok, Outcome(False, ""))) == "REGRESSION"
    assert verdict(Result(ok, Outcome(False, "", skipped="no trace"))) == "skipped"


def test_a_claim_judged_per_size():
    """The verdict is the full size's; the reduced size may only confirm it or differ visibly."""
    from scheduling.reproduce import Claim, Outcome

    c = Claim("002-y", "002", "Fig. 0", "holds on the full log only", lambda size: Outcome(False, ""),
              expected=False, expected_full=True)
    assert c.verdict == "reproduced" and c.reduced == "does not hold"
    assert not c.expects(Size(quick=True)) and c.expects(Size(quick=False))
    assert verdict(Result(c, Outcome(False, ""), Size(quick=False))) == "REGRESSION"
    assert verdict(Result(c, Outcome(False, ""), Size(quick=True))) == "not reproduced"
    full_only = [x.id for x in claims("004") if x.expected_full is not None]
    assert "004-s6-leaves-classes-7-9-3x" in full_only


def test_a_run_that_cannot_decide_says_so_with_the_full_size_verdict(capsys):
    from scheduling.reproduce import Claim, Outcome
    from scheduling.reproduce.report import format_results

    undecided = Outcome(False, "A - B = 0.46 [-0.49, 1.41]", undecided=("A > B",))
    c = Claim("002-z", "002", "Fig. 9", "A beats B", lambda size: undecided, expected=NOT_SIGNIFICANT,
              expected_full=True)
    quick = Result(c, undecided, Size(quick=True))
    assert verdict(quick) == "not significant at this size"
    assert "full size: reproduced" in format_results(quick)
    assert verdict(Result(c, undecided, Size(quick=False))) == "REGRESSION (not significant)"
    assert c.reduced == "cannot decide (not refuted)"
    refuted = Outcome(False, "A - B = -2 [-3, -1]")
    assert refuted.refuted and not satisfies(refuted, NOT_SIGNIFICANT, quick=True)
    assert satisfies(undecided, NOT_SIGNIFICANT, quick=True) and satisfies(undecided, NOT_SIGNIFICANT)
    with pytest.raises(ValueError, match="maybe"):
        Claim("002-w", "002", "x", "y", lambda size: undecided, expected="maybe")


def test_readings_are_reported_side_by_side():
    from scheduling.reproduce import Claim, Outcome, Reading
    from scheduling.reproduce.report import reading_verdicts

    readings = (Reading("moved", True, "processors moved"), Reading("resizes", False, "resize events"))
    other = Outcome(False, "resizes: DPROP first")
    c = Claim("000-r", "000", "Table 4.3", "DSMJF changes least", lambda size: Outcome(True, "", readings={}),
              readings=readings)
    assert c.verdict == "reproduced under reading 'moved'; not reproduced under reading 'resizes'"
    r = Result(c, Outcome(True, "moved: DSMJF least", readings={"resizes": other}), Size(quick=False))
    assert reading_verdicts(r) == [("resizes", "not reproduced")]
    assert reading_verdicts(Result(c, Outcome(True, ""), Size(quick=False))) == [("resizes", "missing")]
    with pytest.raises(ValueError, match="first reading"):
        Claim("000-s", "000", "x", "y", lambda size: Outcome(True, ""), expected=False, readings=readings)


def test_the_document_opens_with_the_verdicts_per_paper_and_sets_the_beyond_claims_apart():
    from scheduling.reproduce import SEED_PAPERS, summary_table

    table = summary_table()
    for paper in SEED_PAPERS:
        assert f"| {paper}: " in table
    assert "beyond the five papers" in table
    text = document(ROOT)
    assert text.index("## Summary") < text.index("## 000:") < text.index("## Beyond the five papers")
    beyond = text[text.index("## Beyond the five papers"):]
    for c in claims():
        assert (f'<a id="{c.id}"></a>' in beyond) == c.is_beyond, c.id


def test_every_claim_names_the_quantity_it_compares():
    missing = [c.id for c in claims() if not c.quantity.strip()]
    assert not missing, f"claims without a quantity: {missing}"


def test_a_claim_whose_trace_is_missing_is_skipped_with_the_reason(monkeypatch, tmp_path):
    from scheduling.formats import trace_path
    from scheduling.reproduce import Claim, Outcome

    monkeypatch.setenv("TOPOALLOC_TRACES", str(tmp_path))
    c = Claim("002-x", "002", "nowhere", "a claim on a trace", lambda size: Outcome(bool(trace_path("CTC")), ""))
    out = run_claim(c, Size())
    assert out.skipped and "TOPOALLOC_TRACES" in out.skipped and verdict(Result(c, out)) == "skipped"


def test_the_command_lists_and_reports(capsys, tmp_path):
    assert main(["reproduce", "--list", "--paper", "002"]) == 0
    out = capsys.readouterr().out
    assert all(c.id in out for c in claims("002"))
    assert main(["reproduce", "--claim", "nope"]) == 2
    assert "unknown claim" in capsys.readouterr().err
    doc = tmp_path / "r.md"
    assert main(["reproduce", "--doc", str(doc)]) == 0
    assert doc.read_text() == document(ROOT) or doc.read_text() == document()
