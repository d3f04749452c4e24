"""Ismail (seed 000), chapters 2-3, further claims: chapter 3 under linear speedup and §3.5's
conclusion against Sevcik 1989, the observations of Figs. 3.6-3.14, the best fixed maximum folding
factor (Figs. 3.15-3.16), MFFF's robustness (Figs. 3.19-3.20), the no-folding saturation points
(§2.5 / chapter 3's introduction) and the prioritised unlimited folding policies (Figs. 2.22-2.24).

Sizes, seeds and the replication rule are those of :mod:`scheduling.reproduce.seed000_static`
(full: 8,500 jobs, 500 discarded, seeds 0-3 replicated up to 0-11; quick: fewer jobs, seeds 0-2 up to
0-4). "Do not differ significantly" is read as within the thesis' 5% resolution on mean response
times (each of its means carries up to 5% relative error at 95%), the library's reading; where the
thesis says "statistically insignificant" the literal reading (the paired difference's interval
still straddles zero at the cap) is shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..metrics.significance import GREATER, LESS
from .claims import NOT_SIGNIFICANT, Claim, Outcome, Reading, Size, register
from .judge import HOLDS, REFUTED, UNDECIDED, Check, fact, judged
from .seed000_static import (
    START,
    Rep,
    beyond_limit,
    faster,
    magnitude,
    measure,
    order,
    ratio,
    rep,
    rt,
    verdict_of,
)

__all__: list[str] = []

#: "Not significantly different": within 5% (the thesis' resolution on mean response times).
SAME = 0.05

# -- chapter 3 under linear speedup; §3.5 against Sevcik 1989 -----------------------------------------

#: The loads of Fig. 3.4 whose margins §3.3.2.1 states, with the margin of FF+FIFO over FFF.
FIG34_MARGINS = {0.2: 0.4, 0.5: 0.6, 0.7: 0.7, 0.9: 0.5}
#: The loads of Fig. 3.5 (exponential sizes, MISP) whose margins §3.3.2.1 states.
FIG35_MARGINS = {0.4: 0.1, 0.6: 0.2, 0.8: 0.3, 1.2: 0.15}
#: Tolerance on a stated margin (the ratio of two mean response times): the thesis rounds its
#: margins to 10% steps (5% for one), and each of its means carries up to 5% relative error.
MARGIN_TOLERANCE = 0.10


def _linear_fff(size: Size) -> Outcome:
    r = rep(size)
    checks = [faster("FFF", other, x, r, speedup="linear") for x in FIG34_MARGINS for other in ("FF", "FF+FIFO")]
    return verdict_of(checks, f"linear speedup, uniform sizes and run times, {r.text}")


register(Claim(
    id="000-fig3-4-linear-fff", paper="000", where="§3.3.2.1, Fig. 3.4",
    statement="FFF outperformed FF and FF+FIFO under both linear and sublinear speedup curves: under linear "
              "speedup (Fig. 3.4; uniform sizes and run times) FFF's mean response time is shorter than FF's and "
              "FF+FIFO's at L = 0.2, 0.5, 0.7 and 0.9",
    quantity="mean response time, FFF against FF and against FF+FIFO under linear speedup at four loads, each paired "
             "over seeds",
    run=_linear_fff,
))


def _margins(margins: dict[float, float], context: str, **kw: str) -> Callable[[Size], Outcome]:
    def run(size: Size) -> Outcome:
        r = rep(size)
        checks = [magnitude(f"RT(FF+FIFO) / RT(FFF) at L = {x:g} = {1 + m:.2f} ± {MARGIN_TOLERANCE:g}",
                            ratio(rt("FF+FIFO", x, r, **kw), rt("FFF", x, r, **kw)), 1 + m, MARGIN_TOLERANCE, r)
                  for x, m in margins.items()]
        return verdict_of(checks, f"{context}, {r.text}")

    return run


register(Claim(
    id="000-fig3-4-linear-margins", paper="000", where="§3.3.2.1, Fig. 3.4",
    statement="in Figure 3.4, where linear speedup is assumed, the degradation [of FF+FIFO against FFF] is more "
              "significant: approximately 40% under L = 0.2, 60% under L = 0.5, 70% under L = 0.7, and 50% under "
              "L = 0.9",
    paper_value=f"RT(FF+FIFO) / RT(FFF) = 1.4 / 1.6 / 1.7 / 1.5 (asserted: each within ± {MARGIN_TOLERANCE:g})",
    quantity="ratio of mean response times RT(FF+FIFO) / RT(FFF) per load under linear speedup, per seed on common "
             "random numbers",
    run=_margins(FIG34_MARGINS, "linear speedup, uniform sizes and run times", speedup="linear"),
    expected=NOT_SIGNIFICANT,
    diagnosis="Three of the four margins hold (8,500 jobs: 1.374 [1.353, 1.395] at L = 0.2, 1.61 [1.548, 1.673] at "
              "0.5, 1.68 [1.616, 1.744] at 0.7); at L = 0.9 ours is 1.606 [1.554, 1.658] over seeds 0-11 against "
              "the thesis' 'approximately 50%' (band [1.4, 1.6]): its interval straddles the band's edge at the cap, "
              "so the claim is not significant. Near L = 0.9 FF+FIFO approaches its saturation under linear "
              "speedup, where small differences in the offered load move the ratio most. Command: topoalloc "
              "reproduce --claim 000-fig3-4-linear-margins --full.",
))

register(Claim(
    id="000-fig3-5-exponential-sizes-margins", paper="000", where="§3.3.2.1, Fig. 3.5",
    statement="the advantage of FFF over FF+FIFO is more moderate in Figure 3.5 (exponential sizes, MISP): the "
              "degradation produced by FF+FIFO is approximately 10% under L = 0.4, 20% under L = 0.6, 30% under "
              "L = 0.8, and 15% under L = 1.2",
    paper_value=f"RT(FF+FIFO) / RT(FFF) = 1.1 / 1.2 / 1.3 / 1.15 (asserted: each within ± {MARGIN_TOLERANCE:g})",
    quantity="ratio of mean response times RT(FF+FIFO) / RT(FFF) per load, exponential sizes, per seed on common "
             "random numbers",
    run=_margins(FIG35_MARGINS, "exponential sizes, uniform run times, MISP", sizes="exponential"),
    expected=NOT_SIGNIFICANT, expected_full=True,
))


def _ff_double(size: Size) -> Outcome:
    r = rep(size)
    checks = [magnitude("RT(FF) / RT(FFF) at L = 0.7, MISP = 2 ± 0.3", ratio(rt("FF", 0.7, r), rt("FFF", 0.7, r)),
                        2.0, 0.3, r),
              magnitude("RT(FF) / RT(FFF) at L = 0.8, linear = 2 ± 0.3",
                        ratio(rt("FF", 0.8, r, speedup="linear"), rt("FFF", 0.8, r, speedup="linear")), 2.0, 0.3, r),
              order("RT(FF) at L = 0.8 > RT(FFF) at L = 1.2, MISP", rt("FF", 0.8, r), rt("FFF", 1.2, r), r, GREATER)]
    return verdict_of(checks, f"uniform sizes and run times, {r.text}")


register(Claim(
    id="000-s3-3-2-1-ff-double", paper="000", where="§3.3.2.1, Figs. 3.3-3.4",
    statement="the performance of FF under L = 0.8 is worse than that of FFF under L = 1.2 in Figure 3.3, and the "
              "mean response time of FF is approximately double that of FFF under L = 0.7 in Figure 3.3 (MISP) and "
              "under L = 0.8 in Figure 3.4 (linear speedup)",
    paper_value="RT(FF) / RT(FFF) ≈ 2 (asserted: within ± 0.3)",
    quantity="ratio of mean response times RT(FF) / RT(FFF) per seed, and RT(FF, L = 0.8) against RT(FFF, L = 1.2) "
             "paired over seeds",
    run=_ff_double, expected=NOT_SIGNIFICANT, expected_full=True,
))

#: The policies of chapter 2 that §3.5 says MFFF is superior to.
CHAPTER2 = ("FCFS", "FF", "FFDS", "FFIS", "FCFSUF", "FF+FIFO", "FFDS+FIFO", "FFIS+FIFO", "EPFP")


def _mfff_beats_chapter2(speedup: str, loads: Sequence[float]) -> Callable[[Size], Outcome]:
    def run(size: Size) -> Outcome:
        r = rep(size)
        checks = [faster("MFFF", p, x, r, speedup=speedup) for x in loads for p in CHAPTER2]
        return verdict_of(checks, f"{speedup} speedup, uniform sizes and run times, {r.text}")

    return run


register(Claim(
    id="000-s3-5-mfff-linear-sevcik", paper="000", where="§3.5 (and §3.1), Fig. 3.4",
    statement="MFFF is superior to FF, FF+FIFO, and the remaining policies studied in Chapter 2, including when "
              "linear speedup is assumed -- contradicting the assertion in [Sevcik 89] that no folding is optimal "
              "under linear speedup (linear speedup, uniform sizes and run times, L = 0.2, 0.5 and 0.7)",
    quantity="mean response time, MFFF against each of the nine chapter-2 policies (FCFS, FF, FFDS, FFIS, FCFSUF, "
             "FF+FIFO, FFDS+FIFO, FFIS+FIFO, EPFP) under linear speedup at three loads, each paired over seeds",
    run=_mfff_beats_chapter2("linear", (0.2, 0.5, 0.7)),
))

register(Claim(
    id="000-s3-5-mfff-misp", paper="000", where="§3.5",
    statement="MFFF is superior to FF, FF+FIFO, and the remaining policies studied in Chapter 2 (MISP speedup, "
              "uniform sizes and run times, L = 0.2, 0.6 and 1)",
    quantity="mean response time, MFFF against each of the nine chapter-2 policies under MISP speedup at three "
             "loads, each paired over seeds",
    run=_mfff_beats_chapter2("misp", (0.2, 0.6, 1.0)),
))


def _linear_fff_mfff(size: Size) -> Outcome:
    r = rep(size)
    lin = dict(speedup="linear")
    checks = [faster("FFF", p, x, r, **lin) for x in (0.5, 0.7) for p in ("MFFF", "MFSJF")]
    checks += [order(f"S_e(FFF) > S_e(MFFF) at L = {x:g}", measure("effectiveness", "FFF", x, r, **lin),
                     measure("effectiveness", "MFFF", x, r, **lin), r, GREATER) for x in (0.5, 0.7)]
    return verdict_of(checks, f"linear speedup, uniform sizes and run times, {r.text}")


register(Claim(
    id="000-fig3-10-linear-fff-mfff", paper="000", where="§3.3.2.2, Fig. 3.10",
    statement="when linear speedup is assumed, FFF can produce shorter mean response times than MFFF and MFSJF; FFF "
              "outperformed MFFF under linear speedup because it is more effective (uniform sizes and run times; "
              "read at L = 0.5 and 0.7)",
    quantity="mean response time, FFF against MFFF and MFSJF, and S_e, FFF against MFFF, under linear speedup at "
             "L = 0.5 and 0.7, each paired over seeds",
    run=_linear_fff_mfff,
))


# -- Figs. 3.6-3.14: the limited folding policies under MISP speedup ----------------------------------

#: The workloads of Figs. 3.6-3.9: (figure, sizes, run times).
FIGS36_39 = (("3.6", "uniform", "uniform"), ("3.7", "exponential", "uniform"), ("3.8", "uniform", "exponential"),
             ("3.9", "exponential", "exponential"))


def _obs1(size: Size) -> Outcome:
    r = rep(size)
    checks = [faster(good, bad, 1.0, r, where=f", Fig. {fig}", sizes=s, runtimes=t)
              for fig, s, t in FIGS36_39 for bad in ("FFF", "FFCFS") for good in ("MFFF", "FSJF", "MFSJF")]
    return verdict_of(checks, f"MISP, L = 1, {r.text}")


register(Claim(
    id="000-figs3-6-9-obs1", paper="000", where="§3.3.2.2 obs. 1, Figs. 3.6-3.9",
    statement="FFF and FFCFS are inferior to MFFF, FSJF, and MFSJF (MISP speedup, the four combinations of uniform "
              "and exponential sizes and run times; read at high load, L = 1)",
    quantity="mean response time, each of FFF and FFCFS against each of MFFF, FSJF and MFSJF at L = 1 in the four "
             "workloads (24 orderings), each paired over seeds",
    run=_obs1,
))


def _obs2(size: Size) -> Outcome:
    r = rep(size)
    checks = [magnitude(f"RT({p}) / RT(MFFF) at L = {x:g}, Fig. {fig} = 1 ± {SAME:g}",
                        ratio(rt(p, x, r, sizes=s, runtimes=t), rt("MFFF", x, r, sizes=s, runtimes=t)), 1.0, SAME, r)
              for fig, s, t in FIGS36_39 for x in (0.6, 1.0) for p in ("FSJF", "MFSJF")]
    return verdict_of(checks, f"MISP, {r.text}")


register(Claim(
    id="000-figs3-6-9-obs2", paper="000", where="§3.3.2.2 obs. 2, Figs. 3.6-3.9",
    statement="the mean response times produced by MFFF, FSJF, and MFSJF do not differ significantly (MISP speedup, "
              "the four workloads; at L = 0.6 and 1)",
    paper_value=f"no significant difference (read as: within the thesis' {SAME:.0%} resolution)",
    quantity="ratios of mean response times RT(FSJF) / RT(MFFF) and RT(MFSJF) / RT(MFFF), per seed on common random "
             "numbers, at two loads in four workloads",
    run=_obs2, expected=NOT_SIGNIFICANT, expected_full=True,
))


def _obs3(size: Size) -> Outcome:
    r = rep(size)
    checks: list[Check] = []
    for fig, s, t in FIGS36_39:
        kw = dict(sizes=s, runtimes=t)
        checks.append(faster("FFF", "FFCFS", 1.0, r, where=f", Fig. {fig}", **kw))
        checks.append(beyond_limit(f"RT(FFCFS) / RT(FFF) at L = 1, Fig. {fig} < 1.1",
                                   ratio(rt("FFCFS", 1.0, r, **kw), rt("FFF", 1.0, r, **kw)), 1.1, r, above=False))
    worse = judged(checks[::2], f"the ordering alone, MISP, {r.text}: " + "; ".join(str(c) for c in checks[::2]))
    return verdict_of(checks, f"MISP, {r.text}", **{"worse, any margin": worse})


register(Claim(
    id="000-figs3-6-9-obs3", paper="000", where="§3.3.2.2 obs. 3, Figs. 3.6-3.9",
    statement="FFCFS performs only slightly worse than FFF (MISP speedup, the four workloads; at L = 1)",
    paper_value="slightly worse (read as: significantly longer mean response time, by less than 10%)",
    quantity="mean response time, FFF against FFCFS paired over seeds, and the ratio RT(FFCFS) / RT(FFF) per seed, "
             "at L = 1 in four workloads",
    run=_obs3, expected=NOT_SIGNIFICANT, expected_full=False,
    readings=(Reading("worse by under 10%", False, "FFCFS significantly slower than FFF, by less than 10%",
                      expected_quick=NOT_SIGNIFICANT),
              Reading("worse, any margin", True, "FFCFS significantly slower than FFF (no bound on the margin)")),
    diagnosis="FFCFS is significantly slower than FFF in all four workloads at L = 1, but by 12.8% (exponential "
              "sizes, uniform run times: 1.128 [1.102, 1.155]) and 12.5% (exponential sizes and run times: 1.125 "
              "[1.104, 1.146]) against 8.1% and 7.0% with uniform sizes (8,500 jobs, seeds 0-3; topoalloc reproduce "
              "--claim 000-figs3-6-9-obs3 --full). 'Only slightly worse' read as under 10% (twice the thesis' 5% "
              "resolution) fails for exponential sizes; with no bound on the margin the observation holds. "
              "FFCFS's head-of-queue blocking costs more when most jobs are small and one large job at the head "
              "holds them back.",
))


def _se_folding(size: Size) -> Outcome:
    r = rep(size)
    checks: list[Check] = []
    for fig, s, t in (("3.11", "uniform", "uniform"), ("3.12", "exponential", "exponential")):
        for x in (0.6, 1.0):
            checks.append(order(f"S_e(MFFF) < S_e(FFF) at L = {x:g}, Fig. {fig}",
                                measure("effectiveness", "MFFF", x, r, sizes=s, runtimes=t),
                                measure("effectiveness", "FFF", x, r, sizes=s, runtimes=t), r, LESS))
    for fig, t in (("3.13", "uniform"), ("3.14", "exponential")):
        for x in (0.6, 1.0):
            checks.append(order(f"fold(MFFF) > fold(FFF) at L = {x:g}, Fig. {fig}",
                                measure("mean_folding_factor", "MFFF", x, r, runtimes=t),
                                measure("mean_folding_factor", "FFF", x, r, runtimes=t), r, GREATER))
    for p in ("MFFF", "FFF"):
        for x in (0.6, 1.0):
            checks.append(order(f"fold({p}), exponential run times > uniform at L = {x:g}",
                                measure("mean_folding_factor", p, x, r, runtimes="exponential"),
                                measure("mean_folding_factor", p, x, r, runtimes="uniform"), r, GREATER))
    return verdict_of(checks, f"MISP, fold = mean actual folding factor, {r.text}")


register(Claim(
    id="000-figs3-11-14-se-folding", paper="000", where="§3.3.2.2, Figs. 3.11-3.14",
    statement="MFFF produced lower scheduling effectiveness values than FFF (Figs. 3.11, 3.12); the mean actual "
              "folding factors of MFFF are larger than those of FFF (Figs. 3.13, 3.14), and they are larger when "
              "the execution times are distributed exponentially (MISP speedup; at L = 0.6 and 1)",
    quantity="S_e and mean actual folding factor n / P_al, MFFF against FFF and exponential against uniform run "
             "times, at L = 0.6 and 1, each paired over seeds",
    run=_se_folding, expected=NOT_SIGNIFICANT, expected_full=True,
))


# -- Figs. 3.15-3.16: fixed maximum folding factors ----------------------------------------------------

#: The fixed FF_max values tried (FF_max = P = 64 is unlimited folding: every job may start on one
#: processor).
FIXED = (1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 16.0, 64.0)
#: The coarser grid of the reduced size.
FIXED_QUICK = (2.0, 4.0, 8.0, 64.0)
FIXED_LOADS = (0.8, 1.2)


def _fixed_rt(f: float, load: float, r: Rep, runtimes: str) -> Callable[[int], float]:
    return rt(f"FFF-fixed-{f:g}", load, r, runtimes=runtimes)


def _best_fixed(r: Rep, load: float, runtimes: str, grid: Sequence[float]) -> tuple[float, dict[float, float]]:
    """The fixed FF_max of ``grid`` with the lowest mean response time over seeds ``START .. START +
    r.first - 1``, and every value's mean."""
    means = {f: float(np.mean([_fixed_rt(f, load, r, runtimes)(START + i) for i in range(r.first)])) for f in grid}
    return min(means, key=means.__getitem__), means


