"""Figures: rendered to PNG with the Agg canvas and checked for their content."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="plots need matplotlib (topoalloc[plot])")

from matplotlib.container import ErrorbarContainer  # noqa: E402

from scheduling import plots  # noqa: E402
from scheduling.experiments import (  # noqa: E402
    LocalExecutor,
    PlotSpec,
    ResultStore,
    TopologySpec,
    WorkloadSpec,
    fairness_curves,
    make_allocator,
    record_occupancy,
    run_study,
    study_from_dict,
)
from scheduling.experiments.report import FairnessCurve, PointSummary  # noqa: E402
from scheduling.metrics.summary import Estimate  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def summary(exp, alloc, pol, load, turn, hw=1.0, util=0.5, se=0.8):
    est = {"mean_turnaround": Estimate(turn, hw, 3), "utilization": Estimate(util, 0.01, 3),
           "effectiveness": Estimate(se, 0.02, 3)}
    return PointSummary(f"{exp}{alloc}{pol}{load}", exp, "cube:5", alloc, pol, load, {}, 3, est)


def grid(experiments=("e/a",), allocators=("Buddy",), policies=("RSR-0", "RSR-1"), loads=(0.2, 0.4, 0.6)):
    return [summary(e, a, p, x, 5 + 10 * x + i, util=x * 0.9) for e in experiments for a in allocators
            for i, p in enumerate(policies) for x in loads]


def rendered(fig, tmp_path, name="fig.png"):
    path = plots.save(fig, tmp_path / name, dpi=40)
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 1000
    return path


def errorbars(ax):
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def legend_texts(fig):
    return [t.get_text() for leg in fig.legends for t in leg.get_texts()]


def bar_ends(container):
    """The finite y values of an errorbar container's bar ends."""
    if not container.lines[2]:
        return np.empty(0)
    segs = [np.asarray(seg, dtype=float).reshape(-1, 2)[:, 1] for seg in container.lines[2][0].get_segments()]
    ends = np.concatenate(segs) if segs else np.empty(0)
    return ends[np.isfinite(ends)]


FRACTION_LABELS = {"utilisation", "S_e", "fraction folded", "system efficiency"}


def check_readable(fig):
    """What a reader needs from a figure, as far as matplotlib can tell: no two series share colour
    and marker (one series keeps its style in every panel); legends do not cover any axes; bar ends
    stay inside the metric's range (fractions in [0, 1], positive on a log axis)."""
    fig.canvas.draw()
    styles = {}
    for ax in fig.axes:
        for c in errorbars(ax):
            line = c.lines[0]
            style = (matplotlib.colors.to_hex(line.get_color()), line.get_marker())
            label = c.get_label()
            assert styles.setdefault(label, style) == style, f"{label} changes style between panels"
    assert len(set(styles.values())) == len(styles), f"two series share colour and marker: {styles}"
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    for leg in legends:
        box = leg.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), "a legend covers the data"
    for ax in fig.axes:
        for c in errorbars(ax):
            if not c.lines[2]:
                continue
            ends = bar_ends(c)
            if ax.get_ylabel().split(" (")[0] in FRACTION_LABELS:
                assert ends.min(initial=0) >= 0 and ends.max(initial=1) <= 1, ax.get_ylabel()
            if ax.get_yscale() == "log":
                assert (ends > 0).all()
    return styles


