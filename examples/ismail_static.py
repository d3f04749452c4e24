"""Ismail's static space sharing (seed 000, chapters 2-3) through ``topoalloc run``.

I. M. Ismail, *Space Sharing Job Scheduling Policies for Parallel Computers*, PhD thesis, Iowa State
1995: P = 64, the workloads of §2.3.1 / §3.3.1, 8500 jobs per run with the first 500 discarded,
replications until the 95% half-width of the mean response time is within 5% (at most 10).

    python examples/ismail_static.py                        # Figs. 2.9, 3.3, 3.6 and their siblings
    python examples/ismail_static.py --all                  # also Figs. 2.11-2.13, 2.22-2.24, 3.15-3.20
    python examples/ismail_static.py --jobs 2000 --warmup 200 --replications 2   # a quick look
    python examples/ismail_static.py --extra                # also folding fragmentation / system efficiency

The figures are TOML files run by the experiments machinery (tables printed, results stored in
``results/*.sqlite`` -- re-running resumes -- and figures drawn when matplotlib is installed):

* ``seed000_fig2_9_static_nofold.toml`` -- no folding: Figs. 2.1, 2.2, 2.9, 2.10, 2.16, 2.17, 2.21;
* ``seed000_fig3_3_adaptive.toml`` -- FF, FF+FIFO, FFF: Figs. 3.1-3.5;
* ``seed000_fig3_6_limited.toml`` -- limited folding: Figs. 3.6-3.14, 3.17, 3.18 and f1max vs f2max;
* with ``--all``: ``seed000_fig2_12_unlimited.toml`` (Figs. 2.3-2.8, 2.11-2.13, 2.18-2.20),
  ``seed000_known_times.toml`` (Figs. 2.22-2.24, 3.19, 3.20) and ``seed000_fig3_15_ffmax.toml``
  (Figs. 3.15, 3.16, fixed FF_max).

Arguments other than ``--all``/``--extra`` go to ``topoalloc run`` (``--jobs``, ``--replications``,
``--workers``, ``--store``, ``--no-plots``, ...).

**Extra output** (clearly separated below the machinery's tables), for what is not a load sweep:

* the thesis' comparisons as ratios of the stored mean response times (FF+FIFO / FFF: "20-40%
  longer" in Fig. 3.3; MFFF / FFF <= 1 under MISP), and with ``--all`` Figs. 3.15 / 3.16 against
  FF_max rather than load (a table, and ``ismail_fig3_15.png`` when matplotlib is installed);
* with ``--extra``: folding fragmentation and the system efficiency xi_s (§1.1, §2.3), which the thesis
  defines but does not plot, from direct simulations (:func:`scheduling.workloads.ismail.static_metrics`
  needs each run's jobs, which the machinery does not keep).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scheduling.cli import build_parser, main, stored_run

HERE = Path(__file__).resolve().parent
HEADLINE = ["seed000_fig2_9_static_nofold.toml", "seed000_fig3_3_adaptive.toml", "seed000_fig3_6_limited.toml"]
MORE = ["seed000_fig2_12_unlimited.toml", "seed000_known_times.toml", "seed000_fig3_15_ffmax.toml"]


# -- reading back what the machinery stored ---------------------------------------------------------

def ratios(summaries: list, experiment: str, num: str, den: str) -> str:
    """``RT(num) / RT(den)`` per load in ``experiment`` (the part after the study name)."""
    rt = {(s.policy, s.load): s["mean_turnaround"].mean for s in summaries if s.experiment.endswith("/" + experiment)}
    loads = sorted({load for _, load in rt})
    cells = [f"L={x:g}: {rt[(num, x)] / rt[(den, x)]:.2f}" for x in loads if (num, x) in rt and (den, x) in rt]
    return f"  {experiment:36} RT({num}) / RT({den})   " + "  ".join(cells)


def comparisons(run_args: list[str]) -> None:
    print("\n# Extra: the thesis' comparisons, from the stored mean response times")
    nofold, _ = _stored(HEADLINE[0], run_args)
    print("Figs. 2.9/2.10 -- FF and FFDS below FCFS and FFIS at medium and high load (ratios < 1):")
    for exp in ("uniform", "exponential"):
        print(ratios(nofold, exp, "FF", "FCFS"))
        print(ratios(nofold, exp, "FFDS", "FFIS"))
    print("Fig. 2.21 -- FFITD between FFIS and FF (thesis: worse than FF and FFDS; ratios > 1 only from L = 0.7, "
          "see docs/reproductions/seed000.md):")
    print(ratios(nofold, "uniform", "FFITD", "FF"))
    print(ratios(nofold, "uniform", "FFITD", "FFIS"))
    adaptive, _ = _stored(HEADLINE[1], run_args)
    print("Figs. 3.3-3.5 -- FFF below FF and FF+FIFO (thesis, Fig. 3.3: FF+FIFO 20-40% longer at medium-high load):")
    for exp in ("misp-uniform", "misp-exponential", "linear-uniform"):
        print(ratios(adaptive, exp, "FF+FIFO", "FFF"))
        print(ratios(adaptive, exp, "FF", "FFF"))
    limited, _ = _stored(HEADLINE[2], run_args)
    print("Figs. 3.6-3.9 -- MFFF no worse than FFF under MISP (ratios <= 1); Fig. 3.10: FFF can win under linear:")
    for exp in ("uniform-sizes-uniform-times", "exponential-sizes-uniform-times", "uniform-sizes-exponential-times",
                "exponential-sizes-exponential-times", "linear"):
        print(ratios(limited, exp, "MFFF", "FFF"))
    print("§3.3.1 -- f2max against f1max (thesis: no significant difference; FFF 5-9% slower at L >= 0.8, "
          "see docs/reproductions/seed000.md):")
    print(ratios(limited, "f2max", "FFF-f2max(r=0.636)", "FFF"))
    print(ratios(limited, "f2max", "MFFF-f2max(r=0.636)", "MFFF"))


def ffmax_figure(run_args: list[str], draw: bool) -> None:
    """Figs. 3.15 / 3.16 against FF_max, from the stored ``seed000_fig3_15_ffmax.toml`` results."""
    summaries, outdir = _stored("seed000_fig3_15_ffmax.toml", run_args)
    print("\n# Extra: Figs. 3.15 / 3.16 -- mean response time against the fixed FF_max (FFF = adaptive f1max)")
    curves: dict[tuple[str, float], list[tuple[float, float]]] = {}
    adaptive = {}
    for s in summaries:
        exp = s.experiment.split("/")[-1]
        if s.policy == "FFF":
            adaptive[(exp, s.load)] = s["mean_turnaround"].mean
        else:
            curves.setdefault((exp, s.load), []).append((float(s.policy.rsplit("-", 1)[1]), s["mean_turnaround"].mean))
    xs = sorted({x for pts in curves.values() for x, _ in pts})
    print(f"{'experiment':18} {'L':>4} " + "".join(f"{x:>9g}" for x in xs) + f"{'adaptive':>10}")
    for (exp, load), pts in curves.items():
        ys = dict(pts)
        print(f"{exp:18} {load:4g} " + "".join(f"{ys.get(x, float('nan')):9.4g}" for x in xs)
              + f"{adaptive.get((exp, load), float('nan')):10.4g}")
    if not draw:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), squeeze=False)
    for ax, exp in zip(axes[0], ("uniform-times", "exponential-times"), strict=True):
        for (e, load), pts in curves.items():
            if e == exp:
                pts = sorted(pts)
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=f"L = {load:g}")
        ax.set(xscale="log", yscale="log", xlabel="fixed FF_max", ylabel="mean response time",
               title=f"Fig. {'3.15' if exp == 'uniform-times' else '3.16'}: {exp}")
        ax.legend()
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / "ismail_fig3_15.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"figure: {path}")


def static_metrics_table(seeds: int, jobs: int, warmup: int) -> None:
    """Folding fragmentation and system efficiency (§1.1, §2.3) from direct simulations."""
    from scheduling import simulate
    from scheduling.metrics.summary import confidence_interval
    from scheduling.workloads.ismail import ismail_workload, static_metrics
    from topoalloc import FlatPool
    from topologies import Flat

    print(f"\n# Extra: folding fragmentation and system efficiency xi_s (§1.1, §2.3), MISP, uniform sizes and run "
          f"times, {seeds} seeds x {jobs} jobs ({warmup} discarded), direct simulations")
    cols = ("folding_fragmentation", "system_efficiency", "effectiveness", "program_efficiency")
    print(f"{'policy':>8} {'L':>4} " + " ".join(f"{c:>22}" for c in cols))
    for policy in ("FF", "FF+FIFO", "FFF", "MFFF"):
        for load in (0.4, 0.8, 1.2):
            w = ismail_workload(P=64, load=load)
            runs = []
            for seed in range(seeds):
                r = simulate(FlatPool(Flat(64)), policy, w, jobs=jobs, warmup=warmup, seed=seed)
                runs.append(static_metrics(r, w.take(int(r.id.max()) + 1, seed)))
            cells = []
            for c in cols:
                est = confidence_interval([m[c] for m in runs])
                cells.append(f"{est.mean:.3f} ± {est.half_width:.3f}" if seeds > 1 else f"{est.mean:.3f}")
            print(f"{policy:>8} {load:4g} " + " ".join(f"{c:>22}" for c in cells))


def run(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], add_help=False)
    ap.add_argument("--all", action="store_true", help="also the other chapter 2-3 figures")
    ap.add_argument("--extra", action="store_true", help="also folding fragmentation / system efficiency")
    ap.add_argument("-h", "--help", action="store_true")
    own, run_args = ap.parse_known_args(argv)
    if own.help:
        print(__doc__)
        return 0
    files = HEADLINE + (MORE if own.all else [])
    for name in files:
        code = main(["run", str(HERE / name), *run_args])
        if code:
            return code
    args = build_parser().parse_args(["run", "x", *run_args])
    comparisons(run_args)
    if own.all:
        ffmax_figure(run_args, draw=not args.no_plots)
    if own.extra:
        static_metrics_table(args.replications or 3, args.jobs or 8500, 500 if args.warmup is None else args.warmup)
    return 0


def _stored(toml: str, run_args: list[str]) -> tuple[list, Path]:
    """Per-point summaries of ``topoalloc run <toml> <run_args>`` and its figure directory."""
    run = stored_run(HERE / toml, run_args)
    return run.summaries, run.plots_dir


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
