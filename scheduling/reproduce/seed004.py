"""Wang, Papaefthymiou & Squillante (seed 004), "Performance Evaluation of Gang Scheduling for
Parallel and Distributed Multiprogramming": §5's workload and its EASY-LL table (Fig. 3), §6's
comparisons of the distributed hierarchical control (DHC) gang schedulers with EASY-LL, and the
context-switch costs of Figs. 8-9.

Workload (§5): the jobs of August 1996 (US/Eastern) of the CTC SP2 log
(``CTC-SP2-1996-3.1-cln.swf.gz``, found with :func:`~scheduling.formats.trace_files.trace_path`) with at
most 320 processors and nonzero CPU time, 7,083 jobs, on 320 processors (a DHC forest 256 + 64).
The paper's EASY-LL is the production schedule: the log's recorded waits replayed
(:class:`~scheduling.policies.Recorded`). Classes are §5's (``2^(i-1) < p <= 2^i``); schedulers are
compared by their normalised response time R/S per class (:func:`~scheduling.metrics.gang.ratios`:
below 1 is better than the baseline). Gang schedulers run with uniform quanta T/10, the
context-switch cost paid by resumed jobs.

Fig. 3's claims replay the whole month at either size. §6's claims, quick: the month's first
2,000 jobs simulated, the first 1,000 measured (so the measured jobs still compete with later
arrivals), T = 3000 s, switch 1 s; full: the whole month, every job measured, the same T and
switch. The switch-cost claims (Figs. 8-9), quick: the month's first 500 jobs; full: the whole
month; T = 1000 and 3000 s, switch 1 and 16 s. At quick size the comparison with EASY-LL favours
the gang schedulers: the recorded waits of early August carry the production system's backlog,
while a simulation starts empty. A trace has no seeds, so our numbers have no intervals, except
the synthetic workload's (§6's vanilla claim on 64 processors against simulated EASY; quick: 300
jobs, seed 4; full: 3,000 jobs, seeds 4-8).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..metrics.gang import FIG3, FIG3_CLASS6_PRINTED_SERVICE, FIG3_PRINTED_RS, ClassRow
from .claims import Claim, Outcome, Size, estimate, register

if TYPE_CHECKING:
    from ..kernel.jobs import Job
    from ..kernel.result import SimulationResult

__all__: list[str] = []

_TRACE = "CTC-SP2-1996-3.1-cln.swf.gz"
#: August 1996 (EDT) in the CTC log's seconds (UnixStartTime 835823160): §5's month.
_AUGUST = (838872000 - 835823160, 841550400 - 835823160)
_CLASSES = 10
_T = 3000.0


@cache
def _august() -> tuple:
    """§5's workload: August 1996 of the CTC SP2 log, jobs of at most 320 processors with nonzero CPU
    time. The log is read up to its 16,000th job, past the month's end (checked: none of the month
    is missing), faster than scanning the whole file for the window."""
    from topologies import Flat

    from ..workloads import load_swf, trace_path

    trace = load_swf(trace_path(_TRACE), topology=Flat(320), limit=16_000)
    if trace.header.get("UnixStartTime") != "835823160" or trace.report.reordered != 0:
        raise ValueError(f"{_TRACE}: not the CTC SP2 log of 1996 (UnixStartTime "
                         f"{trace.header.get('UnixStartTime')!r}, {trace.report.reordered} jobs reordered)")
    jobs = list(trace)
    if jobs[-1].arrival < _AUGUST[1]:
        raise ValueError(f"{_TRACE}: its first 16,000 jobs end before August 1996 does")
    return tuple(j for j in jobs if _AUGUST[0] <= j.arrival < _AUGUST[1] and j.attrs["swf"].average_cpu_time > 0)


def _simulate(policy: str, jobs: list[Job], **gang: Any) -> SimulationResult:
    """``jobs`` scheduled by the log's recorded schedule (``"Recorded"``) or a gang variant."""
    from topoalloc import DHCTree, FlatPool
    from topologies import Flat

    from ..kernel.api import simulate
    from ..policies.gang import Gang

    if policy == "Recorded":
        return simulate(FlatPool(Flat(320)), "Recorded", jobs, jobs=None)
    return simulate(DHCTree(Flat(320)), Gang(policy, **gang), jobs, jobs=None)


