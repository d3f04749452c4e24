"""Figures from experiment results and simulations (matplotlib, an optional extra:
``pip install 'topoalloc[plot]'``).

Every function returns a :class:`matplotlib.figure.Figure` built without ``pyplot`` (no global
state, no display needed: the Agg canvas renders it), so figures can be saved from scripts, tests
and worker processes alike; :func:`save` writes one to PNG/SVG/PDF.

* :func:`load_figure` -- a metric (mean turnaround by default) vs load, one curve per configuration
  with 95% confidence bars: the papers' standard figure (seed 002 Figs. 1-4).
* :func:`utilization_figure` -- utilisation and scheduling effectiveness S_e vs load.
* :func:`fairness_figure` -- mean turnaround by requested size at one load (seed 002 Fig. 5,
  Ismail's fairness curves).
* :func:`occupancy_figure` -- occupancy snapshots as small multiples: a mesh as a grid coloured by
  job, a cube or a DHC tree as a strip of its nodes in id order.
* :func:`schedule_figure` -- a schedule like Downey's Fig. 5 (seed 001 §4): time runs down the
  page, a job's width is its processor count, its queue time a black tail above it; jobs are laid
  out for clarity (first fit in x), not by their allocation.
* :func:`study_figures` -- the figures a study asks for (its ``[[plots]]``), from a result store.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "load_figure",
    "utilization_figure",
    "fairness_figure",
    "occupancy_figure",
    "occupancy_axes",
    "schedule_figure",
    "study_figures",
    "save",
    "MatplotlibMissingError",
]


class MatplotlibMissingError(ImportError):
    """matplotlib is not installed."""


def _figure(nrows: int = 1, ncols: int = 1, *, width: float = 5.0, height: float = 3.8, sharey: bool = False):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MatplotlibMissingError("plots need matplotlib: pip install 'topoalloc[plot]'") from None
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    return fig, axes


def save(fig: Any, path: str | Path, *, dpi: int = 110) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix), creating the directory."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    return path


# -- curves -----------------------------------------------------------------------------------------
_PANEL_FIELDS = ("experiment", "allocator", "policy")
#: Markers cycled with the colours: a series is told apart by colour *and* marker.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _palette() -> list[Any]:
    """20 distinct colours: matplotlib's tab10, then the ten light shades of tab20."""
    from matplotlib import colormaps

    return [colormaps["tab10"](i) for i in range(10)] + [colormaps["tab20"](2 * i + 1) for i in range(10)]


class _Styles:
    """``(colour, marker)`` per series label, in first-seen order and the same in every panel of a
    figure: colours do not repeat within 20 series and no two series share colour and marker
    within 140 (the 20 colours and 7 markers cycle together)."""

    def __init__(self) -> None:
        self.colours = _palette()
        self.map: dict[str, tuple[Any, str]] = {}

    def __call__(self, label: str) -> tuple[Any, str]:
        if label not in self.map:
            i = len(self.map)
            self.map[label] = (self.colours[i % len(self.colours)], MARKERS[i % len(MARKERS)])
        return self.map[label]


def _panels(items: Sequence[Any], panels: str, get: Callable[[Any], Any]) -> list[tuple[str, list[Any]]]:
    """Split ``items`` into panels by field ``panels`` (``"none"``: one panel), in first-seen order."""
    if panels == "none":
        return [("", list(items))]
    if panels not in _PANEL_FIELDS:
        raise ValueError(f"panels must be one of {', '.join((*_PANEL_FIELDS, 'none'))}, got {panels!r}")
    out: dict[str, list[Any]] = {}
    for it in items:
        out.setdefault(str(getattr(get(it), panels)), []).append(it)
    return list(out.items())


_WITH_PARAMS = re.compile(r"^(?P<name>[^()]+)\((?P<params>.*)\)$")


def _params(label: str) -> tuple[str, list[str]]:
    m = _WITH_PARAMS.match(label)
    return (m["name"], [p.strip() for p in m["params"].split(", ")]) if m else (label, [])


