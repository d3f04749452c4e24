"""Ismail's dynamic space sharing (seed 000, chapter 4) through ``topoalloc run``: Figs. 4.2-4.15, Table 4.3.

    python examples/ismail_dynamic.py                         # Figs. 4.2-4.7, 4.10, 4.11 and Table 4.3
    python examples/ismail_dynamic.py --all                   # also Figs. 4.8, 4.9, 4.12-4.15
    python examples/ismail_dynamic.py --jobs 1500 --warmup 150 --replications 2   # a quick look

A 64-processor flat machine (FlatPool); the workloads of §4.4.1 (``IsmailDynamic`` and ``Applications``
workload models); 5500 jobs per run with the first 500 discarded; replications until the 95%
half-width of the mean response time is within 5% (at most 10), as the thesis; every policy sees the
same jobs (common random numbers). The figures are TOML files run by the experiments machinery
(tables printed, results stored in ``results/*.sqlite`` -- re-running resumes -- figures drawn when
matplotlib is installed):

* ``seed000_fig4_4_dynamic_misp.toml`` -- MISP speedup, C = 0 and 1: Figs. 4.4-4.7, fairness 4.10, 4.11;
* ``seed000_fig4_2_dynamic_linear.toml`` -- linear speedup: Figs. 4.2, 4.3 and Table 4.3's changes;
* with ``--all``: ``seed000_fig4_8_applications.toml`` (Figs. 4.8, 4.9, 4.14) and
  ``seed000_fig4_12_dprop_variants.toml`` (Figs. 4.12, 4.13, 4.15).

Arguments other than ``--all`` go to ``topoalloc run`` (``--jobs``, ``--replications``, ``--workers``,
``--store``, ``--no-plots``, ...).

**Extra output** (below the machinery's tables): Table 4.3 as the thesis prints it -- allocation
changes relative to DFCFS at L = 0.4, 0.6, 0.8 -- next to the thesis' values, counted two ways
(processors moved, which reproduces the table, and resizes, which does not; see
``docs/reproductions/seed000.md``), and the thesis' comparisons as ratios of stored mean response
times (RT(DPROP)/RT(DEQP) = 1.06-1.08 at L = 1 under MISP; DSMJF below DEQP under linear speedup).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scheduling.cli import main, stored_run

HERE = Path(__file__).resolve().parent
HEADLINE = ["seed000_fig4_4_dynamic_misp.toml", "seed000_fig4_2_dynamic_linear.toml"]
MORE = ["seed000_fig4_8_applications.toml", "seed000_fig4_12_dprop_variants.toml"]
#: Table 4.3 of the thesis: allocation changes relative to DFCFS at L = 0.4, 0.6, 0.8.
PAPER_TABLE_4_3 = {"DFCFS": (1.00, 1.00, 1.00), "DSMJF": (1.00, 1.03, 1.02), "DPROP": (1.50, 1.51, 1.28),
                   "DEQP": (1.64, 1.68, 1.44)}


def by_point(summaries: list, experiment: str, metric: str) -> dict[tuple[str, float], float]:
    """``{(policy, load): mean of metric}`` for ``experiment`` (the part after the study name)."""
    return {(s.policy, s.load): s[metric].mean for s in summaries if s.experiment.split("/")[-1] == experiment}


def ratios(summaries: list, experiment: str, num: str, den: str) -> str:
    rt = by_point(summaries, experiment, "mean_turnaround")
    loads = sorted({load for _, load in rt})
    cells = [f"L={x:g}: {rt[(num, x)] / rt[(den, x)]:.2f}" for x in loads if (num, x) in rt and (den, x) in rt]
    label = f"RT({num.split('(')[0]}) / RT({den.split('(')[0]})"
    return f"  {experiment:16} {label:22} " + "  ".join(cells)


def table_4_3(run_args: list[str]) -> None:
    """Table 4.3 two ways: processors moved (the sum of |change| over a job's resizes, the reading
    that reproduces the thesis) and resizes (every change of a job's processor count counted once)."""
    stored = stored_run(HERE / HEADLINE[1], run_args).summaries
    loads = (0.4, 0.6, 0.8)
    print("\n# Extra: Table 4.3 -- allocation changes relative to DFCFS (linear speedup, uniform sizes and "
          "times, C = 0)")
    print("# The thesis does not define a change; counted as processors moved it reproduces, counted as resizes "
          "it does not.")
    for metric, label in (("mean_moved", "processors moved"), ("mean_changes", "resizes")):
        changes = by_point(stored, "uniform C=0", metric)
        print(f"\n{label}:")
        print(f"{'policy':8}" + "".join(f"{'L=' + format(x, 'g'):>8}" for x in loads) + "   thesis")
        for pol, paper in PAPER_TABLE_4_3.items():
            cells = []
            for x in loads:
                base, val = changes.get(("DFCFS", x)), changes.get((pol, x))
                cells.append(f"{val / base:8.2f}" if base and val is not None else f"{'n/a':>8}")
            print(f"{pol:8}" + "".join(cells) + "   " + " ".join(f"{v:.2f}" for v in paper))
        base = [changes.get(("DFCFS", x)) for x in loads]
        print(f"{label} per job under DFCFS: " + ", ".join("n/a" if b is None else f"{b:.3f}" for b in base))


def comparisons(run_args: list[str]) -> None:
    print("\n# Extra: the thesis' comparisons, from the stored mean response times")
    misp = stored_run(HERE / HEADLINE[0], run_args).summaries
    print("Figs. 4.4-4.7 -- MISP: DEQP best, then DPROP (thesis: RT(DPROP)/RT(DEQP) = 1.06-1.08 at L = 1), DSMJF, "
          "DFCFS; DEQP beats MFFF:")
    for exp in ("uniform C=0", "uniform C=1", "exponential C=0", "exponential C=1"):
        suffix = "(overhead=1.0)" if exp.endswith("C=1") else ""
        for other in ("DPROP", "DSMJF", "DFCFS"):
            print(ratios(misp, exp, other + suffix, "DEQP" + suffix))
        print(ratios(misp, exp, "MFFF", "DEQP" + suffix))
    linear = stored_run(HERE / HEADLINE[1], run_args).summaries
    print("Figs. 4.2-4.3 -- linear speedup: DSMJF beats DEQP (ratios < 1):")
    print(ratios(linear, "uniform C=0", "DSMJF", "DEQP"))
    print(ratios(linear, "exponential C=1", "DSMJF(overhead=1.0)", "DEQP(overhead=1.0)"))


def run(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    own, run_args = ap.parse_known_args(argv)
    if own.help:
        print(__doc__)
        return 0
    for name in HEADLINE + (MORE if own.all else []):
        code = main(["run", str(HERE / name), *run_args])
        if code:
            return code
    table_4_3(run_args)
    comparisons(run_args)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