def _fixed(size: Size) -> Outcome:
    r = rep(size)
    grid = size.pick(FIXED_QUICK, FIXED)
    checks: list[Check] = []
    best: dict[tuple[str, float], float] = {}
    rises: dict[tuple[str, float], Callable[[int], float]] = {}
    lines = []
    for t, fig in (("uniform", "3.15"), ("exponential", "3.16")):
        for x in FIXED_LOADS:
            f, means = _best_fixed(r, x, t, grid)
            best[t, x] = f
            lines.append(f"Fig. {fig} L = {x:g}: " + ", ".join(f"{k:g}: {v:.4g}" for k, v in means.items()))

            def rise(seed: int, f: float = f, x: float = x, t: str = t) -> float:
                return _fixed_rt(64.0, x, r, t)(seed) / _fixed_rt(f, x, r, t)(seed) - 1.0

            rises[t, x] = rise
        lo, hi = best[t, 0.8], best[t, 1.2]
        checks.append(fact(f"best fixed FF_max at L = 1.2 > at L = 0.8, Fig. {fig}", hi > lo, f"{hi:g} against {lo:g}"))
        if hi != lo:
            checks.append(faster(f"FFF-fixed-{hi:g}", f"FFF-fixed-{lo:g}", 1.2, r, where=f", Fig. {fig}", runtimes=t))
            checks.append(faster(f"FFF-fixed-{lo:g}", f"FFF-fixed-{hi:g}", 0.8, r, where=f", Fig. {fig}", runtimes=t))
    for x in FIXED_LOADS:
        u, e = best["uniform", x], best["exponential", x]
        checks.append(fact(f"best fixed FF_max, exponential run times >= uniform at L = {x:g}", e >= u,
                           f"{e:g} against {u:g}"))
    for t in ("uniform", "exponential"):
        checks.append(order(f"RT(64) / RT(best) - 1 larger at L = 0.8 than 1.2, {t} run times", rises[t, 0.8],
                            rises[t, 1.2], r, GREATER))
    for x in FIXED_LOADS:
        checks.append(order(f"RT(64) / RT(best) - 1 larger for uniform than exponential run times at L = {x:g}",
                            rises["uniform", x], rises["exponential", x], r, GREATER))
    checks.append(fact("some best fixed FF_max differs between the workloads or loads", len(set(best.values())) > 1,
                       ", ".join(f"{t} L = {x:g}: {f:g}" for (t, x), f in best.items())))
    out = verdict_of(checks, f"FFF with fixed FF_max in {{{', '.join(f'{f:g}' for f in grid)}}}, MISP, uniform "
                             f"sizes, the best chosen on seeds {START}-{START + r.first - 1}, {r.text}")
    return Outcome(out.holds, out.ours + "; mean response times " + "; ".join(lines), out.values,
                   undecided=out.undecided)