def _fmt(values: np.ndarray, fmt: str = ".2f") -> str:
    return ", ".join("-" if np.isnan(v) else f"{v:{fmt}}" for v in values)


# -- Fig. 3 (§5): the whole month replayed -----------------------------------------------------------------
@cache
def _fig3() -> tuple[ClassRow, ...]:
    """The month's recorded schedule replayed (the Recorded pseudo-policy), per class."""
    from ..metrics.gang import class_table

    return tuple(class_table(_simulate("Recorded", list(_august())), _CLASSES))


def _fig3_waits(size: Size) -> Outcome:
    rows = _fig3()
    got = [(r.jobs, round(r.waiting)) for r in rows[8:]]
    holds = got == [(45, 146_141), (23, 147_240)] and all(r.sharing == 0.0 and r.queueing == r.waiting for r in rows)
    return Outcome(holds, f"the log's recorded waits: class 8 {got[0][0]} jobs, mean wait {got[0][1]:,} s; class 9 "
                          f"{got[1][0]} jobs, {got[1][1]:,} s", {"classes_8_9": got})


register(Claim(
    id="004-fig3-easy-ll-waits", paper="004", where="§5, Fig. 3",
    statement="the fourth and fifth columns give the average waiting and response time that was achieved for each "
              "class using the EASY-LL scheduler: class 8 has 45 jobs with mean waiting time 146,141 s, class 9 23 "
              "jobs with 147,240 s (read: the log's recorded waits, SWF field 3, replayed, give exactly these)",
    paper_value="class 8: 45 jobs, W = 146,141 s; class 9: 23 jobs, W = 147,240 s",
    run=_fig3_waits,
))


def _fig3_counts(size: Size) -> Outcome:
    counts = [r.jobs for r in _fig3()]
    diff = [a - b.jobs for a, b in zip(counts, FIG3, strict=True)]
    return Outcome(counts == [r.jobs for r in FIG3],
                   f"{sum(counts):,} jobs: " + ", ".join(f"{c:,}" for c in counts) + " (difference "
                   + ", ".join(f"{d:+d}" for d in diff) + ")", {"jobs": counts})


register(Claim(
    id="004-fig3-job-counts", paper="004", where="§5, Fig. 3",
    statement="Our workload comprised 6,049 jobs that requested up to 320 processors and had nonzero CPU times "
              "(per class as Fig. 3's second column)",
    paper_value="6,049 jobs: 2,408, 515, 669, 582, 848, 465, 420, 74, 45, 23",
    run=_fig3_counts, expected=False,
    diagnosis="The cleaned log's August holds 7,083 such jobs where the paper has 6,049: +538, +239, +200, +50, +29 "
              "in classes 0-4, -10, -13 in 5-6, +1 in 7, the same in 8-9 (whose recorded waits are the paper's to "
              "the second). The paper applied a filter it does not state; its workload is not a subset of this log "
              "(classes 5-6 have fewer jobs here). The readings tried are in the job-counts entry below.",
))


def _fig3_class6(size: Size) -> Outcome:
    gap = max(abs(r.response - r.waiting - r.service) for r in FIG3)
    rs = max(abs(r.normalized - p) for r, p in zip(FIG3, FIG3_PRINTED_RS, strict=True))
    printed = FIG3[6].response / FIG3_CLASS6_PRINTED_SERVICE
    holds = gap <= 1.0 and rs <= 0.35 and abs(printed - 1.1) <= 0.05
    return Outcome(holds, f"with S = {FIG3[6].service:,.0f} for class 6: R - W = S within {gap:.0f} s in every row, "
                          f"R/S within {rs:.2f} of the printed; with the printed {FIG3_CLASS6_PRINTED_SERVICE:,} "
                          f"class 6's R/S would be {printed:.2f}",
                   {"largest_r_minus_w_minus_s": gap, "largest_rs_difference": rs, "class6_rs_printed_s": printed})


