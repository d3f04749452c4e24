"""Sweeps on a Dask distributed cluster give the local results (skipped without topoalloc[dask])."""

from __future__ import annotations

import pytest

distributed = pytest.importorskip("distributed", reason="needs the dask extra: pip install 'topoalloc[dask]'")

from scheduling.cli import main  # noqa: E402
from scheduling.experiments import (  # noqa: E402
    DaskExecutor,
    LocalExecutor,
    ResultStore,
    make_executor,
    run_study,
    study_from_dict,
)

STUDY = {
    "name": "dask-test",
    "topology": "mesh:8x8",
    "allocators": ["FirstFit", "FrameSliding"],
    "policies": ["RSR-0", "RSR-1"],
    "loads": [0.3, 0.6],
    "jobs": 100,
    "warmup": 10,
    "replications": 2,
    "seed": 11,
}
KEYS = ("point_id", "replication", "sim_seed", "kept", "mean_turnaround", "mean_wait", "utilization", "effectiveness",
        "fairness", "config")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        yield c


def rows(store):
    return sorted(tuple(repr(r[k]) for k in KEYS) for r in store.rows())


def test_dask_results_are_the_local_results(client):
    study = study_from_dict(STUDY)
    local, remote = ResultStore(), ResultStore()
    run_study(study, local, LocalExecutor(1), progress=False)
    executor = DaskExecutor(client)
    stats = run_study(study, remote, executor, progress=False)
    executor.close()  # does not close a client it was given
    assert stats.ran == 2 * 2 * 2 * 2
    assert rows(remote) == rows(local)
    assert client.status == "running"


def test_dask_resumes_like_local(client, tmp_path):
    study = study_from_dict(STUDY)
    path = tmp_path / "d.sqlite"
    with ResultStore(path) as store:
        run_study(study.with_overrides(replications=1), store, DaskExecutor(client), progress=False)
        assert len(store) == 8
    with ResultStore(path) as store:
        stats = run_study(study, store, DaskExecutor(client), progress=False)
        assert (stats.ran, stats.skipped) == (8, 8)


def test_cli_dask_address_matches_local(client, capsys):
    args = ["compare", "--allocators", "Buddy", "--topology", "cube:4", "--loads", "0.5", "--replications", "3",
            "--jobs", "80", "--warmup", "8", "--no-progress"]
    assert main(args + ["--workers", "1"]) == 0
    local = capsys.readouterr().out
    assert main(args + ["--dask", client.scheduler.address]) == 0
    remote = capsys.readouterr().out

    def table(out):
        return [line for line in out.splitlines() if "cube:4" in line and "±" in line]

    assert len(table(local)) == 2 and table(remote) == table(local)


def test_make_executor_chooses():
    assert isinstance(make_executor(workers=3), LocalExecutor)
    assert make_executor(workers=3).workers == 3
    with pytest.raises(ValueError, match="workers"):
        LocalExecutor(0)
