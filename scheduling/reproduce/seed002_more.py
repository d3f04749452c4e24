"""Chang & Mohapatra (seed 002): the headline results beyond §4.2-4.4's first claims -- the
two-dimensional buddy (Fig. 1(a)), the normal job sizes (Figs. 2(b), 4(b)), the truncated-normal
service of §4.1, the low-load side of the RSR trade-off (§4.2) and the fairness of Fig. 5.

Set-up, seeds (contiguous from 1; orderings capped at 5 quick and 10 full replications; bounds and
magnitudes over seeds 1..3 quick and 1..5 full) and the saturation-load bisection are
:mod:`scheduling.reproduce.seed002`'s.
"""

from __future__ import annotations

from ..metrics.significance import GREATER, LESS
from .claims import NOT_SIGNIFICANT, Claim, Outcome, Reading, Size, register
from .judge import bound, judged, paired, within
from .seed002 import (
    LIMIT_PAIRS,
    SEED_START,
    _jobs,
    _ordering,
    _probe_jobs,
    _sat,
    _seeds,
    _turn,
    saturation_load,
    simulation,
)

__all__: list[str] = []

_MESH_BRACKET = (0.2, 0.8)
_CUBE_BRACKET = (0.3, 1.0)


# --- §4.2, Fig. 1(a): the two-dimensional buddy ------------------------------------------------------------------

def _tdb(size: Size) -> Outcome:
    k = "mesh-Buddy2D"
    sat = {t: _sat(size, k, f"RSR-{t}", *_MESH_BRACKET) for t in (0, 1, 2)}
    checks = [_ordering(size, "saturation load: TDB RSR-1 > RSR-0", sat[1], sat[0], GREATER),
              _ordering(size, "mean turnaround at load 0.3: TDB RSR-1 < RSR-0", _turn(size, k, "RSR-1", 0.3),
                        _turn(size, k, "RSR-0", 0.3), LESS)]
    checks += [_ordering(size, f"mean turnaround at load {load}: TDB RSR-2 > RSR-1 (no gain from more reductions)",
                         _turn(size, k, "RSR-2", load), _turn(size, k, "RSR-1", load), GREATER)
               for load in (0.3, 0.4)]
    reach = judged([_ordering(size, "saturation load: TDB RSR-2 not above RSR-1 (no gain from more reductions)",
                              sat[2], sat[1], LESS)])
    return judged(checks, readings={"operational range": reach})


register(Claim(
    id="002-fig1a-tdb", paper="002", where="§4.2, Fig. 1(a)",
    statement="with the two-dimensional buddy (TDB) the RSR-1 scheme provides a tremendous improvement on the "
              "average turnaround time; further increase on the number of allowable size reductions does not "
              "provide performance gain",
    quantity="TDB on the 32x32 mesh, square jobs: saturation load (bisection over [0.2, 0.8]) and mean turnaround "
             "at offered load 0.3 of RSR-1 against RSR-0; mean turnaround of RSR-2 against RSR-1 at loads 0.3 and 0.4 "
             "(both stable); paired over seeds",
    run=_tdb,
    readings=(Reading("turnaround", True, "no gain = RSR-2's mean turnaround is higher than RSR-1's where both are "
                                          "stable"),
              Reading("operational range", False, "no gain = RSR-2's saturation load is not above RSR-1's")),
))


# --- §4.2, Fig. 2(b): normal job sizes on the 8-cube --------------------------------------------------------------

def _normal_sizes(size: Size) -> Outcome:
    k = "cube-normal"
    checks = [_ordering(size, "saturation load: RSR-1 > RSR-0", _sat(size, k, "RSR-1", *_CUBE_BRACKET),
                        _sat(size, k, "RSR-0", *_CUBE_BRACKET), GREATER),
              _ordering(size, "mean turnaround at load 0.3: RSR-1 < RSR-2", _turn(size, k, "RSR-1", 0.3),
                        _turn(size, k, "RSR-2", 0.3), LESS),
              _ordering(size, "mean turnaround at load 0.3: RSR-2 < RSR-7", _turn(size, k, "RSR-2", 0.3),
                        _turn(size, k, "RSR-7", 0.3), LESS)]
    return judged(checks)