register(Claim(
    id="004-fig3-class6-service-typo", paper="004", where="Fig. 3",
    statement="Fig. 3's class-6 row: S = 93,189 s, W = 93,040 s, R = 102,359 s, R/S = 11.0 (read: the printed S is "
              "a typo for 9,319: with it every row has R - W = S within 1 s and R/S as printed within 0.35; with "
              "93,189 class 6's R/S would be 1.1)",
    paper_value="class 6: S = 93,189 (printed; 9,319 from R - W), R/S = 11.0",
    run=_fig3_class6,
))


def _fig3_class8(size: Size) -> Outcome:
    s = _fig3()[8].service
    return Outcome(abs(s - 300.0) <= 1.0, f"class 8's 45 jobs run {s:,.1f} s on average in the log",
                   {"class8_service": s})


register(Claim(
    id="004-fig3-class8-service", paper="004", where="Fig. 3",
    statement="class 8's mean service time is 300 s (45 jobs, mean wait 146,141 s, R/S 488.4)",
    paper_value="300 s",
    run=_fig3_class8, expected=False,
    diagnosis="The 45 class-8 jobs are the paper's (their mean wait matches to the second), but they average 547.6 s "
              "of run time in the log where Fig. 3 says 300 s; six ran 1,380-3,854 s. Genuine: the log's run times "
              "are not the paper's service times for these jobs.",
))


# -- §6: the DHC gang schedulers against EASY-LL (T = 3000 s, switch 1 s) --------------------------------------
@cache
def _classes(quick: bool, policy: str, assignment: str | None = None) -> tuple[ClassRow, ...]:
    """The per-class table of the measured jobs when the month's first 2,000 jobs (quick; the first
    1,000 measured) or the whole month (full) are scheduled by ``policy``: "Recorded" (EASY-LL), or
    a gang variant at T = 3000 s, switch 1 s."""
    from ..metrics.gang import class_table

    jobs = list(_august())
    if quick:
        jobs = jobs[:2000]
    gang: dict[str, object] = {"cycle": _T, "switch_cost": 1.0}
    if assignment is not None:
        gang["assignment"] = assignment
    r = _simulate(policy, jobs, **gang)
    measured = r.table[r.table["ordinal"] < 1000] if quick else r.table
    return tuple(class_table(measured, _CLASSES))


def _rows(size: Size, policy: str, assignment: str | None = None) -> list[ClassRow]:
    return list(_classes(size.quick, policy, assignment))


def _pushdown(size: Size) -> list[ClassRow]:
    return _rows(size, "pushdown", "weight")  # §6 shows push-down with the weight-oriented assignment


def _ratios(size: Size, policy: str, baseline: str = "Recorded") -> np.ndarray:
    from ..metrics.gang import ratios

    return ratios(_rows(size, policy), _rows(size, baseline))


def _label(size: Size) -> str:
    return size.pick("first 2,000 jobs, first 1,000 measured, T = 3000 s, 1 s: ",
                     f"the month's {len(_august()):,} jobs, T = 3000 s, 1 s: ")


_NAMES = {"Recorded": "EASY-LL", "migrate-leaves": "leaves", "migrate-root": "root", "pushdown": "push-down"}


def _ratio_outcome(size: Size, policy: str, baseline: str, holds_fn: Callable[[np.ndarray], Any]) -> Outcome:
    r = _ratios(size, policy, baseline)
    return Outcome(bool(holds_fn(r)), _label(size) + f"{_NAMES[policy]}/{_NAMES[baseline]} R/S per class 0-9: "
                                                     f"{_fmt(r)}", {"ratios": r.tolist()})


_EIGHT = (0, 1, 2, 3, 4, 5, 6, 8)

register(Claim(
    id="004-s6-leaves-beat-easy-ll", paper="004", where="§6",
    statement="the scheduling policy with migration from the leaves achieves shorter response times than EASY-LL "
              "for eight out of the ten classes (all but 7 and 9, whose performance it degrades; read: shorter R/S "
              "in classes 0-6 and 8)",
    paper_value="8 of 10 classes (0-6, 8)",
    run=lambda size: _ratio_outcome(size, "migrate-leaves", "Recorded", lambda r: all(r[c] < 1.0 for c in _EIGHT)),
))