register(Claim(
    id="000-figs3-15-16-best-fixed", paper="000", where="§3.3.2.2, Figs. 3.15-3.16",
    statement="the best fixed FF_max increases with the load and depends on workload characteristics: it is larger "
              "when the execution times are distributed exponentially than when uniform; the mean response times "
              "increase relatively more under L = 0.8 than under L = 1.2 when FF_max increases from its best value "
              "to P, and the relative increase is higher in Figure 3.15 (uniform run times) than in Figure 3.16 "
              "(FFF, MISP, uniform sizes)",
    quantity="mean response time of FFF with fixed FF_max; the best value on a grid per load and workload, checked "
             "by paired orderings of the best values, and the relative rise from the best to FF_max = P per seed",
    run=_fixed, expected=NOT_SIGNIFICANT, expected_full=True,
))


def _adaptive_vs_fixed(size: Size) -> Outcome:
    r = rep(size)
    grid = size.pick(FIXED_QUICK, FIXED)
    checks = []
    for t, fig in (("uniform", "3.6"), ("exponential", "3.8")):
        for x in FIXED_LOADS:
            f, _ = _best_fixed(r, x, t, grid)
            checks.append(magnitude(f"RT(FFF) / RT(FFF-fixed-{f:g}) at L = {x:g}, Fig. {fig} = 1 ± {SAME:g}",
                                    ratio(rt("FFF", x, r, runtimes=t), _fixed_rt(f, x, r, t)), 1.0, SAME, r))
    return verdict_of(checks, f"MISP, uniform sizes, the best fixed FF_max chosen on seeds {START}-"
                              f"{START + r.first - 1}, {r.text}")