def _curves(items: Sequence[Any], get: Callable[[Any], Any]) -> tuple[list[tuple[str, list[Any]]], str]:
    """Group ``items`` into curves by configuration. Labels name only what varies in the panel;
    parameters every curve's policy shares (``switch_cost=16``) move to the returned panel note."""
    keys = [tuple(getattr(get(it), f) for f in _PANEL_FIELDS) for it in items]
    varying = [i for i in range(len(_PANEL_FIELDS)) if len({k[i] for k in keys}) > 1] or [1, 2]
    out: dict[tuple, list[Any]] = {}
    for k, it in zip(keys, items, strict=True):
        out.setdefault(k, []).append(it)
    common: list[str] = []
    policies = {k[2] for k in out}
    if len(policies) > 1 and 2 in varying:
        split = [_params(p)[1] for p in policies]
        if all(split):
            common = [p for p in split[0] if all(p in other for other in split[1:])]
    labels = []
    for k, its in out.items():
        parts = []
        for i in varying:
            text = str(k[i]).split("/")[-1] if i == 0 else str(k[i])
            if i == 2 and common:
                name, params = _params(text)
                rest = [p for p in params if p not in common]
                text = f"{name}({', '.join(rest)})" if rest else name
            parts.append(text)
        labels.append((" ".join(parts), its))
    return labels, ", ".join(common)


def _ylabel(metric: str) -> str:
    from .experiments.report import METRIC_LABELS

    return METRIC_LABELS.get(metric, metric)


def _panel_title(key: str, panels: str, note: str = "") -> str:
    head = key.split("/")[-1] if panels == "experiment" and "/" in key else key
    return f"{head} ({note})" if note and head else (note or head)


def _dodge(its: Sequence[Any], ncurves: int) -> float:
    """Horizontal offset between curves of one panel, so bars at one load do not hide each other:
    a fifth of the smallest gap between loads, shared among the curves."""
    xs = sorted({s.load for s in its if s.load is not None})
    if ncurves < 2 or not xs:
        return 0.0
    gap = min((b - a for a, b in zip(xs, xs[1:], strict=False)), default=max(xs[0], 0.1))
    return 0.2 * gap / (ncurves - 1)


def _bars(e: Any, logy: bool) -> tuple[float, float]:
    """Lower and upper bar lengths for an estimate (NaN: no bar): the interval of the log on a log
    axis, the metric-respecting interval otherwise; none with too few replications."""
    if not e.drawable:
        return math.nan, math.nan
    lo, hi = e.log_interval() if logy else (e.low, e.high)
    return e.mean - lo, hi - e.mean


class _Legend:
    """Series handles in first-seen order plus notes (saturation marks, missing bars), drawn as
    one legend for the whole figure, outside the axes below them."""

    def __init__(self) -> None:
        self.handles: dict[str, Any] = {}
        self.notes: dict[str, Any] = {}

    def series(self, label: str, handle: Any) -> None:
        self.handles.setdefault(label, handle)

    def note(self, text: str, **style: Any) -> None:
        from matplotlib.lines import Line2D

        self.notes.setdefault(text, Line2D([], [], **{"linestyle": "none", **style}))

    def draw(self, fig: Any) -> None:
        items = list(self.handles.items()) + list(self.notes.items())
        if items:
            ncols = max(1, min(len(items), int(fig.get_figwidth() / 2.6)))
            fig.legend([h for _, h in items], [t for t, _ in items], loc="outside lower center", fontsize="small",
                       ncols=ncols)


def _estimate_curves(ax: Any, its: Sequence[Any], metric: str, styles: _Styles, legend: _Legend, *, logy: bool,
                     cut_saturated: bool) -> str:
    """Draw ``metric`` vs load for the points ``its`` of one panel; returns the panel note."""
    from matplotlib.transforms import blended_transform_factory

    from .experiments.report import GROW_WHEN_SATURATED

    curves, note = _curves(its, lambda s: s)
    step = _dodge(its, len(curves))
    top = blended_transform_factory(ax.transData, ax.transAxes)
    for j, (label, pts) in enumerate(curves):
        colour, marker = styles(label)
        dx = (j - (len(curves) - 1) / 2) * step
        pts = sorted(pts, key=lambda s: s.load)
        cut = cut_saturated and metric in GROW_WHEN_SATURATED
        first_sat = next((s.load for s in pts if s.saturated), math.inf) if cut else math.inf
        shown = [s for s in pts if s.load < first_sat and not math.isnan(s.estimates[metric].mean)]
        x = [s.load + dx for s in shown]
        y = [s.estimates[metric].mean for s in shown]
        err = np.array([_bars(s.estimates[metric], logy) for s in shown]).T.reshape(2, len(shown))
        if any(not s.estimates[metric].drawable for s in shown):
            legend.note(f"no bar: fewer than {_min_n()} replications")
        cont = ax.errorbar(x, y, yerr=err, marker=marker, color=colour, markersize=4, capsize=3, label=label)
        legend.series(label, cont)
        gone = [s.load + dx for s in pts if s.load >= first_sat]
        if gone:  # cut off as the papers draw it: a hollow mark at the top edge at each saturated load
            ax.plot(gone, [1.0] * len(gone), transform=top, linestyle="none", marker=marker, markersize=5,
                    markerfacecolor="none", color=colour, clip_on=False)
            legend.note("saturated (off the scale)", marker="o", markerfacecolor="none", color="grey")
        elif not cut:
            sat = [s for s in shown if s.saturated]
            if sat:
                ax.plot([s.load + dx for s in sat], [s.estimates[metric].mean for s in sat], linestyle="none",
                        marker=marker, markersize=6, markerfacecolor="white", color=colour, zorder=3)
                legend.note("saturated run (hollow mark)", marker="o", markerfacecolor="white", color="grey")
    return note