register(Claim(
    id="004-s6-leaves-classes-7-9-3x", paper="004", expected_full=True, where="§6",
    statement="the favoring of smaller job classes under migration from the leaves degrades the performance of "
              "classes 7 and 9 relative to EASY-LL ... by about a factor of 3 (read: a ratio of normalised response "
              "times between 2 and 4)",
    paper_value="about 3x worse in classes 7 and 9",
    run=lambda size: _ratio_outcome(size, "migrate-leaves", "Recorded",
                                    lambda r: 2.0 < r[7] < 4.0 and 2.0 < r[9] < 4.0),
    expected=False,
    diagnosis="At reduced size the leaves/EASY-LL R/S ratios are 0.22 (class 7) and 0.60 (class 9): the recorded "
              "waits of the month's first days carry production's backlog, the simulation starts empty. The full "
              "month reproduces the claim: 2.90 and 2.59 at T = 1000 s, 3.06 and 2.57 at 3000 s "
              "(`examples/gang_ctc.py`; `topoalloc reproduce --full`).",
))


def _two_to_four(size: Size) -> Outcome:
    factors = 1.0 / _ratios(size, "migrate-leaves")[:7]
    median = float(np.median(factors))
    return Outcome(2.0 <= median <= 4.0, _label(size) + f"EASY-LL/leaves R/S in classes 0-6: {_fmt(factors)} "
                                                        f"(median {median:.2f})", {"factors": factors.tolist()})


register(Claim(
    id="004-s6-leaves-factor-2-to-4", paper="004", expected_full=False, where="§6",
    statement="these performance improvements are quite significant, with a reduction in the normalized response "
              "times by factors that typically range between 2 and 4 (read: the median factor over classes 0-6 is "
              "between 2 and 4)",
    paper_value="2-4x",
    run=_two_to_four,
    diagnosis="Holds at reduced size (median 3.0), helped by the backlog in the recorded waits of early August; on "
              "the full month the median over classes 0-6 is just under 2 (1.92 at T = 1000 s, 1.88 at 3000 s): "
              "classes 3-5 improve 2.7-4.5x, classes 0-2 and 6 by 1.3-1.9x. Partly reproduced (\"typically\" is "
              "ambiguous).",
))


def _class8_tenfold(size: Size) -> Outcome:
    r = _ratios(size, "migrate-leaves")
    jobs = _rows(size, "migrate-leaves")[8].jobs
    factor = float(1.0 / r[8])
    return Outcome(7.0 <= factor <= 10.0, _label(size) + f"class 8's R/S falls {factor:.1f}x ({jobs} class-8 "
                                                         f"job{'s' if jobs != 1 else ''})", {"factor": factor})


register(Claim(
    id="004-s6-leaves-class8-10x", paper="004", where="§6",
    statement="the normalized response time of class 8 decreases by almost a factor of 10 under migration from the "
              "leaves in comparison to EASY-LL (read: by a factor between 7 and 10)",
    paper_value="almost 10x",
    run=_class8_tenfold, expected=False,
    diagnosis="On the full month class 8's normalised response falls 3.5x at T = 1000 s and 2.7x at 3000 s (3.7x at "
              "300 s), not almost 10x; the month's 45 class-8 jobs run 547.6 s on average where the paper says "
              "300 s, and scaled to 300 s they give 6.4x and 4.5x. At reduced size the measured jobs hold one "
              "class-8 job.",
))

register(Claim(
    id="004-s6-root-beats-easy-ll-5-to-8", paper="004", where="§6",
    statement="The job-migration policy that gives higher priority to the jobs closer to the root of the control tree "
              "outperforms EASY-LL for classes 5 through 8",
    paper_value="classes 5-8",
    run=lambda size: _ratio_outcome(size, "migrate-root", "Recorded", lambda r: all(r[c] < 1.0 for c in (5, 6, 7, 8))),
))

