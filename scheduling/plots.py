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
  out for clarity (first fit in x, inside the machine's processors), not by their allocation.
* :func:`study_figures` -- the figures a study asks for (its ``[[plots]]``), from a result store.

Every figure is meant to be read at its default size: axis labels carry units (times in the
service distribution's unit, :data:`TIME_UNIT`, or seconds for a trace), the legend stands below
the axes or, when it has many entries, beside them (the figure grows instead of the axes
shrinking), a log axis labels at least :data:`MIN_LOG_TICKS` ticks, and :func:`save` never
replaces an existing file silently.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "load_figure",
    "utilization_figure",
    "fairness_figure",
    "occupancy_figure",
    "occupancy_axes",
    "schedule_figure",
    "study_figures",
    "save",
    "FigureExistsWarning",
    "MatplotlibMissingError",
]


class MatplotlibMissingError(ImportError):
    """matplotlib is not installed."""


def _figure(nrows: int = 1, ncols: int = 1, *, width: float = 5.0, height: float = 3.8,
            sharey: bool = False) -> tuple[Figure, np.ndarray]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MatplotlibMissingError("plots need matplotlib: pip install 'topoalloc[plot]'") from None
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    return fig, axes


class FigureExistsWarning(UserWarning):
    """A figure was not written over an existing file: it went to a numbered name instead."""


def _free_path(path: Path) -> Path:
    """``path`` if no file is there, else the first free ``stem-2.suffix``, ``stem-3.suffix``, ..."""
    if not path.exists():
        return path
    k = 2
    while (alt := path.with_name(f"{path.stem}-{k}{path.suffix}")).exists():
        k += 1
    return alt


def save(fig: Any, path: str | Path, *, dpi: int = 110, overwrite: bool = False) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix), creating the directory, and return the
    path written. An existing file is never replaced silently: unless ``overwrite``, the figure goes
    to the first free numbered name (``fig-2.png``, ``fig-3.png``, ...) with a
    :class:`FigureExistsWarning` naming both files.

    >>> import tempfile, warnings
    >>> fig, _ = _figure()
    >>> with tempfile.TemporaryDirectory() as d, warnings.catch_warnings(record=True):
    ...     [save(fig, Path(d) / "f.png", dpi=20).name for _ in range(2)]
    ['f.png', 'f-2.png']
    """
    path = Path(path)
    if not isinstance(dpi, int | float) or isinstance(dpi, bool) or not dpi > 0:
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    target = path if overwrite else _free_path(path)
    if target != path:
        import warnings

        warnings.warn(f"{path} exists: wrote {target} instead (pass overwrite=True to replace it)",
                      FigureExistsWarning, stacklevel=2)
    fig.savefig(target, dpi=dpi)
    return target


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


#: The unit of times in figures of synthetic streams: the service distribution's (its mean is the
#: service time the workload states); a trace's times are seconds (pass ``time_unit="s"``).
TIME_UNIT = "service-time units"
#: Units of the metrics that are not times (fractions and counts are named as such).
_UNITS = {"utilization": "fraction of processors", "effectiveness": "fraction", "fraction_folded": "fraction",
          "system_efficiency": "fraction", "blocked_fraction": "fraction of time", "saturated": "fraction of runs",
          "fraction_relaxed": "fraction", "mean_hops": "hops", "mean_slowdown": "ratio",
          "mean_bounded_slowdown": "ratio", "p90_slowdown": "ratio", "mean_components": "count",
          "mean_leaf_switches": "count", "mean_changes": "count", "mean_moved": "processors",
          "mean_cluster_size": "processors", "load_average": "jobs", "blocked_episodes": "count"}
_TIMES = ("mean_turnaround", "mean_wait", "p50_turnaround", "p90_turnaround", "p99_turnaround", "blocked_by_topology")
#: The x axis of every load figure.
LOAD_LABEL = "offered load (fraction of capacity)"


def _name(metric: str) -> str:
    from .experiments.report import METRIC_LABELS

    return METRIC_LABELS.get(metric, metric)


def _ylabel(metric: str, time_unit: str = TIME_UNIT) -> str:
    """The axis label of ``metric`` with its unit: ``mean turnaround (service-time units)``."""
    unit = time_unit if metric in _TIMES else _UNITS.get(metric)
    name = _name(metric)
    return f"{name} ({unit})" if unit and unit not in name else name  # "fraction of time blocked ..." says it


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
    one legend for the whole figure, outside the axes: below them in a few columns when it fits in
    two rows, else to their right (the figure widens by the legend's width, and grows taller when
    the legend needs it, so the axes keep their default size)."""

    #: Entries a legend below the axes may hold in a row per inch of figure width, and rows at most.
    PER_INCH, BELOW_ROWS = 1 / 2.2, 2

    def __init__(self) -> None:
        self.handles: dict[str, Any] = {}
        self.notes: dict[str, Any] = {}

    def series(self, label: str, handle: Any) -> None:
        self.handles.setdefault(label, handle)

    def note(self, text: str, **style: Any) -> None:
        from matplotlib.lines import Line2D

        self.notes.setdefault(text, Line2D([], [], **{"linestyle": "none", **style}))

    def draw(self, fig: Any, title: str | None = None) -> None:
        """Draw the legend on ``fig`` and its ``title`` (a suptitle centred over the axes, not over
        a legend at their right)."""
        items = list(self.handles.items()) + list(self.notes.items())
        if title:
            fig.suptitle(title)
        if not items:
            return
        handles, texts = [h for _, h in items], [t for t, _ in items]
        width, height = fig.get_figwidth(), fig.get_figheight()
        per_row = max(1, int(width * self.PER_INCH))
        if math.ceil(len(items) / per_row) <= self.BELOW_ROWS:
            ncols = min(len(items), per_row)
            fig.set_figheight(height + 0.25 * math.ceil(len(items) / ncols) + 0.2)
            fig.legend(handles, texts, loc="outside lower center", fontsize="small", ncols=ncols)
            return
        ncols = 1 if len(items) <= 14 else 2
        rows = math.ceil(len(items) / ncols)
        chars = max(len(t) for t in texts)
        fig.set_figwidth(width + ncols * (0.065 * chars + 0.6) + 0.2)
        if title:
            fig.suptitle(title, x=0.5 * width / fig.get_figwidth())
        fig.set_figheight(max(height, 0.23 * rows + 0.6))
        fig.legend(handles, texts, loc="outside right upper", fontsize="small", ncols=ncols)


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
    from .metrics.summary import MIN_INTERVAL_REPLICATIONS

    return MIN_INTERVAL_REPLICATIONS