register(Claim(
    id="000-figs3-6-8-best-fixed", paper="000", where="§3.3.2.2, Figs. 3.6, 3.8",
    statement="the mean response times of the adaptive FFF and FFF that uses the best fixed FF_max (FFF-Best Fixed) "
              "under MISP speedup and the uniform job sizes distribution do not differ significantly (at L = 0.8 "
              "and 1.2)",
    paper_value=f"no significant difference (read as: within {SAME:.0%})",
    quantity="ratio of mean response times RT(FFF) / RT(FFF with the best fixed FF_max), per seed on common random "
             "numbers",
    run=_adaptive_vs_fixed, expected=NOT_SIGNIFICANT, expected_full=True,
))


# -- Figs. 3.19-3.20: MFFF's robustness ------------------------------------------------------------

def _robust(size: Size) -> Outcome:
    r = rep(size)
    within_, literal = [], []
    for fig, s, t in (("3.19", "uniform", "uniform"), ("3.20", "exponential", "exponential")):
        kw = dict(sizes=s, runtimes=t)
        for x in (0.6, 1.0):
            for p in ("MFSTDF", "MFSHJF", "MFLOJF"):
                within_.append(magnitude(f"RT({p}) / RT(MFFF) at L = {x:g}, Fig. {fig} = 1 ± {SAME:g}",
                                         ratio(rt(p, x, r, **kw), rt("MFFF", x, r, **kw)), 1.0, SAME, r))
                expect = GREATER if p == "MFLOJF" else LESS
                o = order(f"RT({p}) {'>' if expect == GREATER else '<'} RT(MFFF) at L = {x:g}, Fig. {fig}",
                          rt(p, x, r, **kw), rt("MFFF", x, r, **kw), r, expect)
                within_.append(o)
                # literal reading: the difference is not significant at the cap
                literal.append(Check(f"RT({p}) - RT(MFFF) at L = {x:g}, Fig. {fig} not significant",
                                     HOLDS if o.state == UNDECIDED else REFUTED, o.text, o.value))
    lit = judged(literal, f"literal, MISP, {r.text}: " + "; ".join(str(c) for c in literal))
    return verdict_of(within_, f"MISP, {r.text}", **{"statistically insignificant": lit})


register(Claim(
    id="000-figs3-19-20-mfff-robust", paper="000", where="§3.4, Figs. 3.19-3.20; §3.5",
    statement="MFSTDF and MFSHJF outperformed MFFF, but MFLOJF produced longer mean response times; the performance "
              "differences were very small and statistically insignificant: MFFF is a robust policy (MISP speedup, "
              "uniform and exponential sizes and run times; at L = 0.6 and 1)",
    paper_value=f"statistically insignificant differences (read as: within the thesis' {SAME:.0%} resolution)",
    quantity="ratios of mean response times RT(MFSTDF | MFSHJF | MFLOJF) / RT(MFFF) per seed on common random "
             "numbers, and the paper's direction of each difference paired over seeds; literal reading: the paired "
             "differences not significant at the cap",
    run=_robust, expected=NOT_SIGNIFICANT, expected_full=True,
    readings=(Reading("within 5%", True, "every ratio's interval inside 1 ± 0.05 (the thesis' resolution), each "
                      "difference in the direction the thesis gives", expected_quick=NOT_SIGNIFICANT),
              Reading("statistically insignificant", False, "every paired difference still straddles zero at the cap "
                      "(seeds 0-11)")),
    diagnosis="Under the literal reading the differences are significant: with 8,500 jobs and common random "
              "numbers, 4 seeds already separate MFSTDF and MFSHJF (0.8-4.1% faster than MFFF) and MFLOJF (0.7-2.5% "
              "slower) in both workloads and at both loads -- in exactly the directions the thesis reports, and "
              "all within its 5% resolution (largest: MFSTDF 0.959 [0.951, 0.967] of MFFF at L = 1, Fig. 3.20). "
              "The thesis' runs (independent replications to 5% relative error) could not resolve differences "
              "this small; paired runs can. Command: topoalloc reproduce --claim 000-figs3-19-20-mfff-robust --full.",
))


# -- §2.5 / chapter 3's introduction: where the no-folding policies saturate --------------------------

#: The load grid searched for the saturation point, and the points chapter 3's introduction states
#: (Figs. 2.9 and 2.10: "the level is approximately 0.6 for FCFS and FFIS and 0.7 for FF and FFDS").
SAT_GRID = tuple(round(0.40 + 0.05 * i, 2) for i in range(13))
SAT_STATED = {"FCFS": 0.6, "FFIS": 0.6, "FF": 0.7, "FFDS": 0.7}
#: Tolerance on a stated saturation point: one step of the thesis' load grid (0.1).
SAT_TOLERANCE = 0.1


def _saturation_load(policy: str, sizes: str, r: Rep, grid: Sequence[float]) -> Callable[[int], float]:
    """The first load of ``grid`` at which the run of ``policy`` saturates (its backlog grows
    through the run: :func:`scheduling.metrics.summary.saturation`), per seed; one step past the
    grid's end when none does. O(len(grid)) cached simulations per seed."""
    def at(seed: int) -> float:
        for x in grid:
            if measure("saturated", policy, x, r, sizes=sizes)(seed):
                return x
        return round(grid[-1] + grid[-1] - grid[-2], 2)

    return at


#: The knee reading: the first load whose mean response time is at least this multiple of the
#: policy's own at :data:`KNEE_BASE` (the lowest load of the grid, where §2.3.3.1 finds the policies
#: "practically the same").
KNEE_FACTOR, KNEE_BASE = 2.0, 0.4