register(Claim(
    id="004-s6-root-classes-3-4", paper="004", expected_full=False, where="§6",
    statement="for sufficiently large timeplexing cycles, this policy [migration from the root] performs as well as "
              "EASY-LL for classes 3 and 4 (read: R/S within 20% or better, at T = 3000 s)",
    run=lambda size: _ratio_outcome(size, "migrate-root", "Recorded", lambda r: r[3] <= 1.2 and r[4] <= 1.2),
    diagnosis="Holds at reduced size (ratios 0.33 and 0.55) only because of the backlog in the recorded waits of "
              "early August; on the full month class 3 holds (1.11-1.14 at T = 300-3000 s) but class 4 does not "
              "(2.43-2.80, no trend with T): reproduced for class 3, a genuine non-reproduction for class 4.",
))

register(Claim(
    id="004-s6-root-beats-leaves-6-to-9", paper="004", where="§6",
    statement="In comparison with the migration policy that favors jobs at the leaves, this policy performs better "
              "for classes 6 and above. As expected, both job-migration policies achieve the same performance on "
              "class 9 (read: classes 6-8 better, class 9 within 2%)",
    run=lambda size: _ratio_outcome(size, "migrate-root", "migrate-leaves",
                                    lambda r: all(r[c] < 1.0 for c in (6, 7, 8)) and abs(r[9] - 1.0) < 0.02),
))

register(Claim(
    id="004-s6-root-leaves-class5-even", paper="004", where="§6",
    statement="In comparison with the migration policy that favors jobs at the leaves, this policy breaks even for "
              "class 5 (read: R/S within 10%)",
    paper_value="breaks even",
    run=lambda size: _ratio_outcome(size, "migrate-root", "migrate-leaves", lambda r: abs(r[5] - 1.0) <= 0.1),
    expected=False,
    diagnosis="Root/leaves R/S on class 5 is 1.16 at reduced size, 2.24 on the full month (T = 1000 s; 2.30 at "
              "3000 s): the root is clearly worse there (its class-5 jobs get the idle processors only after classes "
              "9 down to 6). Genuine non-reproduction.",
))


def _root_worst(size: Size) -> Outcome:
    root = _rows(size, "migrate-root")
    others = {"EASY-LL": _rows(size, "Recorded"), "leaves": _rows(size, "migrate-leaves"), "push-down": _pushdown(size)}
    holds = all(root[c].normalized > max(o[c].normalized for o in others.values()) for c in range(3))
    text = "; ".join(f"{n} {', '.join(f'{o[c].normalized:.2f}' for c in range(3))}"
                     for n, o in {"root": root, **others}.items())
    return Outcome(holds, _label(size) + "R/S in classes 0-2: " + text,
                   {"root": [root[c].normalized for c in range(3)]})


register(Claim(
    id="004-s6-root-worst-classes-0-2", paper="004", expected_full=True, where="§6",
    statement="For classes 0 through 2, migration from the root performs worse than all the scheduling policies we "
              "considered (EASY-LL, push-down, migration from the leaves)",
    run=_root_worst, expected=False,
    diagnosis="At reduced size EASY-LL's recorded R/S (production's backlog) is worse than the root's in classes 1 and "
              "2 (3.68, 2.34 against 2.14, 1.72), push-down's in class 0 (2.27 against 1.84); the full month "
              "reproduces the claim in all three classes at every cycle and switch cost.",
))


def _pushdown_worse(size: Size) -> Outcome:
    from ..metrics.gang import classes_better

    pd = _pushdown(size)
    worse = {n: _CLASSES - len(classes_better(pd, _rows(size, p)))
             for n, p in (("EASY-LL", "Recorded"), ("leaves", "migrate-leaves"), ("root", "migrate-root"))}
    return Outcome(min(worse.values()) >= 8, _label(size) + "push-down (weights) has the longer R/S in "
                   + ", ".join(f"{v} of 10 classes against {n}" for n, v in worse.items()), {"classes_worse": worse})


register(Claim(
    id="004-s6-pushdown-almost-always-worse", paper="004", where="§6",
    statement="The push-down policy almost always performs worse than EASY-LL and the two migration policies (read: "
              "in at least 8 of the 10 classes against each)",
    run=_pushdown_worse, expected=False,
    diagnosis="Push-down is worse than EASY-LL in 3 classes of 10 at reduced size (8 of 10 on the full month), than "
              "migration from the leaves in 7 (7), than from the root in 9 (5): the root's weakness on classes 0-2 "
              "and the leaves' on 7 and 9 make push-down better there.",
))