def _min_n() -> int:
    from .metrics import MIN_INTERVAL_REPLICATIONS

    return MIN_INTERVAL_REPLICATIONS


def load_figure(summaries: Sequence[Any], metric: str = "mean_turnaround", *, panels: str = "experiment",
                logy: bool = False, title: str | None = None) -> Any:
    """``metric`` vs offered load, one curve per configuration, 95% confidence bars (one subplot
    per value of ``panels``: ``experiment``, ``allocator``, ``policy`` or ``none``).

    ``summaries`` are :class:`~scheduling.experiments.PointSummary` values
    (:func:`~scheduling.experiments.aggregate`); points without a load (traces) are left out. Each
    series has its own colour and marker in every panel, one legend outside the axes names them;
    curves at one load are offset a little so their bars stay visible. Bars are the interval that
    respects the metric (:func:`scheduling.metrics.confidence_interval`; on a log axis the interval
    of the log), none with fewer than three replications. A curve of a time metric stops before its
    first saturated load (the papers' curves leave the chart there) and a hollow mark at the top
    edge shows each saturated load."""
    items = [s for s in summaries if s.load is not None]
    groups = _panels(items, panels, lambda s: s)
    fig, axes = _figure(1, max(len(groups), 1))
    styles, legend = _Styles(), _Legend()
    for ax, (key, its) in zip(axes[0], groups, strict=False):
        note = _estimate_curves(ax, its, metric, styles, legend, logy=logy, cut_saturated=True)
        ax.set_xlabel("offered load")
        ax.set_ylabel(_ylabel(metric))
        if logy:
            _log_y(ax)
        if key or note:
            ax.set_title(_panel_title(key, panels, note))
        ax.grid(True, alpha=0.3)
    legend.draw(fig)
    fig.suptitle(title or f"{_ylabel(metric)} vs offered load")
    return fig


def utilization_figure(summaries: Sequence[Any], *, panels: str = "experiment", title: str | None = None) -> Any:
    """Utilisation (top row) and scheduling effectiveness S_e (bottom row) vs load, with 95%
    confidence bars kept inside [0, 1], one column per value of ``panels``; saturated points are
    hollow marks (a saturated run's utilisation is the configuration's capacity)."""
    items = [s for s in summaries if s.load is not None]
    groups = _panels(items, panels, lambda s: s)
    fig, axes = _figure(2, max(len(groups), 1), height=3.2)
    styles, legend = _Styles(), _Legend()
    for col, (key, its) in enumerate(groups):
        for row, metric in enumerate(("utilization", "effectiveness")):
            ax = axes[row][col]
            note = _estimate_curves(ax, its, metric, styles, legend, logy=False, cut_saturated=False)
            if metric == "utilization":
                lim = max([s.load for s in its] + [1.0])
                ax.plot([0, lim], [0, lim], color="grey", linestyle=":", linewidth=1)
                legend.note("utilisation = offered load", color="grey", linestyle=":")
                if key or note:
                    ax.set_title(_panel_title(key, panels, note))
            ax.set_xlabel("offered load")
            ax.set_ylabel(_ylabel(metric))
            ax.set_ylim(0, 1.05)
            ax.grid(True, alpha=0.3)
    legend.draw(fig)
    fig.suptitle(title or "utilisation and S_e vs offered load")
    return fig