def test_load_figure_one_curve_per_configuration(tmp_path):
    fig = plots.load_figure(grid(), "mean_turnaround", logy=True, title="t")
    rendered(fig, tmp_path)
    (ax,) = fig.axes
    bars = errorbars(ax)
    assert len(bars) == 2  # RSR-0 and RSR-1
    assert ax.get_xlabel() == "offered load (fraction of capacity)"
    assert ax.get_ylabel() == "mean turnaround (service-time units)"
    assert ax.get_yscale() == "log" and ax.get_title() == "a"
    assert legend_texts(fig) == ["RSR-0", "RSR-1"] and fig.get_suptitle() == "t"
    x, y = bars[1].lines[0].get_data()
    assert list(x) == pytest.approx([0.2, 0.4, 0.6], abs=0.03) and y[0] == pytest.approx(5 + 2 + 1)
    x0, _ = bars[0].lines[0].get_data()
    assert all(a < b for a, b in zip(x0, x, strict=True))  # offset so the bars at one load stay apart
    # on a log axis the bars are the interval of the log: mean * exp(±hw / mean)
    segs = bars[0].lines[2][0].get_segments()
    lo, hi = segs[0][0][1], segs[0][1][1]
    assert len(segs) == 3 and lo == pytest.approx(7 * np.exp(-1 / 7)) and hi == pytest.approx(7 * np.exp(1 / 7))
    check_readable(fig)
    fig = plots.load_figure(grid(), "mean_turnaround")
    segs = errorbars(fig.axes[0])[0].lines[2][0].get_segments()
    assert segs[0][1][1] - segs[0][0][1] == pytest.approx(2.0)  # linear axis: mean ± half-width
    assert fig.get_suptitle() == "mean turnaround vs offered load"  # the title names the metric


def test_load_figure_panels(tmp_path):
    data = grid(experiments=("s/uniform", "s/normal"), allocators=("Buddy", "GrayCode"))
    fig = plots.load_figure(data, panels="experiment")
    rendered(fig, tmp_path)
    assert [ax.get_title() for ax in fig.axes] == ["uniform", "normal"]
    assert [len(errorbars(ax)) for ax in fig.axes] == [4, 4]
    assert legend_texts(fig) == ["Buddy RSR-0", "Buddy RSR-1", "GrayCode RSR-0", "GrayCode RSR-1"]  # one legend
    check_readable(fig)
    fig = plots.load_figure(data, panels="allocator")
    assert [ax.get_title() for ax in fig.axes] == ["Buddy", "GrayCode"]
    assert len(errorbars(fig.axes[0])) == 4  # 2 experiments x 2 policies
    fig = plots.load_figure(data, panels="none")
    assert len(fig.axes) == 1 and len(errorbars(fig.axes[0])) == 8
    with pytest.raises(ValueError, match="panels"):
        plots.load_figure(data, panels="colour")


def test_utilization_figure(tmp_path):
    fig = plots.utilization_figure(grid(experiments=("s/a", "s/b")))
    rendered(fig, tmp_path)
    assert len(fig.axes) == 4
    ylabels = [ax.get_ylabel() for ax in fig.axes]
    assert ylabels == ["utilisation (fraction of processors)"] * 2 + ["S_e (fraction)"] * 2
    util = fig.axes[0]
    assert len(errorbars(util)) == 2
    assert any(line.get_linestyle() == ":" for line in util.lines)  # the utilisation = load reference
    assert all(ax.get_ylim()[1] <= 1.05 for ax in fig.axes)
    check_readable(fig)


def test_fairness_figure(tmp_path):
    curves = []
    for i, pol in enumerate(("RSR-7", "Limit-0", "RSR-1")):
        point = summary("f/a" if i < 2 else "f/b", "Buddy", pol, 0.7, 10.0)
        size = np.array([1.0, 2.0, 4.0, 8.0])
        curves.append(FairnessCurve(point, size, size * (i + 1), np.full(4, 0.5), np.full(4, 10), False))
    fig = plots.fairness_figure(curves, logy=True)
    rendered(fig, tmp_path)
    assert [len(errorbars(ax)) for ax in fig.axes] == [2, 1]
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert ax.get_xlabel() == "requested processors" and ax.get_ylabel() == "mean turnaround (service-time units)"
    assert ax.get_title() == "a (load 0.7)"
    assert "mean turnaround" in fig.get_suptitle()
    check_readable(fig)