def _weights(size: Size) -> Outcome:
    from ..metrics.gang import classes_better

    better = classes_better(_pushdown(size), _rows(size, "pushdown", "first_fit"))
    return Outcome(len(better) >= 8, _label(size) + f"push-down with weights has the shorter R/S in {len(better)} "
                                                    f"of 10 classes ({', '.join(map(str, better))})",
                   {"classes_better": better})


register(Claim(
    id="004-s6-weight-beats-first-fit", paper="004", where="§6",
    statement="For the push-down policy, we only present the results we obtained with the weight-oriented job "
              "assignment policy, since it consistently outperformed the first-fit policy (read: a shorter R/S in at "
              "least 8 of the 10 classes)",
    run=_weights, expected=False,
    diagnosis="Push-down with first fit has a lower mean response time on the full month (121,408 s at T = 1000 s "
              "against 149,267 s with weights) and a shorter R/S in classes 4-6 (17-53 against 35-74); weights win "
              "in classes 0-3, 7 and 9 (T = 1000 s). Reduced size: weights better in 7 classes of 10. Genuine, with "
              "our reading of §3's weights.",
))


def _vanilla(size: Size) -> Outcome:
    from ..metrics.gang import classes_better

    better = classes_better(_rows(size, "vanilla"), _rows(size, "Recorded"))
    return Outcome(len(better) <= 1, _label(size) + f"vanilla has a shorter R/S than EASY-LL in {len(better)} "
                                                    f"of 10 classes ({', '.join(map(str, better))})",
                   {"classes_better": better})


register(Claim(
    id="004-s6-vanilla-worse-than-easy-ll", paper="004", expected_full=True, where="§6",
    statement="this scheme [vanilla gang scheduling] was performing consistently and significantly worse than EASY-LL "
              "(read: in at least 9 of the 10 classes)",
    run=_vanilla, expected=False,
    diagnosis="At reduced size vanilla beats EASY-LL's recorded R/S in classes 3, 5, 7, 8 and 9 (production's "
              "backlog); on the full month it is worse in 9 classes of 10 at every cycle and switch cost (class 8, "
              "whose recorded R/S is 268, is the exception).",
))


def _light_synthetic(P: int = 64, n: int = 300, load: float = 0.3, seed: int = 4) -> list:
    """Poisson arrivals, log-uniform sizes, hyperexponential run times (a light, mixed workload)."""
    from ..kernel.jobs import Job

    rng = np.random.default_rng(seed)
    sizes = np.minimum(P, np.maximum(1, np.round(2 ** rng.uniform(0, np.log2(P), n)))).astype(int)
    runtimes = np.where(rng.random(n) < 0.8, rng.exponential(300.0, n), rng.exponential(3000.0, n))
    rate = load * P / float(np.mean(sizes * runtimes))
    arrivals = np.cumsum(rng.exponential(1.0 / rate, n))
    return [Job(i, float(arrivals[i]), int(sizes[i]), float(runtimes[i])) for i in range(n)]


def _vanilla_synthetic(size: Size) -> Outcome:
    from topoalloc import DHCTree, FlatPool
    from topologies import Flat

    from ..kernel.api import simulate
    from ..metrics.gang import normalized_response
    from ..policies.gang import Gang

    n, seeds = size.pick((300, (4,)), (3000, (4, 5, 6, 7, 8)))
    ratio, worse = [], []
    for seed in seeds:
        jobs = _light_synthetic(n=n, seed=seed)
        easy = simulate(FlatPool(Flat(64)), "EASY", jobs, jobs=None)
        van = simulate(DHCTree(Flat(64)), Gang("vanilla", cycle=1000.0, switch_cost=1.0), jobs, jobs=None)
        ratio.append(float(van.turnaround.mean() / easy.turnaround.mean()))
        worse.append(int((normalized_response(van, 7) > normalized_response(easy, 7)).sum()))
    holds = all(r > 2 for r in ratio) and min(worse) >= 6
    text = f"{ratio[0]:.2f}" if len(ratio) == 1 else estimate(ratio, ".2f")[1]
    return Outcome(holds, f"{n} jobs, seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}: vanilla's mean "
                          f"turnaround over EASY's {text}; vanilla worse in at least {min(worse)} of 7 classes",
                   {"turnaround_ratio": ratio, "classes_worse": worse})