def _knee_load(policy: str, sizes: str, r: Rep, grid: Sequence[float]) -> Callable[[int], float]:
    """The first load of ``grid`` whose mean response time is at least :data:`KNEE_FACTOR` times the
    one at :data:`KNEE_BASE`, per seed; one step past the grid's end when none is."""
    def at(seed: int) -> float:
        base = rt(policy, KNEE_BASE, r, sizes=sizes)(seed)
        for x in grid:
            if rt(policy, x, r, sizes=sizes)(seed) >= KNEE_FACTOR * base:
                return x
        return round(grid[-1] + grid[-1] - grid[-2], 2)

    return at


def _saturation_checks(point: Callable[[str, str, Rep, Sequence[float]], Callable[[int], float]], what: str,
                       dists: Sequence[str], r: Rep, grid: Sequence[float]) -> list[Check]:
    checks = [magnitude(f"{what} of {p}, {s} sizes = {target:g} ± {SAT_TOLERANCE:g}", point(p, s, r, grid), target,
                        SAT_TOLERANCE, r)
              for s in dists for p, target in SAT_STATED.items()]
    checks += [order(f"{what} of {a} > {b}, {s} sizes", point(a, s, r, grid), point(b, s, r, grid), r, GREATER)
               for s in dists for a in ("FF", "FFDS") for b in ("FCFS", "FFIS")]
    return checks


def _saturation(size: Size) -> Outcome:
    r = rep(size, 2000)
    # quick: uniform sizes only, on a 0.1 grid
    grid = size.pick(SAT_GRID[::2], SAT_GRID)
    dists = size.pick(("uniform",), ("uniform", "exponential"))
    text = f"MISP, uniform run times, grid {grid[0]:g}, {grid[1]:g}, ..., {grid[-1]:g}, {r.text}"
    knee = verdict_of(_saturation_checks(_knee_load, "knee load", dists, r, grid),
                      f"the first load whose mean response time is {KNEE_FACTOR:g}x its own at L = {KNEE_BASE:g}, "
                      + text)
    return verdict_of(_saturation_checks(_saturation_load, "saturation load", dists, r, grid),
                      "the first load whose run saturates (its backlog grows through the run), " + text,
                      **{f"knee: response time {KNEE_FACTOR:g}x its L = {KNEE_BASE:g} value": knee})


register(Claim(
    id="000-s2-5-saturation-points", paper="000", where="§3 introduction (of §2.5's results), Figs. 2.9-2.10",
    statement="the no-folding policies' mean response times start increasing sharply at load levels significantly "
              "smaller than one: approximately 0.6 for FCFS and FFIS and 0.7 for FF and FFDS in Figures 2.9 and 2.10",
    paper_value=f"0.6 (FCFS, FFIS), 0.7 (FF, FFDS) (asserted: each within ± {SAT_TOLERANCE:g}, and FF, FFDS later "
                "than FCFS, FFIS)",
    quantity="load per seed at which each policy's mean response time takes off: the first load on a 0.05 grid "
             "whose run saturates (scheduling.metrics.summary.saturation), or, second reading, whose mean response "
             f"time reaches {KNEE_FACTOR:g}x its own at L = {KNEE_BASE:g}",
    run=_saturation, expected=False,
    readings=(Reading("saturation", False, "the first load whose backlog grows through the run"),
              Reading(f"knee: response time {KNEE_FACTOR:g}x its L = {KNEE_BASE:g} value", False,
                      "the first load whose mean response time is at least twice its own at L = 0.4 (a threshold "
                      "of ours: the thesis gives none)", expected_quick=NOT_SIGNIFICANT)),
    diagnosis="The order holds under both readings (FF and FFDS take off 0.05-0.24 later than FCFS and FFIS, "
              "significant in both size distributions), the stated levels do not. Saturation (8,500 jobs, seeds "
              "0-3): uniform sizes FCFS 0.75, FFIS 0.75, FF 0.95, FFDS 0.975; exponential sizes 0.81, 0.85, 1.01, "
              "1.05 -- 0.15-0.35 above the thesis' 0.6 / 0.7. The text says the response times 'start increasing "
              "sharply' there, a knee before saturation: read as the first load whose mean response time doubles "
              "its own at L = 0.4, uniform sizes (Fig. 2.9) match (0.6, 0.65, 0.7, 0.71), exponential sizes "
              "(Fig. 2.10) do not (FCFS 0.69 [0.67, 0.70] undecided at seeds 0-11; FFIS 0.76, FF 0.82, FFDS 0.83 "
              "refuted). With mostly small jobs our no-folding policies fragment less and take off later than the "
              "thesis' Fig. 2.10; the exponential size distribution is read as mean 15 before truncation to [2, "
              "64] (§2.3.1 does not say which), one possible source. The doubling threshold is ours. Command: "
              "topoalloc reproduce --claim 000-s2-5-saturation-points --full.",
))


# -- Figs. 2.22-2.24: execution times known a priori ----------------------------------------------------

#: The workloads of Figs. 2.22-2.24 and the heavy load each is read at.
FIGS222_224 = (("2.22", "exponential", "misp", 1.0), ("2.23", "uniform", "misp", 1.0),
               ("2.24", "uniform", "linear", 0.8))


def _difference(a: Callable[[int], float], b: Callable[[int], float]) -> Callable[[int], float]:
    """``a(seed) - b(seed)``."""
    return lambda seed: a(seed) - b(seed)


def _priority(size: Size) -> Outcome:
    r = rep(size, 2000)
    checks: list[Check] = []
    for fig, t, sp, x in FIGS222_224:
        kw = dict(runtimes=t, speedup=sp)
        where = f", Fig. {fig}"
        checks += [faster(p, "FCFSUF", x, r, where=where, **kw) for p in ("SHJFUF", "STDFUF")]
        checks.append(faster("FCFSUF", "LOJFUF", x, r, where=where, **kw))
        for p in ("SHJFUF", "STDFUF"):
            checks.append(order(f"RT(LOJFUF) - RT(FCFSUF) > RT(FCFSUF) - RT({p}) at L = {x:g}{where}",
                                _difference(rt("LOJFUF", x, r, **kw), rt("FCFSUF", x, r, **kw)),
                                _difference(rt("FCFSUF", x, r, **kw), rt(p, x, r, **kw)), r, GREATER))
    return verdict_of(checks, f"uniform sizes, {r.text}")


register(Claim(
    id="000-figs2-22-24-priority", paper="000", where="§2.4, Figs. 2.22-2.24",
    statement="LOJFUF performed poorly under heavy loads, but SHJFUF and STDFUF outperformed FCFSUF; the reduction in "
              "mean response times associated with SHJFUF and STDFUF is smaller than their degradation associated "
              "with LOJFUF in Figures 2.22-2.24 (uniform sizes; exponential run times, MISP, L = 1; uniform run "
              "times, MISP, L = 1; uniform run times, linear speedup, L = 0.8)",
    quantity="mean response time, SHJFUF and STDFUF against FCFSUF against LOJFUF, and LOJFUF's degradation against "
             "the others' reduction, each paired over seeds",
    run=_priority, expected=NOT_SIGNIFICANT,
    diagnosis="14 of the 15 checks hold at full size (8,500 jobs, seeds 0-3 up to 0-11; topoalloc reproduce --claim "
              "000-figs2-22-24-priority --full): SHJFUF and STDFUF beat FCFSUF and LOJFUF is worse in all three "
              "figures. The undecided one is Fig. 2.23 (uniform run times, MISP, L = 1): LOJFUF's degradation "
              "exceeds STDFUF's reduction by 8.9 [-1.7, 19.5] time units at the cap (seeds 0-11) -- STDFUF's gain "
              "there (15.9 [2.4, 29.4]) is half LOJFUF's loss (31.7 [2.9, 60.5]) on average, but at L = 1 with "
              "uniform run times on [10, 200] the per-seed spread of both is large.",
))


