"""Shared by the paper-reproduction scripts: run a grid of (configuration, load) points in worker
processes, print a table, and draw turnaround-vs-load curves when matplotlib is installed."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from scheduling import simulate
from scheduling.metrics import confidence_interval


def _point(args: tuple) -> tuple[str, float, list[dict], dict | None]:
    label, make_allocator, policy, make_workload, load, jobs, warmup, seeds, want_fairness = args
    summaries, fair = [], None
    for seed in seeds:
        r = simulate(make_allocator(), policy, make_workload(load), jobs=jobs, warmup=warmup, seed=seed)
        summaries.append(r.summary())
        if want_fairness and fair is None:
            f = r.fairness()
            fair = dict(zip(f["size"].tolist(), f["mean_turnaround"].tolist(), strict=True))
    return label, load, summaries, fair


def sweep(configs: list[tuple[str, Callable[[], Any], str, Callable[[float], Any]]], loads: list[float], *,
          jobs: int, warmup: int, seeds: list[int], fairness_at: float | None = None,
          workers: int | None = None) -> dict:
    """Run every configuration ``(label, allocator factory, policy name, workload factory)`` at
    every load with every seed. Returns ``{(label, load): (summaries, fairness)}``."""
    tasks = [(label, alloc, pol, work, load, jobs, warmup, seeds, load == fairness_at)
             for (label, alloc, pol, work) in configs for load in loads]
    out = {}
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        for label, load, summaries, fair in pool.map(_point, tasks):
            out[(label, load)] = (summaries, fair)
    return out


def print_table(title: str, results: dict, labels: list[str], loads: list[float],
                metric: str = "mean_turnaround") -> None:
    print(f"\n{title}: {metric} (mean ± 95% half-width over seeds)")
    print(f"{'load':>6} " + " ".join(f"{lab:>18}" for lab in labels))
    for load in loads:
        cells = []
        for lab in labels:
            vals = [s[metric] for s in results[(lab, load)][0]]
            cells.append(f"{str(confidence_interval(vals)):>18}")
        print(f"{load:6.2f} " + " ".join(cells))


def plot_curves(path: str, title: str, results: dict, labels: list[str], loads: list[float],
                metric: str = "mean_turnaround", log: bool = False) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(matplotlib not installed: {path} not written)")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for lab in labels:
        ests = [confidence_interval([s[metric] for s in results[(lab, ld)][0]]) for ld in loads]
        ax.errorbar(loads, [e.mean for e in ests], yerr=[0 if e.n < 2 else e.half_width for e in ests],
                    marker="o", capsize=3, label=lab)
    ax.set_xlabel("system load")
    ax.set_ylabel(metric.replace("_", " "))
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")