def fairness_figure(curves: Sequence[Any], *, panels: str = "experiment", logy: bool = True,
                    title: str | None = None) -> Any:
    """Mean turnaround by requested size (log scale by default, as in seed 002 Fig. 5), one curve
    per configuration, 95% confidence bars over replications (the interval of the log on a log
    axis; none where fewer than three replications had jobs of a size). ``curves`` are
    :class:`~scheduling.experiments.FairnessCurve` values (:func:`~scheduling.experiments.fairness_curves`)."""
    groups = _panels(list(curves), panels, lambda c: c.point)
    fig, axes = _figure(1, max(len(groups), 1))
    styles, legend = _Styles(), _Legend()
    loads = set()
    for ax, (key, its) in zip(axes[0], groups, strict=False):
        binned = False
        labelled, note = _curves(its, lambda c: c.point)
        for j, (label, cs) in enumerate(labelled):
            c = cs[0]
            # a fifth of an octave shared among the curves, so bars at one size stay apart
            shift = 2.0 ** ((j - (len(labelled) - 1) / 2) * 0.2 / max(len(labelled) - 1, 1))
            colour, marker = styles(label)
            binned = binned or c.binned
            m, hw = np.asarray(c.mean, float), np.asarray(c.half_width, float)
            ok = np.isfinite(hw) & (np.asarray(c.runs) >= _min_n() if c.runs is not None else True)
            if logy:
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.where(m > 0, hw / m, np.nan)
                lo, hi = m - m * np.exp(-r), m * np.exp(r) - m
            else:
                lo, hi = np.minimum(hw, m), hw  # a time is >= 0
            err = np.where(ok, np.vstack([lo, hi]), np.nan)
            if not np.all(ok):
                legend.note(f"no bar: fewer than {_min_n()} replications")
            cont = ax.errorbar(np.asarray(c.size, float) * shift, m, yerr=err, marker=marker, color=colour,
                               markersize=4, capsize=3, label=label)
            legend.series(label, cont)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(_plain_formatter())
        if logy:
            _log_y(ax)
        ax.set_xlabel("requested processors (power-of-two bins)" if binned else "requested processors")
        ax.set_ylabel("mean turnaround")
        load = its[0].point.load if its else None
        loads.add(load)
        head = _panel_title(key, panels, note) if key or note else ""
        if load is not None:
            head = f"{head} (load {load:g})".strip()
        ax.set_title(head)
        ax.grid(True, alpha=0.3)
    legend.draw(fig)
    at = "" if loads - {None} == set() or len(loads) > 1 else f" at load {next(iter(loads)):g}"
    fig.suptitle(title or f"mean turnaround by requested size{at}")
    return fig


def _plain_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:g}")