def load_figure(summaries: Sequence[Any], metric: str = "mean_turnaround", *, panels: str = "experiment",
                logy: bool = False, title: str | None = None, time_unit: str = TIME_UNIT) -> Any:
    """``metric`` vs offered load, one curve per configuration, 95% confidence bars (one subplot
    per value of ``panels``: ``experiment``, ``allocator``, ``policy`` or ``none``).

    ``summaries`` are :class:`~scheduling.experiments.PointSummary` values
    (:func:`~scheduling.experiments.aggregate`); points without a load (traces) are left out. Each
    series has its own colour and marker in every panel, one legend outside the axes names them;
    curves at one load are offset a little so their bars stay visible. Bars are the interval that
    respects the metric (:func:`scheduling.metrics.confidence_interval`; on a log axis the interval
    of the log), none with fewer than three replications. A curve of a time metric stops before its
    first saturated load (the papers' curves leave the chart there) and a hollow mark at the top
    edge shows each saturated load. The y axis names the metric's unit (times in ``time_unit``).
    """
    items = [s for s in summaries if s.load is not None]
    groups = _panels(items, panels, lambda s: s)
    fig, axes = _figure(1, max(len(groups), 1))
    styles, legend = _Styles(), _Legend()
    for ax, (key, its) in zip(axes[0], groups, strict=False):
        note = _estimate_curves(ax, its, metric, styles, legend, logy=logy, cut_saturated=True)
        ax.set_xlabel(LOAD_LABEL)
        ax.set_ylabel(_ylabel(metric, time_unit))
        if logy:
            _log_y(ax)
        if key or note:
            ax.set_title(_panel_title(key, panels, note))
        ax.grid(True, alpha=0.3)
    legend.draw(fig, title or f"{_name(metric)} vs offered load")
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
            ax.set_xlabel(LOAD_LABEL)
            ax.set_ylabel(_ylabel(metric))
            ax.set_ylim(0, 1.05)
            ax.grid(True, alpha=0.3)
    legend.draw(fig, title or "utilisation and S_e vs offered load")
    return fig


def fairness_figure(curves: Sequence[Any], *, panels: str = "experiment", logy: bool = True,
                    title: str | None = None, time_unit: str | None = None) -> Any:
    """Mean turnaround by requested size (log scale by default, as in seed 002 Fig. 5), one curve
    per configuration, 95% confidence bars over replications (the interval of the log on a log
    axis; none where fewer than three replications had jobs of a size). ``curves`` are
    :class:`~scheduling.experiments.FairnessCurve` values (:func:`~scheduling.experiments.fairness_curves`).
    Times are in ``time_unit``: by default seconds when every curve is a trace's (no load), else
    :data:`TIME_UNIT`."""
    if time_unit is None:
        time_unit = "s" if curves and all(c.point.load is None for c in curves) else TIME_UNIT
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
        ax.set_ylabel(_ylabel("mean_turnaround", time_unit))
        load = its[0].point.load if its else None
        loads.add(load)
        head = _panel_title(key, panels, note) if key or note else ""
        if load is not None:
            head = f"{head} (load {load:g})".strip()
        ax.set_title(head)
        ax.grid(True, alpha=0.3)
    at = "" if loads - {None} == set() or len(loads) > 1 else f" at load {next(iter(loads)):g}"
    legend.draw(fig, title or f"mean turnaround by requested size{at}")
    return fig