register(Claim(
    id="004-s6-vanilla-worse-synthetic", paper="004", where="§6 (a synthetic workload)",
    statement="vanilla gang scheduling performs consistently and significantly worse than EASY, here on a light "
              "synthetic workload (64 processors, load 0.3, log-uniform sizes, hyperexponential run times) against "
              "simulated EASY (read: mean turnaround over twice EASY's, a longer R/S in at least 6 of 7 classes)",
    run=_vanilla_synthetic,
))


# -- Figs. 8-9: context-switch costs (T = 1000 and 3000 s, switch 1 and 16 s) ---------------------------------
@cache
def _switch(quick: bool, variant: str, cycle: float | None = None,
            cost: float | None = None) -> tuple[tuple[ClassRow, ...], float]:
    """The per-class table and mean response of the month's first 500 jobs (quick) or of the whole
    month (full) under a gang scheduler; ``"Recorded"``: the log's own schedule of them."""
    from ..metrics.gang import class_table

    jobs = list(_august())
    if quick:
        jobs = jobs[:500]
    r = _simulate(variant, jobs, cycle=cycle, switch_cost=cost)
    return tuple(class_table(r, _CLASSES)), float(r.turnaround.mean())


def _switch_label(size: Size) -> str:
    return size.pick("first 500 jobs: ", f"the month's {len(_august()):,} jobs: ")


def _short_cycles(size: Size) -> Outcome:
    def degradation(variant: str, cycle: float) -> float:
        return _switch(size.quick, variant, cycle, 16.0)[1] / _switch(size.quick, variant, cycle, 1.0)[1] - 1.0

    deg = {v: (degradation(v, 1000.0), degradation(v, 3000.0)) for v in ("pushdown", "migrate-root", "migrate-leaves")}
    holds = all(short > 0 and short > 2 * long for short, long in deg.values())
    return Outcome(holds, _switch_label(size) + "mean response at 16 s over 1 s, T = 1000 against 3000 s: "
                   + ", ".join(f"{_NAMES[v]} +{a:.1%} against +{b:.1%}" for v, (a, b) in deg.items()),
                   {"degradation": {v: list(d) for v, d in deg.items()}})


register(Claim(
    id="004-figs8-9-switch-cost-short-cycles", paper="004", where="§6, Figs. 8-9",
    statement="When switch costs increase, however, the performance of both policies degrades ... Performance "
              "degradation is more evident for short timeplexing cycles (read, for push-down and both migrations: the "
              "mean response at 16 s over that at 1 s grows, at T = 1000 s over twice as much as at 3000 s)",
    run=_short_cycles,
))


def _fewer_classes(size: Size) -> Outcome:
    from ..metrics.gang import classes_better

    rec = list(_switch(size.quick, "Recorded")[0])
    counts = {v: [len(classes_better(list(_switch(size.quick, v, 1000.0, c)[0]), rec)) for c in (1.0, 16.0)]
              for v in ("migrate-leaves", "migrate-root")}
    holds = all(dear < cheap for cheap, dear in counts.values())
    return Outcome(holds, _switch_label(size) + "classes beating EASY-LL at T = 1000 s, 1 s -> 16 s: "
                   + ", ".join(f"{_NAMES[v]} {a} -> {b}" for v, (a, b) in counts.items()), {"classes_better": counts})


register(Claim(
    id="004-figs8-9-fewer-classes-beat-easy-ll", paper="004", expected_full=True, where="§6, Figs. 8-9",
    statement="When switch costs increase, however, the performance of both policies degrades, and the number of "
              "classes in which they outperform EASY-LL decreases (at T = 1000 s)",
    run=_fewer_classes, expected=False,
    diagnosis="At reduced size both migration policies beat EASY-LL in 9 classes at 1 s and at 16 s (T = 1000 s); "
              "the full month reproduces it: leaves 8 -> 7 and root 4 -> 3 classes at T = 1000 s (8 -> 7 and 4 -> 1 "
              "at 300 s; no change at 3000 s).",
))
