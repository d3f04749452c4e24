"""The 3D-torus claims (scheduling/reproduce/tori.py): their set-up, checked piece by piece. The
claims themselves run at reduced size in test_reproduce.py."""

from __future__ import annotations

import math

import pytest

from scheduling.metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, Ordering
from scheduling.reproduce import PAPER_MODULES, Outcome, claims, tori


def test_the_paper_is_listed_and_its_claims_name_it():
    assert PAPER_MODULES["tori"][0] == "scheduling.reproduce.tori"
    got = {c.id: c for c in claims("tori")}
    assert set(got) == {"tori-fugaku-noncont-waits-less", "tori-bluewaters-prism-tradeoff"}
    assert all(c.expected and c.paper_value for c in got.values())


def test_the_sizes_scale_the_log_to_the_torus():
    assert (tori.QUICK.nodes, tori.QUICK.scale) == (512, 4)
    assert (tori.FULL.nodes, tori.FULL.scale) == (4096, 32)
    assert tori.QUICK.min_replications >= 3 and tori.FULL.max_replications >= tori.FULL.min_replications


@pytest.fixture(scope="module")
def windows():
    from scheduling.formats.trace_files import TraceNotFoundError

    try:
        return [tori._window(tori.QUICK, w) for w in (0, 1)]
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))


def test_a_window_is_the_log_scaled_rebased_and_shaped(windows):
    """SDSC-SP2's first jobs (the Parallel Workloads Archive's cleaned log): counts times 4 on the
    8x8x8 torus, each asking for the torus's near-cube box of at least that many nodes."""
    first = windows[0]
    torus = tori._torus(tori.QUICK)
    log = tori._log((tori.START + tori.QUICK.max_replications) * tori.QUICK.window)
    assert len(first) == tori.QUICK.window and first[0].arrival == 0.0
    assert [j.id for j in first] == list(range(len(first)))
    assert [j.size for j in first] == [4 * j.size for j in log[:len(first)]]
    assert [j.runtime for j in first] == [j.runtime for j in log[:len(first)]]
    assert all(j.request == torus.request_for(j.size) and math.prod(j.request) >= j.size for j in first)
    assert all(0.5 <= j.comm <= 1.0 for j in first)
    second = windows[1]
    assert second[0].runtime == log[tori.QUICK.window].runtime and second[0].arrival == 0.0
    assert [j.comm for j in first] != [j.comm for j in second]  # one comm stream per window (its seed)
    assert tori._window(tori.QUICK, 0) is first  # cached: every allocator of a comparison sees these jobs


def _ordering(verdict: str) -> Ordering:
    return Ordering(1.0, 0.5, 1.5, 3, 0, (2.0, 2.0, 2.0), (1.0, 1.0, 1.0), verdict)


def test_an_ordering_against_the_claim_refutes_it_and_one_at_the_cap_leaves_it_undecided():
    holds, undecided, lines = tori._judge({"a": (_ordering(GREATER), GREATER), "b": (_ordering(LESS), LESS)})
    assert holds and not undecided and len(lines) == 2 and "windows 0..2" in lines[0]
    holds, undecided, _ = tori._judge({"a": (_ordering(GREATER), GREATER), "b": (_ordering(NOT_SIGNIFICANT), LESS)})
    assert not holds and undecided == ("b",)
    with pytest.raises(ValueError):
        Outcome(True, "", undecided=undecided)  # a claim with an undecided ordering is never "reproduced"
    holds, undecided, _ = tori._judge({"a": (_ordering(LESS), GREATER), "b": (_ordering(NOT_SIGNIFICANT), LESS)})
    assert not holds and undecided == ()  # refuted: not merely undecided


def test_the_box_side_keeps_its_boxes_traffic_at_home_more_than_the_curve_list(windows):
    """Under contention, the share of run time lost to other jobs is smaller for boxes than for the
    curve-ordered free list on the same window (the Blue Waters page's reason for prisms)."""
    box = tori._run(tori.BOX, tori.QUICK, 0, True)
    curve = tori._run(tori.CURVE, tori.QUICK, 0, True)
    assert 0.0 <= box["interference_mean"] < curve["interference_mean"]
    assert box["wait"] > curve["wait"]