# -- fairness: Figs. 2.16-2.20 and 3.17-3.18 ------------------------------------------------------------

def _unfair(policy: str, load: float, r: Rep, **kw: str) -> Callable[[int], float]:
    """Unfairness per seed: the mean turnaround of the largest size class over the smallest's
    (:data:`~scheduling.reproduce.seed000_static.SIZE_CLASSES`)."""
    return measure("unfairness", policy, load, r, **kw)


def _large(policy: str, load: float, r: Rep, **kw: str) -> Callable[[int], float]:
    """Mean turnaround of the largest size class per seed."""
    return measure("rt_class_3", policy, load, r, **kw)


def _fair_no_folding(size: Size) -> Outcome:
    r = rep(size, 3000)
    checks = [order(f"U(FCFS) < U({p}) at L = 0.6, {s} sizes", _unfair("FCFS", 0.6, r, sizes=s),
                    _unfair(p, 0.6, r, sizes=s), r, LESS) for s in ("uniform", "exponential") for p in ("FF", "FFDS")]
    checks += [beyond_limit(f"U({p}) at L = 0.6, exponential sizes > 1.5", _unfair(p, 0.6, r, sizes="exponential"),
                            1.5, r, above=True) for p in ("FF", "FFDS", "FFIS")]
    return verdict_of(checks, f"MISP, uniform run times, U = mean turnaround of the largest size class over the "
                              f"smallest's (n in [49, 64] over [2, 16]; exponential sizes [33, 64] over [2, 8]), "
                              f"{r.text}")


register(Claim(
    id="000-figs2-16-17-fairness", paper="000", where="§2.3.4, Figs. 2.16-2.17",
    statement="FCFS is relatively fair: the mean turnaround times of large jobs are not much longer than those of "
              "small jobs; FF and FFDS are not as fair; when the sizes are exponentially distributed, the turnaround "
              "times of large jobs are considerably longer than those of small jobs under the three no folding FF "
              "variants (L = 0.6)",
    paper_value="'considerably longer' read as: large over small above 1.5",
    quantity="unfairness U (mean turnaround of the largest size class over the smallest's) per seed: FCFS against "
             "FF and FFDS paired over seeds, and U of FF, FFDS and FFIS bounded below",
    run=_fair_no_folding,
))


def _fair_unlimited(size: Size) -> Outcome:
    r = rep(size, 3000)
    names = ("FCFSUF", "FF+FIFO", "FFDS+FIFO", "FFIS+FIFO")
    checks = [beyond_limit(f"U({p}) at L = {x:g} > 1.5", _unfair(p, x, r), 1.5, r, above=True)
              for x in (0.6, 0.9) for p in names]
    checks.append(faster("FFIS+FIFO", "FCFSUF", 0.9, r))
    checks.append(order("RT of the largest class, FCFSUF < FFIS+FIFO at L = 0.9", _large("FCFSUF", 0.9, r),
                        _large("FFIS+FIFO", 0.9, r), r, LESS))
    checks.append(magnitude("RT of the largest class, FCFSUF / FFIS+FIFO at L = 0.9, exponential sizes = 1 ± 0.1",
                            ratio(_large("FCFSUF", 0.9, r, sizes="exponential"),
                                  _large("FFIS+FIFO", 0.9, r, sizes="exponential")), 1.0, 0.1, r))
    return verdict_of(checks, f"MISP, uniform run times (uniform sizes unless stated), U = mean turnaround of the "
                              f"largest size class over the smallest's, {r.text}")


register(Claim(
    id="000-figs2-18-20-fairness", paper="000", where="§2.3.4, Figs. 2.18-2.20",
    statement="the mean response times under the unlimited folding policies increase significantly with the job "
              "size (L = 0.6 and 0.9); under FCFSUF, large jobs have significantly shorter turnaround times than "
              "under FFIS+FIFO when the sizes are distributed uniformly and the load is high (L = 0.9), even though "
              "FFIS+FIFO produces the shortest mean response times; the fairness curves of FFIS+FIFO and FCFSUF do "
              "not differ significantly when the sizes are exponentially distributed (MISP)",
    paper_value="'increase significantly' read as large over small above 1.5; 'do not differ significantly' as the "
                "largest class within 10% (the thesis' error on these curves: 10% at 90%)",
    quantity="unfairness U per seed bounded below; mean response time and the largest class's mean turnaround, "
             "FCFSUF against FFIS+FIFO, paired over seeds; their ratio under exponential sizes per seed",
    run=_fair_unlimited, expected=NOT_SIGNIFICANT, expected_full=True,
))


def _fair_limited(size: Size) -> Outcome:
    r = rep(size, 3000)
    checks: list[Check] = []
    for x in (0.6, 1.0):
        checks.append(order(f"RT of the largest class, FSJF > MFFF at L = {x:g}", _large("FSJF", x, r),
                            _large("MFFF", x, r), r, GREATER))
        checks.append(order(f"U(MFSJF) > U(MFFF) at L = {x:g}", _unfair("MFSJF", x, r), _unfair("MFFF", x, r), r,
                            GREATER))
        checks.append(order(f"U(FFCFS) < U(MFFF) at L = {x:g}", _unfair("FFCFS", x, r), _unfair("MFFF", x, r), r,
                            LESS))
        checks += [order(f"RT of size class {i}, FFCFS > MFFF at L = {x:g}", measure(f"rt_class_{i}", "FFCFS", x, r),
                         measure(f"rt_class_{i}", "MFFF", x, r), r, GREATER) for i in range(4)]
    checks.append(faster("MFFF", "FSJF", 1.0, r))
    checks += [order(f"U(MFFF) < U({p}) at L = 0.6", _unfair("MFFF", 0.6, r), _unfair(p, 0.6, r), r, LESS)
               for p in ("FF", "FFDS", "FF+FIFO", "FCFSUF")]
    return verdict_of(checks, f"MISP, uniform sizes and run times, size classes n in [2, 16], [17, 32], [33, 48], "
                              f"[49, 64], U = the largest class's mean turnaround over the smallest's, {r.text}")


register(Claim(
    id="000-figs3-17-18-fairness", paper="000", where="§3.3.2 (Fairness), Figs. 3.17-3.18",
    statement="FSJF causes large jobs to have excessive response times under moderate to high loads, and its mean "
              "response time is slightly worse than MFFF's; MFSJF has worse fairness characteristics than MFFF; "
              "FFCFS discriminates against large jobs less than MFFF, but its mean response times are longer for "
              "all job sizes; MFFF's fairness curves are better than those of the no folding and unlimited folding "
              "policies of chapter 2 (MISP, uniform sizes and run times, L = 0.6 and 1)",
    quantity="per-size-class mean turnaround and unfairness U (largest class over smallest), each comparison paired "
              "over seeds",
    run=_fair_limited, expected=NOT_SIGNIFICANT,
    diagnosis="Every fairness check holds at full size (8,500 jobs, seeds 0-3; topoalloc reproduce --claim "
              "000-figs3-17-18-fairness --full); the one undecided part is the aside that FSJF's mean response time "
              "is 'slightly worse than that of MFFF': at L = 1 the two differ by 0.05 [-0.95, 1.04] time units over "
              "seeds 0-11 (of about 270) -- indistinguishable, as §3.3.2.2's observation 2 itself says of MFFF, FSJF "
              "and MFSJF (claim 000-figs3-6-9-obs2).",
))