def _log_y(ax: Any) -> None:
    """Log y axis (after plotting) with plain tick labels (``20``, not ``2 x 10^1``); minor ticks
    labelled at 2 and 5 only when the axis spans less than a decade and a half."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_plain_formatter())
    lo, hi = ax.get_ylim()
    if lo > 0 and hi / lo < 30:
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _pos: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
    else:
        ax.yaxis.set_minor_formatter(NullFormatter())


# -- pictures ---------------------------------------------------------------------------------------
def _job_colours(occ: np.ndarray) -> np.ndarray:
    """RGB per cell: white for free (0), a qualitative colour per allocation id otherwise."""
    from matplotlib import colormaps

    cmap = colormaps["tab20"]
    ids = np.asarray(occ, dtype=np.int64)
    rgb = np.asarray(cmap((ids % 20) / 20.0))[..., :3]
    rgb[ids == 0] = 1.0
    return rgb


def occupancy_axes(ax: Any, occupancy: np.ndarray, *, title: str | None = None) -> Any:
    """Draw one occupancy view on ``ax``: a 2D ``(height, width)`` array as a grid (row 0 at the
    top, as ``y`` grows down the page), a 1D array as a strip of nodes in id order."""
    occ = np.asarray(occupancy)
    if occ.ndim == 1:
        img = _job_colours(occ[np.newaxis, :])
        ax.imshow(img, aspect="auto", interpolation="nearest", extent=(-0.5, len(occ) - 0.5, 0, 1))
        ax.set_yticks([])
        ax.set_xlabel("node")
    elif occ.ndim == 2:
        ax.imshow(_job_colours(occ), interpolation="nearest")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    else:
        raise ValueError(f"occupancy must be 1D or 2D, got shape {occ.shape}")
    busy = float((occ != 0).mean()) if occ.size else 0.0
    jobs = len(np.unique(occ[occ != 0]))
    ax.set_title(f"{title + ': ' if title else ''}{jobs} jobs, {busy:.0%} busy", fontsize="small")
    return ax


def occupancy_figure(snapshots: Sequence[Any], *, ncols: int | None = None, title: str | None = None) -> Any:
    """Small multiples of occupancy snapshots: ``snapshots`` are arrays or ``(time, array)`` pairs
    (from :func:`~scheduling.experiments.record_occupancy`). Meshes get a grid of square panels,
    strips (cube, tree) one row each."""
    snaps = [s if isinstance(s, tuple) else (None, s) for s in snapshots]
    if not snaps:
        raise ValueError("no snapshots to draw")
    strip = np.asarray(snaps[0][1]).ndim == 1
    n = len(snaps)
    ncols = 1 if strip else (ncols or min(n, 4))
    nrows = math.ceil(n / ncols)
    fig, axes = _figure(nrows, ncols, width=8.0 if strip else 3.2, height=0.9 if strip else 3.2)
    flat = [ax for row in axes for ax in row]
    for ax, (t, occ) in zip(flat, snaps, strict=False):
        occupancy_axes(ax, occ, title=None if t is None else f"t = {t:.4g}")
    for ax in flat[n:]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    return fig


def _layout(arrival: np.ndarray, end: np.ndarray, width: np.ndarray) -> np.ndarray:
    """x position per job: the leftmost place where ``[x, x + w)`` does not meet any job placed
    before whose ``[arrival, end)`` overlaps (jobs in the given order). O(n^2) for n jobs."""
    xs = np.zeros(len(width))
    placed: list[tuple[float, float, float, float]] = []
    for i in range(len(width)):
        a, e, w = arrival[i], end[i], width[i]
        live = [(x0, x1) for (x0, x1, t0, t1) in placed if t0 < e and a < t1]
        for x in sorted({0.0, *(x1 for _, x1 in live)}):
            if all(x + w <= x0 or x >= x1 for x0, x1 in live):
                xs[i] = x
                break
        placed.append((xs[i], xs[i] + w, a, e))
    return xs


def schedule_figure(result: Any, *, max_jobs: int = 200, layout: str = "auto", title: str | None = None) -> Any:
    """A schedule picture like Downey's Fig. 5 (seed 001 §4): time down the page, each job a box as
    wide as its processors from start to end, its queue time a black tail from arrival to start.
    ``result`` is a :class:`~scheduling.SimulationResult` (or its ``table``); the first
    ``max_jobs`` jobs are drawn. Jobs are laid out for clarity, not by their allocation, so the
    width can exceed the machine (dotted line). ``layout``: ``"downey"`` reserves room for the
    tails as in the paper; ``"compact"`` places only the boxes and draws tails behind them (readable
    when queues are long); ``"auto"`` uses ``downey`` unless it is more than twice the machine wide.
    """
    from matplotlib import colormaps
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    if layout not in ("auto", "downey", "compact"):
        raise ValueError(f"layout must be 'auto', 'downey' or 'compact', got {layout!r}")
    table = getattr(result, "table", result)[:max_jobs]
    size = getattr(result, "size", None)
    fig, axes = _figure(1, 1, width=7.0, height=6.0)
    ax = axes[0][0]
    if len(table) == 0:
        ax.set_title("no jobs")
        return fig
    order = np.argsort(table["start"], kind="stable")
    t = table[order]
    w = t["granted"].astype(float)
    xs = _layout(t["arrival"], t["end"], w) if layout != "compact" else None
    if layout == "compact" or (layout == "auto" and size and float((xs + w).max()) > 2 * size):
        xs = _layout(t["start"], t["end"], w)
    boxes = [Rectangle((x, s), wi, e - s) for x, s, e, wi in zip(xs, t["start"], t["end"], w, strict=True)]
    tails = [Rectangle((x + wi * 0.4, a), wi * 0.2, s - a)
             for x, a, s, wi in zip(xs, t["arrival"], t["start"], w, strict=True) if s > a]
    cmap = colormaps["tab20"]
    if tails:
        ax.add_collection(PatchCollection(tails, facecolors="black", edgecolors="none", label="queue time",
                                          zorder=1))
    ax.add_collection(PatchCollection(boxes, facecolors=[cmap(i % 20 / 20) for i in range(len(boxes))],
                                      edgecolors="black", linewidths=0.3, label="jobs", zorder=2))
    right = float((xs + w).max())
    ax.set_xlim(0, max(right, size or 0))
    ax.set_ylim(float(t["end"].max()), float(t["arrival"].min()))
    if size:
        ax.axvline(size, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("processors (jobs arranged for clarity)")
    ax.set_ylabel("time")
    ax.set_title(title or f"schedule of {len(t)} jobs ({len(tails)} queued)")
    return fig


# -- from a store -----------------------------------------------------------------------------------
def _titled(title: str | None, default: str, metric: str) -> str:
    """``title`` naming the plotted ``metric`` as the axis does: appended when the title does not
    (a paper's "mean response time" is the axis's "mean turnaround"); ``default`` without one."""
    if not title:
        return default.format(metric)
    words = metric.lower().replace("utilisation", "utili").split(" and ")
    if any(w in title.lower().replace("utilization", "utili").replace("utilisation", "utili") for w in words):
        return title
    return f"{title} — {metric}"


def _default_specs() -> list[Any]:
    from .experiments.config import PlotSpec

    return [PlotSpec("load", "mean_turnaround", logy=True), PlotSpec("utilization"), PlotSpec("fairness", logy=True)]


def study_figures(store: Any, outdir: str | Path = ".", *, study: str | None = None,
                  specs: Sequence[Any] | None = None, fmt: str = "png", dpi: int = 110) -> list[Path]:
    """Draw the figures of each stored study (or only ``study``) into ``outdir`` and return the
    paths. A study's ``[[plots]]`` are used unless ``specs`` is given; a study without any gets
    mean turnaround vs load (log scale), utilisation and S_e vs load, and fairness at its highest load.
    Results stored without a study description (e.g. replays) are drawn per experiment."""
    from .experiments.config import PlotSpec, Study
    from .experiments.report import aggregate, fairness_curves
    from .experiments.runner import study_rows

    studies = store.studies()
    covered = {e["name"] for cfg in studies.values() for e in cfg.get("experiments", [])}
    for exp in store.experiments():  # results without a study description: one figure set each
        if exp not in covered:
            studies[exp] = {"experiments": [{"name": exp}], "plots": []}
    if study is not None:
        if study not in studies:
            raise KeyError(f"no study {study!r} in {store.path}; stored: {', '.join(studies) or '(none)'}")
        studies = {study: studies[study]}
    paths = []
    outdir = Path(outdir)
    for name, cfg in studies.items():
        exps = [e["name"] for e in cfg.get("experiments", [])]
        try:  # exactly the configuration last run under this name
            rows = study_rows(Study.from_json(cfg), store)
        except (KeyError, TypeError, ValueError):  # no full description (results of a replay)
            rows = store.rows(exps)
        if not rows:
            continue
        plots = specs if specs is not None else [PlotSpec(**p) for p in cfg.get("plots", [])] or _default_specs()
        summaries = aggregate(rows)
        stem = name.replace("/", "-")
        for i, spec in enumerate(plots):
            if spec.kind == "load":
                ttl = _titled(spec.title, f"{name}: {{}} vs offered load", _ylabel(spec.metric))
                fig = load_figure(summaries, spec.metric, panels=spec.panels, logy=spec.logy, title=ttl)
            elif spec.kind == "utilization":
                ttl = _titled(spec.title, f"{name}: {{}} vs offered load", "utilisation and S_e")
                fig = utilization_figure(summaries, panels=spec.panels, title=ttl)
            elif spec.kind == "fairness":
                loads = [r["load"] for r in rows if r["load"] is not None]
                load = spec.load if spec.load is not None else (max(loads) if loads else None)
                ttl = _titled(spec.title, f"{name}: {{}} by requested size", "mean turnaround")
                fig = fairness_figure(fairness_curves(rows, load=load), panels=spec.panels, logy=spec.logy,
                                      title=ttl)
            else:
                raise ValueError(f"unknown plot kind {spec.kind!r}")
            same_kind = sum(1 for p in plots if p.kind == spec.kind) > 1
            file = spec.file or f"{stem}-{spec.kind}{i if same_kind else ''}.{fmt}"
            paths.append(save(fig, outdir / file, dpi=dpi))
    return paths