register(Claim(
    id="002-fig2b-normal-sizes", paper="002", where="§4.2, Fig. 2(b)",
    statement="with normally distributed job sizes on the 8-cube, the operational range is improved with the RSR "
              "scheme, and the RSR schemes allowing fewer size reductions have shorter turnaround times",
    quantity="buddy on the 8-cube, §4.1's discretised normal dimensions, exponential service: saturation load "
             "(bisection over [0.3, 1.0]) of RSR-1 against RSR-0; mean turnaround at offered load 0.3 of RSR-1, "
             "RSR-2, RSR-7; paired over seeds",
    run=_normal_sizes,
))


def _normal_limits(size: Size) -> Outcome:
    k = "cube-normal"
    return judged([_ordering(size, f"{lim} > {rsr} mean turnaround at load {load}", _turn(size, k, lim, load),
                             _turn(size, k, rsr, load), GREATER) for lim, rsr in LIMIT_PAIRS for load in (0.3, 0.5)])


register(Claim(
    id="002-fig4b-normal-limits", paper="002", where="§4.4, Fig. 4(b)",
    statement="with normally distributed job sizes, the RSR methods perform better than the corresponding limit "
              "schemes: Limit-0, Limit-5 and Limit-6 have longer turnaround times than RSR-7, RSR-2 and RSR-1 at low "
              "to medium load",
    quantity="mean turnaround, Limit-k minus the comparable RSR-t, 8-cube buddy, discretised normal dimensions, at "
             "offered loads 0.3 and 0.5, paired over seeds",
    run=_normal_limits,
))


# --- §4.1: truncated-normal service -------------------------------------------------------------------------------

def _truncated_normal(size: Size) -> Outcome:
    k = "cube-tnormal"
    seeds = _seeds(size)
    jobs = _probe_jobs(size)
    r1 = [saturation_load(k, "RSR-1", s, jobs, *_CUBE_BRACKET).stable for s in seeds]
    r0 = [saturation_load(k, "RSR-0", s, jobs, *_CUBE_BRACKET).saturated for s in seeds]
    checks = [bound("saturation load of RSR-1 > 0.8 (its highest stable probe)", r1, 0.8, above=True),
              bound("saturation load of RSR-0 < 0.8 (its lowest saturated probe)", r0, 0.8, above=False),
              _ordering(size, "mean turnaround at load 0.3: RSR-1 < RSR-2", _turn(size, k, "RSR-1", 0.3),
                        _turn(size, k, "RSR-2", 0.3), LESS),
              _ordering(size, "Limit-5 > RSR-2 mean turnaround at load 0.3", _turn(size, k, "Limit-5", 0.3),
                        _turn(size, k, "RSR-2", 0.3), GREATER)]
    return judged(checks, values={"rsr1": r1, "rsr0": r0})


register(Claim(
    id="002-s4-1-truncated-normal", paper="002", where="§4.1 (truncated-normal service; §4.2, §4.4 conclusions)",
    statement="the hypercube results hold with the truncated-normal service time (mean 5, standard deviation 2) "
              "that §4.1 also simulated: one size reduction carries the operational range past 80%, fewer "
              "reductions give shorter turnaround at low load, and RSR beats the comparable limit allocation",
    quantity="buddy on the 8-cube, uniform dimensions, normal(5, 2) service truncated at 0: saturation loads "
             "(bisection over [0.3, 1.0]) of RSR-1 and RSR-0, bound over seeds; mean turnaround at offered load 0.3 "
             "(RSR-1 vs RSR-2, Limit-5 vs RSR-2), paired over seeds",
    run=_truncated_normal,
    expected=NOT_SIGNIFICANT, expected_full=True,
))


# --- §4.2: the low-load side of the trade-off --------------------------------------------------------------------

def _low_load(size: Size) -> Outcome:
    checks = []
    for kind, load, ts in (("cube", 0.3, (1, 2, 7)), ("mesh-FrameSliding", 0.2, (1, 2, 3)),
                           ("mesh-FirstFit", 0.2, (1, 2, 3))):
        name = kind.replace("mesh-", "")
        for a, b in zip(ts, ts[1:], strict=False):
            checks.append(_ordering(size, f"{name} at load {load}: RSR-{a} < RSR-{b} mean turnaround",
                                    _turn(size, kind, f"RSR-{a}", load), _turn(size, kind, f"RSR-{b}", load), LESS))
    return judged(checks)


