"""Figures: rendered to PNG with the Agg canvas and checked for their content."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="plots need matplotlib (topoalloc[plot])")

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
from scheduling.metrics import Estimate  # noqa: E402

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


def test_load_figure_one_curve_per_configuration(tmp_path):
    fig = plots.load_figure(grid(), "mean_turnaround", logy=True, title="t")
    rendered(fig, tmp_path)
    (ax,) = fig.axes
    bars = errorbars(ax)
    assert len(bars) == 2  # RSR-0 and RSR-1
    assert ax.get_xlabel() == "offered load" and ax.get_ylabel() == "mean turnaround"
    assert ax.get_yscale() == "log" and ax.get_title() == "a"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["RSR-0", "RSR-1"]
    x, y = bars[1].lines[0].get_data()
    assert list(x) == [0.2, 0.4, 0.6] and y[0] == pytest.approx(5 + 2 + 1)
    # confidence bars: one segment per point, as long as twice the half-width
    segs = bars[0].lines[2][0].get_segments()
    assert len(segs) == 3 and segs[0][1][1] - segs[0][0][1] == pytest.approx(2.0)


def test_load_figure_panels(tmp_path):
    data = grid(experiments=("s/uniform", "s/normal"), allocators=("Buddy", "GrayCode"))
    fig = plots.load_figure(data, panels="experiment")
    rendered(fig, tmp_path)
    assert [ax.get_title() for ax in fig.axes] == ["uniform", "normal"]
    assert [len(errorbars(ax)) for ax in fig.axes] == [4, 4]
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["Buddy RSR-0", "Buddy RSR-1", "GrayCode RSR-0", "GrayCode RSR-1"]
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
    assert ylabels == ["utilisation", "utilisation", "S_e", "S_e"]
    util = fig.axes[0]
    assert len(errorbars(util)) == 2
    assert any(line.get_linestyle() == ":" for line in util.lines)  # the utilisation = load reference
    assert all(ax.get_ylim()[1] <= 1.05 for ax in fig.axes)


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
    assert ax.get_xlabel() == "requested processors" and ax.get_ylabel() == "mean turnaround"
    assert ax.get_title() == "a (load 0.7)"


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
    assert img.shape == (1, 8, 3) and fig.axes[0].get_xlabel() == "node"
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
    assert len(boxes.get_paths()) == 40
    queued = int((table["start"] > table["arrival"]).sum())
    assert (len(tails[0].get_paths()) if tails else 0) == queued
    lo, hi = ax.get_ylim()
    assert lo > hi  # time runs down the page
    assert ax.get_ylabel() == "time"


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