# -- Figs. 2.14-2.15: where unlimited folding overtakes no folding ---------------------------------------

#: The load grid searched for the crossover of FF and FF+FIFO.
CROSS_GRID = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))  # 0.3 .. 0.9


def _crossover_load(speedup: str, sizes: str, r: Rep, grid: Sequence[float]) -> Callable[[int], float]:
    """The first load of ``grid`` at which FF+FIFO's mean response time is below FF's, per seed (one
    step past the grid's end when none is). O(len(grid)) cached simulations per seed."""
    def at(seed: int) -> float:
        for x in grid:
            kw = dict(sizes=sizes, speedup=speedup)
            if rt("FF+FIFO", x, r, **kw)(seed) < rt("FF", x, r, **kw)(seed):
                return x
        return round(grid[-1] + grid[-1] - grid[-2], 2)

    return at


def _crossovers(size: Size) -> Outcome:
    r = rep(size, 2000)
    grid = size.pick(CROSS_GRID[::2], CROSS_GRID)
    end = round(grid[-1] + grid[-1] - grid[-2], 2)
    checks = [magnitude("crossover load, MISP, uniform sizes (Fig. 2.14) = 0.55 ± 0.1",
                        _crossover_load("misp", "uniform", r, grid), 0.55, 0.1, r),
              magnitude("crossover load, linear speedup, uniform sizes (Fig. 2.14) = 0.75 ± 0.1",
                        _crossover_load("linear", "uniform", r, grid), 0.75, 0.1, r),
              beyond_limit(f"crossover load, linear speedup, exponential sizes (Fig. 2.15): none up to {grid[-1]:g}",
                           _crossover_load("linear", "exponential", r, grid), grid[-1], r, above=True),
              order("crossover load, linear > MISP, uniform sizes", _crossover_load("linear", "uniform", r, grid),
                    _crossover_load("misp", "uniform", r, grid), r, GREATER)]
    return verdict_of(checks, f"uniform run times, the first load on the grid {grid[0]:g}, {grid[1]:g}, ..., "
                              f"{grid[-1]:g} where RT(FF+FIFO) < RT(FF) ({end:g}: none), {r.text}")


register(Claim(
    id="000-figs2-14-15-crossover-loads", paper="000", where="§2.3.3.2 obs. 7, Figs. 2.14-2.15",
    statement="FF+FIFO starts outperforming FF at L ≈ 0.75 under linear speedup in Figure 2.14, whereas the "
              "crossover load level in the same figure is approximately 0.55 under MISP speedup; under linear "
              "speedup FF outperforms FF+FIFO across all loads in Figure 2.15 (exponential sizes)",
    paper_value="crossover at L ≈ 0.55 (MISP) and 0.75 (linear), none with exponential sizes under linear speedup "
                "(asserted: within ± 0.1; 'all loads' read as up to L = 0.9)",
    quantity="crossover load per seed: the first load on a 0.05 grid where FF+FIFO's mean response time is below "
             "FF's, for three workloads",
    run=_crossovers,
))


# -- scheduling effectiveness: Figs. 2.1-2.2, 2.6-2.7 and 3.1-3.2 --------------------------------------

def _se(policy: str, load: float, r: Rep, **kw: str) -> Callable[[int], float]:
    """Scheduling effectiveness S_e per seed."""
    return measure("effectiveness", policy, load, r, **kw)


def _se_no_folding(size: Size) -> Outcome:
    r = rep(size, 2000)
    chain = ("FFDS", "FF", "FCFS", "FFIS")
    checks = [order(f"S_e({a}) > S_e({b}) at L = {x:g}, {s} sizes", _se(a, x, r, sizes=s), _se(b, x, r, sizes=s), r,
                    GREATER)
              for s in ("uniform", "exponential") for x in (0.5, 0.7) for a, b in zip(chain, chain[1:], strict=False)]
    return verdict_of(checks, f"MISP, uniform run times, {r.text}")


register(Claim(
    id="000-figs2-1-2-effectiveness-order", paper="000", where="§2.3.2.1, Figs. 2.1-2.2",
    statement="the general ordering of the no folding policies' mean scheduling effectiveness, from best to worst, "
              "is: FFDS, FF, FCFS, and FFIS (uniform and exponential sizes; read at L = 0.5 and 0.7, where "
              "fragmentation separates them)",
    quantity="scheduling effectiveness S_e, each neighbour in the chain FFDS > FF > FCFS > FFIS at two loads and "
             "two size distributions, paired over seeds",
    run=_se_no_folding, expected=NOT_SIGNIFICANT,
    diagnosis="11 of the 12 orderings hold at full size (8,500 jobs, seeds 0-3 up to 0-11; topoalloc reproduce "
              "--claim 000-figs2-1-2-effectiveness-order --full). FCFS and FFIS have the same S_e at L = 0.7 with "
              "uniform sizes (difference -0.0002 [-0.0033, 0.0029] over seeds 0-11), while FCFS is ahead at L = 0.5 "
              "and with exponential sizes: the thesis calls the chain a 'general' ordering, and at this point the "
              "two curves touch.",
))


def _se_folding_vs_not(size: Size) -> Outcome:
    r = rep(size, 2000)
    checks: list[Check] = []
    for nofold, fold, fig in (("FF", "FF+FIFO", "2.6"), ("FCFS", "FCFSUF", "2.7")):
        checks += [order(f"S_e({nofold}) > S_e({fold}) at L = {x:g}, Fig. {fig}", _se(nofold, x, r), _se(fold, x, r),
                         r, GREATER) for x in (0.4, 0.6)]
        checks.append(order(f"S_e({fold}) > S_e({nofold}) at L = 1.2, Fig. {fig}", _se(fold, 1.2, r),
                            _se(nofold, 1.2, r), r, GREATER))
    checks += [order(f"S_e(FFIS+FIFO) > S_e({p}) at L = 0.9", _se("FFIS+FIFO", 0.9, r), _se(p, 0.9, r), r, GREATER)
               for p in ("FF+FIFO", "FFDS+FIFO")]
    checks.append(order("S_e(EPFP) < S_e(FCFSUF) at L = 1.2", _se("EPFP", 1.2, r), _se("FCFSUF", 1.2, r), r, LESS))
    return verdict_of(checks, f"MISP, uniform sizes and run times, {r.text}")