register(Claim(
    id="002-s4-2-low-load-tradeoff", paper="002", where="§4.2, Figs. 1(b), 1(c), 2(a)",
    statement="the allocations allowing a smaller number of size reductions provide shorter turnaround time under "
              "low to medium load (the other side of the trade-off against a wider operational range)",
    quantity="mean turnaround of RSR-t against RSR-t' (t < t'), buddy on the 8-cube at offered load 0.3, frame "
             "sliding and first fit on the 32x32 mesh at 0.2, paired over seeds",
    run=_low_load,
    expected=NOT_SIGNIFICANT, expected_full=True,
))


# --- §4.4, Fig. 5: fairness by job size at load 0.7 ---------------------------------------------------------------

def _spread(policy: str, seed: int, size: Size) -> float:
    by = simulation("cube", policy, 0.7, seed, _jobs(size)).by_size
    return by[128] / by[1]


def _limit0_rsr7(size: Size) -> Outcome:
    seeds = _seeds(size)
    lim = [_spread("Limit-0", s, size) for s in seeds]
    r7 = [_spread("RSR-7", s, size) for s in seeds]
    r2 = [_spread("RSR-2", s, size) for s in seeds]
    checks = [paired("turnaround of 128- over 1-processor jobs: Limit-0 > RSR-7", lim, r7, GREATER, start=SEED_START),
              bound("RSR-7: 128-processor jobs' turnaround over 1-processor jobs' > 1", r7, 1.0, above=True),
              bound("RSR-2: 128-processor jobs' turnaround over 1-processor jobs' > 1", r2, 1.0, above=True)]
    return judged(checks, values={"limit0": lim, "rsr7": r7, "rsr2": r2})


register(Claim(
    id="002-fig5a-limit0-vs-rsr7", paper="002", where="§4.4, Fig. 5(a)",
    statement="at load 0.7 the unfair treatment of limit-0 is visible (large jobs' turnaround far above small "
              "jobs'), more than under RSR-7; RSR-2 and RSR-7 started to treat jobs unfairly (jobs requiring "
              "larger subcubes have higher turnaround)",
    quantity="mean turnaround of 128-processor jobs over that of 1-processor jobs at offered load 0.7, 8-cube buddy: "
             "Limit-0 against RSR-7 paired over seeds; RSR-7 and RSR-2 bound above 1",
    run=_limit0_rsr7,
))

#: Fig. 5(b)'s "close": read as Limit-6's mean turnaround within ±20% of RSR-1's for each size.
CLOSE = 0.20


def _limit6_close(size: Size) -> Outcome:
    seeds = _seeds(size)
    ratios: dict[int, list[float]] = {}
    for s in seeds:
        lim = simulation("cube", "Limit-6", 0.7, s, _jobs(size)).by_size
        rsr = simulation("cube", "RSR-1", 0.7, s, _jobs(size)).by_size
        for n in sorted(rsr):
            ratios.setdefault(n, []).append(lim[n] / rsr[n])
    checks = [within(f"Limit-6 / RSR-1 mean turnaround, {n}-processor jobs, within ±{CLOSE:.0%}", r, 1.0, CLOSE)
              for n, r in ratios.items()]
    flat = [big / small for big, small in zip(ratios[128], ratios[1], strict=True)]
    uniform = judged([within(f"(Limit-6 / RSR-1 of 128-processor jobs) over (the same of 1-processor jobs) within "
                             f"±{CLOSE:.0%}", flat, 1.0, CLOSE)])
    return judged(checks, values={"ratios": ratios}, readings={"the same penalty for every size": uniform})


register(Claim(
    id="002-fig5b-limit6-close", paper="002", where="§4.4, Fig. 5(b)",
    statement="Limit-6 and RSR-1 have close response time for all job sizes at load 0.7",
    quantity="mean turnaround by requested size at offered load 0.7, Limit-6 over RSR-1, 8-cube buddy, per size "
             "over seeds",
    paper_value="close (read as within ±20% for every size)",
    run=_limit6_close, expected=False,
    readings=(Reading("every size within ±20%", False, "Limit-6's mean turnaround within ±20% of RSR-1's for each "
                                                       "requested size"),
              Reading("the same penalty for every size", True,
                      "close = Limit-6 does not treat sizes differently: its ratio to RSR-1 for 128-processor jobs "
                      "within ±20% of that for 1-processor jobs")),
))