def test_occupancy_mesh_small_multiples(tmp_path):
    occ = np.zeros((4, 6), dtype=int)
    occ[0:2, 0:3] = 1
    occ[3, 5] = 7
    fig = plots.occupancy_figure([(0.0, np.zeros((4, 6), int)), (1.5, occ), (3.0, occ)], ncols=2, title="mesh")
    rendered(fig, tmp_path)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3 and len(fig.axes) == 4  # 2x2 grid, the spare one hidden
    img = visible[1].images[0].get_array()
    assert img.shape == (4, 6, 3)
    assert np.all(img[2, 0] == 1.0) and not np.all(img[0, 0] == 1.0)  # free is white, jobs coloured
    assert np.any(img[0, 0] != img[3, 5])  # two jobs, two colours
    assert visible[1].get_title() == "t = 1.5: 2 jobs, 29% busy"


def test_occupancy_strip_for_a_cube(tmp_path):
    strip = np.array([1, 1, 0, 0, 2, 2, 2, 2])
    fig = plots.occupancy_figure([strip, np.zeros(8, int)])
    rendered(fig, tmp_path)
    assert len(fig.axes) == 2
    img = fig.axes[0].images[0].get_array()
    assert img.shape == (1, 8, 3) and fig.axes[0].get_xlabel() == "node (id order)"
    with pytest.raises(ValueError, match="1D or 2D"):
        plots.occupancy_figure([np.zeros((2, 2, 2))])


def test_record_occupancy_and_schedule(tmp_path):
    topo = TopologySpec.parse("mesh:8x8")
    work = WorkloadSpec().resolve(topo, "FirstFit").build(0.6, 64)
    result, snaps = record_occupancy(make_allocator("FirstFit", topo.build()), "RSR-1", work, times=[5.0, 20.0, 40.0],
                                     jobs=60, seed=1)
    assert [t >= want for (t, _), want in zip(snaps, (5.0, 20.0, 40.0), strict=True)] == [True] * 3
    assert all(o.shape == (8, 8) for _, o in snaps)
    fig = plots.occupancy_figure(snaps)
    rendered(fig, tmp_path, "occ.png")
    fig = plots.schedule_figure(result, max_jobs=40)
    rendered(fig, tmp_path, "schedule.png")
    (ax,) = fig.axes
    table = result.table[:40]
    boxes, *tails = ax.collections[::-1]
    assert len(boxes.get_paths()) >= 40  # a job split to stay inside the machine is drawn in pieces
    queued = int((table["start"] > table["arrival"]).sum())
    assert (len(tails[0].get_paths()) if tails else 0) == queued
    lo, hi = ax.get_ylim()
    assert lo > hi  # time runs down the page
    assert ax.get_ylabel() == "time (service-time units)"


def test_schedule_layout_keeps_jobs_apart():
    arrival = np.array([0.0, 0.0, 1.0, 5.0])
    end = np.array([4.0, 3.0, 6.0, 7.0])
    width = np.array([4.0, 2.0, 3.0, 6.0])
    xs = plots._layout(arrival, end, width)
    for i in range(4):
        for j in range(i):
            overlap_t = arrival[i] < end[j] and arrival[j] < end[i]
            overlap_x = xs[i] < xs[j] + width[j] and xs[j] < xs[i] + width[i]
            assert not (overlap_t and overlap_x)
    assert xs[0] == 0.0 and xs[1] == 4.0


def test_study_figures_from_a_store(tmp_path):
    study = study_from_dict({
        "name": "figs", "topology": "cube:4", "allocators": ["Buddy"], "policies": ["RSR-0", "RSR-1"],
        "loads": [0.4, 0.7], "jobs": 80, "warmup": 8, "replications": 2,
        "plots": [{"kind": "load", "logy": True, "file": "turn.png"}, {"kind": "fairness", "load": 0.7}],
    })
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    paths = plots.study_figures(store, tmp_path)
    assert [p.name for p in paths] == ["turn.png", "figs-fairness.png"]
    assert all(p.read_bytes()[:8] == PNG for p in paths)
    paths = plots.study_figures(store, tmp_path / "default", specs=[PlotSpec("utilization")], fmt="svg")
    assert [p.name for p in paths] == ["figs-utilization.svg"]
    assert len(fairness_curves(store.rows(), load=0.7)) == 2
    with pytest.raises(KeyError, match="no study 'other'"):
        plots.study_figures(store, tmp_path, study="other")


