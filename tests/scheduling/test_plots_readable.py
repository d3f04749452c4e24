"""Every figure readable at its default size (issue 32, item 10): axes with units, a legend beside
or below the data and never over it, log axes with enough labelled ticks, schedule bars inside the
machine, a legend for the schedule's rectangles, and no file written over silently."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="plots need matplotlib (topoalloc[plot])")

from scheduling import plots  # noqa: E402
from scheduling.experiments import (  # noqa: E402
    LocalExecutor,
    ResultStore,
    TopologySpec,
    WorkloadSpec,
    make_allocator,
    record_occupancy,
    run_study,
    study_from_dict,
)
from scheduling.experiments.report import PointSummary  # noqa: E402
from scheduling.metrics.summary import Estimate  # noqa: E402

ALLOCATORS = ("Buddy2D", "FrameSliding", "FirstFit", "BestFit")


def point(alloc, policy, load, turn):
    est = {"mean_turnaround": Estimate(turn, turn * 0.05, 3), "utilization": Estimate(load * 0.9, 0.01, 3),
           "effectiveness": Estimate(0.8, 0.02, 3)}
    return PointSummary(f"{alloc}{policy}{load}", "compare/mesh:16x16", "mesh:16x16", alloc, policy, load, {}, 3, est)


def ten_series(low=10.0, high=300.0):
    """Eight configurations plus two notes: the ten-entry legend of ``compare --plots``."""
    loads = (0.2, 0.4, 0.6)
    pts = []
    for i, (a, p) in enumerate((a, p) for a in ALLOCATORS for p in ("RSR-0", "RSR-1")):
        pts += [point(a, p, x, low + (high - low) * (j / 2) * (1 + i) / 8) for j, x in enumerate(loads)]
    pts.append(PointSummary("sat", "compare/mesh:16x16", "mesh:16x16", "Buddy2D", "RSR-0", 0.8,
                            {}, 3, {"mean_turnaround": Estimate(5000.0, 10.0, 3)}, 3))
    pts.append(PointSummary("n1", "compare/mesh:16x16", "mesh:16x16", "BestFit", "RSR-1", 0.1,
                            {}, 1, {"mean_turnaround": Estimate(8.0, float("nan"), 1)}))
    return pts


def boxes(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return renderer, [leg.get_window_extent(renderer) for leg in fig.legends]


def check_legend_beside(fig):
    """The legend is inside the figure, clear of every axes and of the title."""
    renderer, legends = boxes(fig)
    assert legends, "no legend"
    whole = fig.bbox
    for box in legends:
        assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1 and whole.y0 - 1 <= box.y0 and box.y1 <= whole.y1 + 1
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), "the legend covers the data"
        title = fig._suptitle
        if title is not None:
            assert not box.overlaps(title.get_window_extent(renderer)), "the legend covers the title"


def labelled_yticks(ax):
    lo, hi = sorted(ax.get_ylim())
    return sorted({round(t.get_position()[1], 9) for t in ax.get_yticklabels(which="both")
                   if t.get_text() and t.get_visible() and lo <= t.get_position()[1] <= hi})


def test_a_ten_entry_legend_leaves_the_plot_its_size():
    """The issue's ``compare --metrics mean_turnaround --plots``: a ten-entry legend once sat
    under a ~100-pixel plot strip; now it stands beside the axes, which keep most of the height."""
    fig = plots.load_figure(ten_series(), "mean_turnaround", panels="experiment", logy=True)
    check_legend_beside(fig)
    assert len([t for leg in fig.legends for t in leg.get_texts()]) == 10
    (ax,) = fig.axes
    height = ax.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi
    assert height >= 0.6 * fig.get_figheight() and height >= 2.2  # inches


def test_few_entries_go_below_and_every_panel_keeps_its_height():
    fig = plots.utilization_figure([p for p in ten_series() if p.allocator == "FirstFit"])
    check_legend_beside(fig)
    renderer = fig.canvas.get_renderer()
    assert all(ax.get_window_extent(renderer).height / fig.dpi >= 1.8 for ax in fig.axes)
    (leg,) = fig.legends
    assert leg.get_window_extent(renderer).y1 <= min(ax.get_window_extent(renderer).y0 for ax in fig.axes)


@pytest.mark.parametrize(("low", "high"), [(10.0, 300.0), (6.0, 80.0), (40.0, 70.0), (1.0, 1e5)])
def test_a_log_axis_has_enough_labelled_ticks(low, high):
    """A turnaround from 10 to 300 once showed two labels (10 and 100)."""
    fig = plots.load_figure(ten_series(low, high)[:-2], "mean_turnaround", logy=True)
    fig.canvas.draw()
    ticks = labelled_yticks(fig.axes[0])
    assert len(ticks) >= plots.MIN_LOG_TICKS, ticks
    assert len(ticks) <= 12, ticks  # and not a crowd


def test_every_axis_names_its_unit(tmp_path):
    pts = ten_series()[:-2]
    figs = [plots.load_figure(pts, "mean_turnaround"), plots.utilization_figure(pts),
            plots.occupancy_figure([np.arange(8)]), plots.occupancy_figure([np.zeros((4, 4), int)])]
    for fig in figs:
        for ax in fig.axes:
            for label in (ax.get_xlabel(), ax.get_ylabel()):
                if label:
                    assert label.endswith(")") and " (" in label, label
    assert figs[0].axes[0].get_ylabel() == "mean turnaround (service-time units)"
    assert plots.load_figure(pts, time_unit="s").axes[0].get_ylabel() == "mean turnaround (s)"


@pytest.fixture(scope="module")
def mesh_run():
    """The issue's ``topoalloc snapshot --topology mesh:32x32 --schedule``: laid out first fit over
    arrival to end, these jobs once reached 1,372 processors of a 1,024-processor machine."""
    topo = TopologySpec.parse("mesh:32x32")
    work = WorkloadSpec().resolve(topo, "FirstFit").build(0.4, topo.size)
    result, _ = record_occupancy(make_allocator("FirstFit", topo.build()), "RSR-1", work, times=[], jobs=300, seed=1)
    return result


def piece_boxes(ax):
    """``(x0, x1, t0, t1)`` of each drawn job piece (the top collection holds the boxes)."""
    out = []
    for path in ax.collections[-1].get_paths():
        v = path.vertices
        out.append((v[:, 0].min(), v[:, 0].max(), v[:, 1].min(), v[:, 1].max()))
    return np.array(out)


def test_schedule_bars_stay_inside_the_machine(mesh_run):
    fig = plots.schedule_figure(mesh_run)
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 1024.0)
    b = piece_boxes(ax)
    assert b[:, 0].min() >= 0 and b[:, 1].max() <= 1024
    for i in range(len(b)):  # no two pieces share processors at one time
        overlap = (b[:, 0] < b[i, 1]) & (b[i, 0] < b[:, 1]) & (b[:, 2] < b[i, 3]) & (b[i, 2] < b[:, 3])
        overlap[i] = False
        assert not overlap.any()
    assert (b[:, 1] - b[:, 0]).sum() == pytest.approx(mesh_run.table[:200]["granted"].sum())  # every processor drawn
    assert ax.get_ylabel() == "time (service-time units)"


def test_schedule_rectangles_have_a_legend(mesh_run):
    fig = plots.schedule_figure(mesh_run, max_jobs=80)
    check_legend_beside(fig)
    texts = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert texts == ["job: as wide as its processors, from start to end", "queue time: arrival to start",
                     "machine: 1024 processors"]
    assert fig.get_figwidth() == pytest.approx(7.0)  # the legend goes below, not beside


def test_pack_splits_a_job_only_when_no_range_is_wide_enough():
    start = np.array([0.0, 0.0, 0.0, 1.0, 5.0])
    end = np.array([5.0, 1.0, 5.0, 5.0, 6.0])
    width = np.array([3.0, 2.0, 2.0, 3.0, 8.0])
    pieces = plots._pack(start, end, width, 8)
    assert pieces == [[(0.0, 3.0)], [(3.0, 2.0)], [(5.0, 2.0)], [(3.0, 2.0), (7.0, 1.0)], [(0.0, 8.0)]]
    with pytest.raises(ValueError, match="max_jobs must be a positive integer, got 0"):
        plots.schedule_figure(np.zeros(0, dtype=[("start", float)]), max_jobs=0)


def test_save_never_overwrites_silently(tmp_path):
    fig = plots.load_figure(ten_series()[:-2])
    first = plots.save(fig, tmp_path / "f.png", dpi=30)
    before = first.read_bytes()
    with pytest.warns(plots.FigureExistsWarning, match=r"f\.png exists: wrote .*f-2\.png instead"):
        second = plots.save(plots.utilization_figure(ten_series()[:-2]), tmp_path / "f.png", dpi=30)
    assert second.name == "f-2.png" and first.read_bytes() == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plots.save(fig, tmp_path / "f.png", dpi=30, overwrite=True) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f-2.png", "f.png"]
    with pytest.raises(ValueError, match="dpi must be a positive number, got 0"):
        plots.save(fig, tmp_path / "g.png", dpi=0)


def test_two_runs_into_one_folder_keep_both_figures(tmp_path):
    """Two ``run`` s drawing into one folder: the second's figures get numbered names, each said."""
    study = study_from_dict({"name": "s", "topology": "cube:4", "allocators": ["Buddy"], "policies": ["RSR-0"],
                             "loads": [0.4], "jobs": 40, "warmup": 4, "replications": 1,
                             "plots": [{"kind": "load", "file": "turn.png"}]})
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    out = tmp_path / "figs"
    assert [p.name for p in plots.study_figures(store, out, dpi=30)] == ["turn.png"]
    with pytest.warns(plots.FigureExistsWarning, match="turn-2.png"):
        again = plots.study_figures(store, out, dpi=30)
    assert [p.name for p in again] == ["turn-2.png"]
    assert sorted(p.name for p in out.iterdir()) == ["turn-2.png", "turn.png"]  # nothing else written
    assert [p.name for p in plots.study_figures(store, out, dpi=30, overwrite=True)] == ["turn.png"]