def _plain_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:g}")


#: Labelled ticks a log axis shows at least, when its range allows.
MIN_LOG_TICKS = 4


def _log_y(ax: Any) -> None:
    """Log y axis (after plotting) with plain tick labels (``20``, not ``2 x 10^1``) and at least
    :data:`MIN_LOG_TICKS` labelled ticks: the decades alone when there are that many in range, else
    also the minor ticks at 2 and 5 times a decade, else every minor tick (a narrow range)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_plain_formatter())
    lo, hi = ax.get_ylim()
    if not (lo > 0 and hi > lo):
        return
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = [10.0**k for k in range(k0, k1 + 1)]

    def inside(subs: Sequence[float]) -> int:
        return sum(1 for d in decades for m in (1.0, *subs) if lo <= m * d <= hi)

    if inside(()) >= MIN_LOG_TICKS:
        ax.yaxis.set_minor_formatter(NullFormatter())
        return
    subs = (2.0, 5.0) if inside((2.0, 5.0)) >= MIN_LOG_TICKS else (2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=subs, numticks=100))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


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
        ax.set_xlabel("node (id order)")
    elif occ.ndim == 2:
        ax.imshow(_job_colours(occ), interpolation="nearest")
        ax.set_xlabel("x (mesh column)")
        ax.set_ylabel("y (mesh row)")
    else:
        raise ValueError(f"occupancy must be 1D or 2D, got shape {occ.shape}")
    busy = float((occ != 0).mean()) if occ.size else 0.0
    jobs = len(np.unique(occ[occ != 0]))
    head = f"{title}: " if title else ""
    ax.set_title(f"{head}{jobs} job{'' if jobs == 1 else 's'}, {busy:.0%} busy", fontsize="small")
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


def _pack(start: np.ndarray, end: np.ndarray, width: np.ndarray, size: float) -> list[list[tuple[float, float]]]:
    """Pieces ``(x, w)`` per job (jobs in ``start`` order) inside ``[0, size)``: a job takes the
    lowest free range of its width while it runs; when no free range is that wide it is split over
    the lowest free ranges (as a non-contiguous allocation is). Jobs never overlap, and they stay in
    ``[0, size)`` as long as the running jobs' widths never add up to more than ``size`` (past that,
    the rest of a job goes to the right of the machine). O(n k) for n jobs, k free ranges."""
    import heapq

    free: list[list[float]] = [[0.0, float(size)]]  # sorted, disjoint, non-adjacent [lo, hi)
    running: list[tuple[float, int]] = []
    pieces: list[list[tuple[float, float]]] = []

    def give_back(x: float, w: float) -> None:
        free.append([x, x + w])
        free.sort()
        merged = [free[0]]
        for lo, hi in free[1:]:
            if lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        free[:] = merged

    beyond = float(size)
    for i in range(len(width)):
        while running and running[0][0] <= start[i]:
            for x, w in pieces[heapq.heappop(running)[1]]:
                if x < size:
                    give_back(x, w)
        need, got = float(width[i]), []
        fit = next((r for r in free if r[1] - r[0] >= need), None)
        for r in [fit] if fit is not None else list(free):
            take = min(need, r[1] - r[0])
            got.append((r[0], take))
            r[0] += take
            need -= take
            if need <= 0:
                break
        free[:] = [r for r in free if r[1] > r[0]]
        if need > 0:
            got.append((beyond, need))
            beyond += need
        pieces.append(got)
        heapq.heappush(running, (float(end[i]), i))
    return pieces


def schedule_figure(result: Any, *, max_jobs: int = 200, layout: str = "auto", title: str | None = None,
                    time_unit: str = TIME_UNIT) -> Any:
    """A schedule picture like Downey's Fig. 5 (seed 001 §4): time down the page, each job a box as
    wide as its processors from start to end, its queue time a black tail from arrival to start,
    a legend naming both. ``result`` is a :class:`~scheduling.SimulationResult` (or its ``table``);
    the first ``max_jobs`` jobs are drawn. Jobs are laid out for clarity, not by their allocation.

    ``layout``: ``"downey"`` reserves room for the tails as in the paper (first fit in x over each
    job's arrival to end), which can run past the machine's processors (a dotted line marks them);
    ``"compact"`` packs the boxes inside the machine while they run, splitting a job over free
    ranges when no single range is wide enough (its pieces share a colour), tails drawn behind
    the boxes; ``"auto"`` (the default) uses ``downey`` when it stays inside the machine, else
    ``compact``. Without a machine size (a bare table) ``compact`` is first fit over start to end.
    The x axis then spans exactly the machine's processors whenever the jobs fit in it.
    """
    from matplotlib import colormaps
    from matplotlib.collections import PatchCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    if layout not in ("auto", "downey", "compact"):
        raise ValueError(f"layout must be 'auto', 'downey' or 'compact', got {layout!r}")
    if isinstance(max_jobs, bool) or not isinstance(max_jobs, numbers.Integral) or max_jobs < 1:
        raise ValueError(f"max_jobs must be a positive integer, got {max_jobs!r}")
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
    pieces: list[list[tuple[float, float]]] | None = None
    if layout != "compact":
        xs = _layout(t["arrival"], t["end"], w)
        pieces = [[(x, wi)] for x, wi in zip(xs, w, strict=True)]
    if layout == "compact" or (layout == "auto" and size and float((xs + w).max()) > size):
        if size:
            pieces = _pack(t["start"], t["end"], w, size)
        else:
            pieces = [[(x, wi)] for x, wi in zip(_layout(t["start"], t["end"], w), w, strict=True)]
    cmap = colormaps["tab20"]
    boxes, colours = [], []
    for j, (ps, s, e) in enumerate(zip(pieces, t["start"], t["end"], strict=True)):
        for x, wi in ps:
            boxes.append(Rectangle((x, s), wi, e - s))
            colours.append(cmap(j % 20 / 20))
    tails = [Rectangle((ps[0][0] + ps[0][1] * 0.4, a), ps[0][1] * 0.2, s - a)
             for ps, a, s in zip(pieces, t["arrival"], t["start"], strict=True) if s > a]
    if tails:
        ax.add_collection(PatchCollection(tails, facecolors="black", edgecolors="none", label="queue time",
                                          zorder=1))
    ax.add_collection(PatchCollection(boxes, facecolors=colours, edgecolors="black", linewidths=0.3, label="jobs",
                                      zorder=2))
    right = max(x + wi for ps in pieces for x, wi in ps)
    ax.set_xlim(0, max(right, size or 0))
    ax.set_ylim(float(t["end"].max()), float(t["arrival"].min()))
    legend = _Legend()
    legend.series("job: as wide as its processors, from start to end",
                  Patch(facecolor=cmap(0), edgecolor="black", linewidth=0.3))
    if tails:
        legend.series("queue time: arrival to start", Patch(facecolor="black"))
    if size:
        ax.axvline(size, color="grey", linestyle=":", linewidth=1)
        legend.series(f"machine: {size:g} processors", Line2D([], [], color="grey", linestyle=":"))
    split = any(len(ps) > 1 for ps in pieces)
    ax.set_xlabel("processors (jobs arranged for clarity" + ("; a split job shares one colour" if split else "")
                  + ")")
    ax.set_ylabel(f"time ({time_unit})")
    ax.set_title(title or f"schedule of {len(t)} jobs ({len(tails)} queued)")
    legend.PER_INCH = 1 / 3.4  # long labels: two a row
    legend.draw(fig)
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
    from .experiments.schema import PlotSpec

    return [PlotSpec("load", "mean_turnaround", logy=True), PlotSpec("utilization"), PlotSpec("fairness", logy=True)]


def study_figures(store: Any, outdir: str | Path = ".", *, study: str | None = None,
                  specs: Sequence[Any] | None = None, fmt: str = "png", dpi: int = 110,
                  overwrite: bool = False) -> list[Path]:
    """Draw the figures of each stored study (or only ``study``) into ``outdir`` and return the
    paths. A study's ``[[plots]]`` are used unless ``specs`` is given; a study without any gets
    mean turnaround vs load (log scale), utilisation and S_e vs load, and fairness at its highest load.
    Results stored without a study description (e.g. replays) are drawn per experiment. A figure
    whose file exists goes to a numbered name unless ``overwrite`` (see :func:`save`): the returned
    paths are the files written."""
    from .experiments.report import aggregate, fairness_curves
    from .experiments.runner import study_rows
    from .experiments.schema import PlotSpec, Study

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
                ttl = _titled(spec.title, f"{name}: {{}} vs offered load", _name(spec.metric))
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
            paths.append(save(fig, outdir / file, dpi=dpi, overwrite=overwrite))
    return paths

