"""Importing the packages stays cheap: heavy optional libraries are imported only where used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("networkx", "matplotlib", "pandas", "dask", "tqdm")


def _modules_after(code: str) -> list[str]:
    """``sys.modules`` of a fresh interpreter after running ``code``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))))
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize("package", ["topologies", "topoalloc", "scheduling"])
def test_import_does_not_pull_heavy_libraries(package):
    loaded = _modules_after(f"import {package}")
    assert package in loaded
    heavy = sorted({m.split(".")[0] for m in loaded} & set(HEAVY))
    assert heavy == [], f"import {package} imports {heavy}"


def test_scheduling_imports_policy_modules_and_subpackages_on_first_use():
    lazy = ["scheduling.policies.backfill", "scheduling.policies.gang", "scheduling.policies.downey",
            "scheduling.experiments", "scheduling.plots", "scheduling.cli", "scheduling.workloads"]
    loaded = _modules_after("import scheduling\nfrom scheduling import policies\n"
                            "assert 'EASY' in policies.names() and 'Gang-Vanilla' in policies.describe()")
    assert [m for m in lazy if m in loaded] == []
    loaded = _modules_after("import scheduling\nassert scheduling.policies.get('easy').name == 'EASY'")
    assert "scheduling.policies.backfill" in loaded and "scheduling.policies.gang" not in loaded
    loaded = _modules_after("import scheduling\nscheduling.workloads.Synthetic\nscheduling.policies.Gang")
    assert "scheduling.workloads" in loaded and "scheduling.policies.gang" in loaded
    assert "scheduling.experiments" not in loaded


def test_networkx_graphs_still_available():
    nx = pytest.importorskip("networkx")
    from topologies import Flat, Hypercube, Mesh

    assert isinstance(Mesh(3, 2).to_networkx(), nx.Graph)
    assert Hypercube(3).to_networkx().number_of_edges() == 12 and Flat(4).to_networkx().number_of_edges() == 6


def test_replaying_a_trace_imports_only_what_a_replay_needs(tmp_path):
    trace = tmp_path / "tiny.swf"
    lines = [f"{i} {10 * i} -1 {5 + i} {1 + i % 8} -1 -1 {1 + i % 8} {9 + i} -1 1 1 -1 -1 -1 -1 -1 -1\n"
             for i in range(1, 60)]
    trace.write_text("; MaxProcs: 8\n" + "".join(lines))
    loaded = _modules_after("import gc\nfrom scheduling.cli import main\n"
                            f"assert main(['replay', {str(trace)!r}, '--policies', 'FCFS,EASY', '--workers', '1', "
                            "'--no-progress']) == 0\nassert gc.get_freeze_count() == 0 and gc.isenabled()")
    unneeded = ["importlib.metadata", "concurrent.futures", "multiprocessing", "scheduling.workloads.distributions",
                "scheduling.workloads.synthetic", "scheduling.workloads.downey", "scheduling.experiments.saturation",
                "scheduling.experiments.snapshots", "scheduling.reproduce.claims"]
    if "numpy.ma" not in _modules_after("import numpy"):  # numpy 1.x imports it with numpy
        unneeded.append("numpy.ma")
    assert [m for m in unneeded if m in loaded] == []
