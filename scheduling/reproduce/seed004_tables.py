"""Wang, Papaefthymiou & Squillante (seed 004): Fig. 3's whole table against the replayed log, Figs.
4-7 as trends in the timeplexing cycle T, and Figs. 8-9's migration schemes against EASY-LL at a low
switch cost. Imported by :mod:`scheduling.reproduce.seed004`, whose docstring gives the workload,
the sizes and how a claim on one log is judged (disjoint 4-day windows of the month as
replications; the verdict is the full month's).

Figs. 4-7 plot each class's R/S against T for push-down, the root and the leaves at 1 s and 16 s;
the figures' curves are not in the text, so the trends asserted are the ones §6 states in words:
"for sufficiently large timeplexing cycles" the root "performs as well as EASY-LL for classes 3 and
4" (read: the root's R/S in those classes falls as T grows, T = 300 -> 3000 s), and "performance
degradation is more evident for short timeplexing cycles" (read: the mean response at 16 s over that
at 1 s falls with T over 300, 1000 and 3000 s). The cycles 300, 1000 and 3000 s are the library's
choice (the paper's x-axis values are not in the text; Figs. 8-9 use 1000 and 3000 s).
"""

from __future__ import annotations

from ..metrics.gang import FIG3, FIG3_PRINTED_RS
from ..metrics.significance import GREATER, LESS
from .claims import NOT_SIGNIFICANT, Claim, Outcome, Reading, Size, register
from .judge import Check, judged, paired, within
from .seed004 import (
    _CLASSES,
    _GANGS,
    _MIGRATIONS,
    _NAMES,
    _cmp,
    _count,
    _degradation,
    _fig3,
    _fmt,
    _month_degradation,
    _ratios,
    _says,
    _sw,
    _switch_label,
)

__all__: list[str] = []

#: Figs. 4-7's cycles as the library runs them (module docstring).
_CYCLES = (300.0, 1000.0, 3000.0)


# -- Fig. 3: every class's R/S ---------------------------------------------------------------------------------
def _fig3_rs(size: Size) -> Outcome:
    rows = _fig3()
    checks = [within(f"class {r.cls}: R/S {p} (+-10%)", [r.normalized], p, 0.10, relative=True)
              for r, p in zip(rows, FIG3_PRINTED_RS, strict=True)]
    rel = [r.normalized / p - 1.0 for r, p in zip(rows, FIG3_PRINTED_RS, strict=True)]
    text = (f"the replayed log's R/S per class 0-9: {_fmt([r.normalized for r in rows])} (printed "
            f"{', '.join(f'{p:g}' for p in FIG3_PRINTED_RS)}; {', '.join(f'{x:+.0%}' for x in rel)}); "
            f"mean service {_fmt([r.service for r in rows], ',.0f')} s (printed "
            f"{', '.join(f'{r.service:,.0f}' for r in FIG3)}); " + _says(checks, "within 10%"))
    return judged(checks, text, {"rs": [r.normalized for r in rows], "relative_difference": rel})


register(Claim(
    id="004-fig3-rs-table", paper="004", where="§5, Fig. 3",
    statement="Fig. 3's last column, the normalised response time R/S of each class under EASY-LL: 1.5, 1.7, 2.1, "
              "4.9, 3.8, 8.7, 11.0, 11.6, 488.4, 26.0 (read: the log's recorded schedule replayed gives each within "
              "10%)",
    paper_value="1.5, 1.7, 2.1, 4.9, 3.8, 8.7, 11.0, 11.6, 488.4, 26.0",
    quantity="R/S (mean response over mean run time) per class of the replayed log against Fig. 3's printed column, "
             "each within 10% (deterministic)",
    run=_fig3_rs, expected=False,
    diagnosis="Classes 0-6 and 9 are within 8% (+7%, +3%, +8%, -0%, -2%, -2%, -2%, -5%); class 7 is +12% (12.95 "
              "against 11.6) and class 8 -45% (267.9 against 488.4). Class 8's 45 jobs are the paper's (mean wait "
              "146,141 s to the second) but run 547.6 s on average where Fig. 3 says 300 s; with 300 s its R/S would "
              "be 489. Class 7 has one job more than the paper (75 against 74): one job arriving on 30 August and "
              "waiting 2,827,769 s (32.7 days) lifts its mean wait to 169,580 s (paper 128,895 s); without it W is "
              "133,659 s and S 14,382 s (paper 12,168 s), R/S 10.3 (-11%). Genuine: the log's run times are not the "
              "paper's service times, and the paper's filter is unknown (004-fig3-job-counts).",
))


# -- Figs. 4-7: trends in the cycle length T -------------------------------------------------------------------
def _root_trend(size: Size) -> Outcome:
    checks, parts = [], []
    for c in (3, 4):
        long, short = _sw(size, "migrate-root", 3000.0, 1.0), _sw(size, "migrate-root", 300.0, 1.0)
        checks.append(_cmp(f"class {c}: root shorter at T = 3000 s than at 300 s", long, short, c))
        rec = _sw(size, "Recorded").rows[c].normalized
        parts.append(f"class {c}: root/EASY-LL R/S " + ", ".join(
            f"{_sw(size, 'migrate-root', t, 1.0).rows[c].normalized / rec:.2f}" for t in _CYCLES))
    return judged(checks, _switch_label(size) + "at T = 300, 1000, 3000 s, 1 s: " + "; ".join(parts) + "; "
                  + _says(checks))