register(Claim(
    id="000-figs2-3-7-folding-effectiveness", paper="000", where="§2.3.2.2, Figs. 2.3-2.7",
    statement="the unlimited folding policies are less effective than the no folding policies, except under very "
              "high loads (Figs. 2.6, 2.7: FF+FIFO against FF, FCFSUF against FCFS); FFIS+FIFO is slightly more "
              "effective than the other two unlimited folding FF policies; EPFP has lower scheduling effectiveness "
              "under high loads (MISP, uniform sizes and run times; read at L = 0.4, 0.6 against 1.2, and 0.9)",
    quantity="scheduling effectiveness S_e, each comparison paired over seeds",
    run=_se_folding_vs_not, expected=False,
    diagnosis="Everything holds but the FF exception of Fig. 2.6: FF+FIFO never becomes more effective than FF up to "
              "L = 1.2 (8,500 jobs, seeds 0-1: S_e of FF / FF+FIFO 0.848 / 0.747 at L = 0.8, 0.95 / 0.83 at 1.0, "
              "0.970 / 0.916 at 1.2; at L = 1.2 the difference is -0.056 [-0.064, -0.049] over seeds 0-3). FF "
              "saturates from L = 0.95 (000-s2-5-saturation-points): its queue grows through the run, and a long "
              "queue lets first fit fill the machine -- §2.3.2.1 itself notes that FF's effectiveness rises under "
              "heavy loads. FCFSUF does overtake FCFS (0.19 at L = 1.2), so the exception holds for the FCFS pair "
              "(Fig. 2.7) only. Command: topoalloc reproduce --claim 000-figs2-3-7-folding-effectiveness --full.",
))

#: The loads of Figs. 3.1-3.2.
FIG31_LOADS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2)


def _spread(policy: str, r: Rep, sizes: str) -> Callable[[int], float]:
    """The range (max - min) of S_e over :data:`FIG31_LOADS` per seed: how unstable it is with the load."""
    def at(seed: int) -> float:
        values = [_se(policy, x, r, sizes=sizes)(seed) for x in FIG31_LOADS]
        return max(values) - min(values)

    return at


def _se_fff(size: Size) -> Outcome:
    r = rep(size, 2000)
    checks: list[Check] = []
    for s, fig in (("uniform", "3.1"), ("exponential", "3.2")):
        checks += [order(f"S_e(FFF) > S_e({p}) at L = {x:g}, Fig. {fig}", _se("FFF", x, r, sizes=s),
                         _se(p, x, r, sizes=s), r, GREATER) for x in FIG31_LOADS for p in ("FF", "FF+FIFO")]
        checks += [order(f"S_e range over loads, FFF < {p}, Fig. {fig}", _spread("FFF", r, s), _spread(p, r, s), r,
                         LESS) for p in ("FF", "FF+FIFO")]
    for p in ("FF", "FF+FIFO"):
        checks += [order(f"S_e(FFF) - S_e({p}) at L = {x:g} larger for uniform than exponential sizes",
                         _difference(_se("FFF", x, r), _se(p, x, r)),
                         _difference(_se("FFF", x, r, sizes="exponential"), _se(p, x, r, sizes="exponential")), r,
                         GREATER) for x in (0.6, 1.0)]
    # FF saturates from L = 0.95 (000-s2-5-saturation-points): without the loads where it does
    stable = [c for c in checks if not c.name.startswith("S_e(FFF) > S_e(FF) at L = 1")]
    return verdict_of(checks, f"MISP, uniform run times, {r.text}",
                      **{"where FF is stable (L <= 0.8)": verdict_of(stable, f"without FF at L >= 1, {r.text}")})


register(Claim(
    id="000-figs3-1-2-fff-effectiveness", paper="000", where="§3.3.2.1, Figs. 3.1-3.2",
    statement="FFF yielded more stable and higher effectiveness than FF and FF+FIFO; the performance advantage of "
              "FFF is less significant in Figure 3.2 because the requests are distributed exponentially (MISP, "
              "uniform run times, L = 0.2, 0.4, ..., 1.2)",
    quantity="scheduling effectiveness S_e, FFF against FF and FF+FIFO at six loads; its range over the loads per "
             "seed; FFF's advantage at L = 0.6 and 1 for uniform against exponential sizes; each paired over seeds",
    run=_se_fff, expected=NOT_SIGNIFICANT, expected_full=False,
    readings=(Reading("every load", False, "FFF's S_e above FF's and FF+FIFO's at every load of the figure",
                      expected_quick=NOT_SIGNIFICANT),
              Reading("where FF is stable (L <= 0.8)", True, "the comparison with FF only where FF does not saturate "
                      "(it does from L = 0.95): a saturated run's queue grows through the run",
                      expected_quick=NOT_SIGNIFICANT)),
    diagnosis="FFF is more effective than FF+FIFO at every load and than FF up to L = 0.8, and its S_e varies "
              "less over the loads than either (all significant; 8,500 jobs, seeds 0-3 up to 0-11; topoalloc "
              "reproduce --claim 000-figs3-1-2-fff-effectiveness --full). Against FF at L >= 1 it is not: equal at "
              "L = 1 with uniform sizes (0.0014 [-0.0009, 0.0036], seeds 0-11) and below FF with exponential sizes "
              "(-0.018 [-0.022, -0.015] at L = 1, -0.008 [-0.011, -0.006] at 1.2). FF saturates from L = 0.95: its "
              "queue grows through the run, and first fit over a long queue fills the machine (the same cause as "
              "in 000-figs2-3-7-folding-effectiveness). Without those saturated loads the claim holds.",
))


# -- §3.3.2.1: FFF saturates under higher loads than FF -------------------------------------------------

#: The load grid searched for FF's and FFF's saturation points.
FFF_SAT_GRID = tuple(round(0.50 + 0.05 * i, 2) for i in range(23))  # 0.5 .. 1.6


def _saturates_at(policy: str, r: Rep, grid: Sequence[float], **kw: str) -> Callable[[int], float]:
    """The first load of ``grid`` whose run of ``policy`` saturates, per seed (one step past the end
    when none does). O(len(grid)) cached simulations per seed."""
    def at(seed: int) -> float:
        for x in grid:
            if measure("saturated", policy, x, r, **kw)(seed):
                return x
        return round(grid[-1] + grid[-1] - grid[-2], 2)

    return at


def _fff_saturation(size: Size) -> Outcome:
    r = rep(size, 2000)
    grid = size.pick(FFF_SAT_GRID[::4], FFF_SAT_GRID)
    checks = [order(f"saturation load, FFF > FF, {sp} speedup", _saturates_at("FFF", r, grid, speedup=sp),
                    _saturates_at("FF", r, grid, speedup=sp), r, GREATER) for sp in ("misp", "linear")]
    checks.append(order("saturation load of FFF, MISP > linear speedup", _saturates_at("FFF", r, grid),
                        _saturates_at("FFF", r, grid, speedup="linear"), r, GREATER))
    return verdict_of(checks, f"uniform sizes and run times, the first load on the grid {grid[0]:g}, {grid[1]:g}, "
                              f"..., {grid[-1]:g} whose run saturates, {r.text}")


register(Claim(
    id="000-s3-3-2-1-fff-saturates-later", paper="000", where="§3.3.2.1, Figs. 3.3-3.4",
    statement="because FFF is more effective than FF, it saturates under higher loads, including when linear "
              "speedup is assumed; the saturation loads are much higher under MISP speedup because of the increase "
              "in efficiency that results from folding (uniform sizes and run times)",
    quantity="saturation load per seed (the first load on a 0.05 grid whose backlog grows through the run, "
             "scheduling.metrics.summary.saturation), FFF against FF and MISP against linear speedup, paired over "
             "seeds",
    run=_fff_saturation, expected=NOT_SIGNIFICANT, expected_full=True,
))
