"""Every paper claim the library asserts, at reduced size: the same definitions ``topoalloc
reproduce`` runs (scheduling/reproduce/). A claim the library documents as not reproduced is
``xfail(strict=True)`` with its diagnosis, so a claim that starts to hold is noticed too."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling.cli import main
from scheduling.reproduce import DOC_PATH, Size, claims, document, run_claim, verdict
from scheduling.reproduce.report import Result

ROOT = Path(__file__).resolve().parents[3]


def _params():
    out = []
    for c in claims():
        marks = [] if c.expected else [pytest.mark.xfail(strict=True, reason=f"documented: {DOC_PATH}#{c.id}")]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("claim", _params())
def test_claim_as_the_paper_states_it(claim):
    outcome = run_claim(claim, Size(quick=True))
    if outcome.skipped:
        pytest.skip(outcome.skipped)
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
    from scheduling.reproduce import Claim, Outcome

    c = Claim("002-y", "002", "Fig. 0", "holds on the full log only", lambda size: Outcome(False, ""),
              expected=False, expected_full=True)
    assert c.verdict == "reproduced at full size only"
    assert not c.expects(Size(quick=True)) and c.expects(Size(quick=False))
    assert verdict(Result(c, Outcome(False, ""), Size(quick=False))) == "REGRESSION"
    assert verdict(Result(c, Outcome(False, ""), Size(quick=True))) == "not reproduced"
    full_only = [x.id for x in claims("004") if x.expected_full is not None]
    assert "004-s6-leaves-classes-7-9-3x" in full_only


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