register(Claim(
    id="004-figs4-7-root-classes-3-4-trend", paper="004", where="§6, Fig. 4", expected=NOT_SIGNIFICANT,
    expected_full=NOT_SIGNIFICANT,
    statement="for sufficiently large timeplexing cycles, this policy [migration from the root] performs as well as "
              "EASY-LL for classes 3 and 4 (read as a trend in T: the root's R/S in classes 3 and 4 is shorter at "
              "T = 3000 s than at 300 s, switch 1 s)",
    quantity="the root's class-3 and class-4 mean response at T = 3000 s against 300 s, paired, jackknifed over the "
             "4-day windows",
    run=_root_trend,
    diagnosis="Full month, 1 s: root/EASY-LL ratios at T = 300, 1000, 3000 s: class 3 1.14, 1.11, 1.13; class 4 2.80, "
              "2.43, 2.76: no trend; the mean response differences at 3000 s against 300 s are -123 s [-746, 499] "
              "(class 3) and -1,562 s [-6,637, 3,514] (class 4).",
))


def _degradation_trend(size: Size) -> Outcome:
    checks, parts = [], []
    for v in _GANGS:
        d = {t: _degradation(size, v, t) for t in _CYCLES}
        checks.append(paired(f"{_NAMES[v]}: degrades more at 300 s than at 1000 s", d[300.0], d[1000.0], GREATER,
                             unit="windows"))
        checks.append(paired(f"{_NAMES[v]}: degrades more at 1000 s than at 3000 s", d[1000.0], d[3000.0], GREATER,
                             unit="windows"))
        parts.append(f"{_NAMES[v]} " + ", ".join(f"{_month_degradation(size, v, t):+.1%}" for t in _CYCLES))
    return judged(checks, _switch_label(size) + "mean response at 16 s over 1 s at T = 300, 1000, 3000 s: "
                  + "; ".join(parts) + "; " + _says(checks))


register(Claim(
    id="004-figs4-7-switch-degradation-falls-with-T", paper="004", where="§6, Figs. 4-7", expected=NOT_SIGNIFICANT,
    expected_full=True,
    statement="Performance degradation is more evident for short timeplexing cycles, since in this case "
              "context-switch costs become a significant fraction of each time-slice (read over Figs. 4-7's cycles: "
              "the mean response at 16 s over that at 1 s falls from T = 300 to 1000 to 3000 s, for push-down and "
              "both migrations)",
    quantity="mean response at 16 s over 1 s, minus 1, consecutive cycles paired, jackknifed over the 4-day windows",
    run=_degradation_trend,
))


# -- Figs. 8-9: the migrations against EASY-LL at a low switch cost --------------------------------------------
def _low_cost(size: Size) -> Outcome:
    rec = _sw(size, "Recorded")

    def side(expect: str, word: str) -> list[Check]:
        out = []
        for v in _MIGRATIONS:
            for t in (1000.0, 3000.0):
                run = _sw(size, v, t, 1.0)
                per = [_cmp(f"class {c}", run, rec, c, expect) for c in range(_CLASSES)]
                out.append(_count(f"{_NAMES[v]}, T = {t:g} s: {word} EASY-LL in >= 2 classes", per, 2))
        return out

    under, out = side(GREATER, "longer than"), side(LESS, "shorter than")
    text = _switch_label(size) + "R/S over EASY-LL's at 1 s: " + "; ".join(
        f"{_NAMES[v]} T = {t:g} s {_fmt(_ratios(_sw(size, v, t, 1.0), rec))}"
        for v in _MIGRATIONS for t in (1000.0, 3000.0))
    return judged(under, text + "; " + _says(under), readings={"outperform": judged(out, _says(out))})


register(Claim(
    id="004-figs8-9-migrations-underperform-at-low-cost", paper="004", where="§6, Figs. 8-9", expected=NOT_SIGNIFICANT,
    expected_full=NOT_SIGNIFICANT,
    statement="For low switch costs, the two job migration schemes underperform EASY-LL in several classes",
    quantity="classes in which each migration has a longer (reading 'outperform': shorter) R/S than EASY-LL at 1 s, "
             "T = 1000 and 3000 s, per-class mean response, paired, jackknifed over the 4-day windows",
    readings=(Reading("underperform", NOT_SIGNIFICANT,
                      "as printed: a longer R/S than EASY-LL, significantly, in at least 2 classes, for each migration "
                      "at T = 1000 and 3000 s"),
              Reading("outperform", True,
                      "a slip for 'outperform' (the next sentence: 'the number of classes in which they outperform "
                      "EASY-LL decreases'): a shorter R/S in at least 2 classes", expected_quick=NOT_SIGNIFICANT)),
    run=_low_cost,
    diagnosis="Full month, 1 s: the root is significantly worse than EASY-LL in classes 0-2 at both cycles (class 4, "
              "ratio 2.4-2.8, not significantly); the leaves only in class 7 (class 9, ratio 2.6, is not significant "
              "over its 4 windows): 'several' holds for the root, not significantly for the leaves. Read as "
              "'outperform', both hold at both cycles.",
))