def gang_curves():
    """Seed 004 Fig. 3's shape: EASY alone, then two panels of 12 gang schedulers each."""
    curves = []
    size = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    pols = [f"Gang-{k}(cycle={c}, switch_cost={{s}})" for k in ("Vanilla", "PushDown-Weight", "Migrate-Root",
                                                                  "Migrate-Leaves") for c in (300, 1000, 3000)]
    for exp, alloc, names in (("g/EASY", "FlatPool", ["EASY"]), ("g/switch 1 s", "DHCTree", pols),
                              ("g/switch 16 s", "DHCTree", pols)):
        for i, name in enumerate(names):
            point = summary(exp, alloc, name.format(s=exp.split()[1]) if "{" in name else name, None, 10.0)
            curves.append(FairnessCurve(point, size, size * (i + 1), np.full(5, 2.0), np.full(5, 10), False,
                                        np.full(5, 1)))
    return curves


def test_twelve_series_keep_their_own_colour_and_marker(tmp_path):
    fig = plots.fairness_figure(gang_curves(), title="seed 004: mean turnaround (response time) by size")
    rendered(fig, tmp_path)
    styles = check_readable(fig)
    assert len(styles) == 13 and len({colour for colour, _ in styles.values()}) == 13  # no colour repeats
    # the parameter all curves of a panel share moves to its title: one legend entry per scheduler
    assert [ax.get_title() for ax in fig.axes] == ["EASY", "switch 1 s (switch_cost=1)", "switch 16 s (switch_cost=16)"]
    assert "Gang-Vanilla(cycle=300)" in legend_texts(fig) and len(fig.legends) == 1
    assert "no bar: fewer than 3 replications" in legend_texts(fig)  # one run (a trace): no interval
    assert all(len(bar_ends(c)) == 0 for c in errorbars(fig.axes[1]))


def sat_summary(load, turn, sat_runs, util_values):
    from scheduling.metrics.summary import confidence_interval

    est = {"mean_turnaround": confidence_interval([turn - 1, turn, turn + 1], "positive"),
           "utilization": confidence_interval(util_values, "fraction"),
           "effectiveness": confidence_interval([0.9, 0.95, 1.0], "fraction")}
    return PointSummary(f"p{load}", "e/a", "cube:8", "Buddy", "RSR-0", load, {}, 3, est, sat_runs)


def test_saturated_points_are_cut_off_and_bounded_bars_stay_in_range(tmp_path):
    pts = [sat_summary(0.2, 6.0, 0, [0.19, 0.2, 0.21]), sat_summary(0.6, 20.0, 0, [0.58, 0.6, 0.62]),
           sat_summary(0.8, 900.0, 3, [0.66, 0.67, 0.68]), sat_summary(0.9, 2000.0, 2, [0.97, 0.99, 1.0])]
    fig = plots.load_figure(pts, logy=True)
    rendered(fig, tmp_path)
    (bars,) = errorbars(fig.axes[0])
    assert list(bars.lines[0].get_data()[0]) == [0.2, 0.6]  # the curve stops before the first saturated load
    hollow = [line for line in fig.axes[0].lines if line.get_markerfacecolor() == "none"]
    assert len(hollow) == 1 and list(hollow[0].get_data()[0]) == [0.8, 0.9]
    assert "saturated (off the scale)" in legend_texts(fig)
    check_readable(fig)
    fig = plots.utilization_figure(pts)
    rendered(fig, tmp_path, "util.png")
    (util,) = errorbars(fig.axes[0])
    assert len(util.lines[0].get_data()[0]) == 4  # utilisation of a saturated run is its capacity: drawn
    assert bar_ends(util).max() == 1.0  # 0.987 ± 0.038 clipped to the metric's range
    assert "saturated run (hollow mark)" in legend_texts(fig)
    check_readable(fig)
