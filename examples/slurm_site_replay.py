"""A Slurm site replays its own log: the recorded placements scored on the site's tree beside what
SlurmTree, KueueTAS and FirstFree would have done with the same jobs.

    python examples/slurm_site_replay.py                   # writes into ./slurm_site_replay/
    python examples/slurm_site_replay.py --out site-replay --jobs 3000 --seed 2

Everything is synthetic and written by the example itself, so it runs anywhere:

1. **The site** (``topology.conf``, Slurm's ``topology/tree`` form): 128 nodes ``cn001``-``cn128``
   under 8 leaf switches of 16 and 2 spines. The cabling strides the names across the racks --
   leaf switch ``s`` holds ``cn[s+1]``, ``cn[s+9]``, ``cn[s+17]``, ... -- as on a site whose
   nodes were numbered along the rows of the machine room rather than per rack.
2. **Its log** (``sacct.txt``, ``sacct --parsable2`` with ``JobID``, ``JobIDRaw``, ``Partition``,
   ``Submit``, ``Start``, ``End``, ``Timelimit``, ``NNodes``, ``NodeList``, ``State``): a
   topology-unaware production scheduler -- EASY backfilling, each job given the free nodes with
   the lowest names, as Slurm's node selection without the tree plugin does -- run on 2,000 jobs
   (Poisson arrivals at an offered load of about 0.7, power-of-two sizes of 1-32 nodes,
   exponential run times, a limit of 1.5-3 times the run time), written with the quirks of real
   dumps: a ``.batch`` and an ``.extern`` step per job, 5% of the submissions cancelled before
   they started (``Start`` ``Unknown``, ``NodeList`` ``None assigned``), 3% of the jobs ended
   ``TIMEOUT``, node lists as hostlist expressions (``cn[001-004,009]``, by ``python-hostlist``).
3. **The replay**: :func:`~scheduling.formats.sacct.read_sacct` (the report says what every line
   became), :func:`~scheduling.formats.load.replay_recorded` (the recorded schedule with its
   recorded nodes: leaf switches and mean hops per job on the tree), then the same jobs under
   EASY with :class:`~topoalloc.SlurmTree`, :class:`~topoalloc.KueueTAS` and
   :class:`~topoalloc.FirstFree`. For KueueTAS each multi-node job asks, as a Kueue user does with
   ``kueue.x-k8s.io/podset-preferred-topology``, for the leaf switches' level (a plain count is
   Kueue's implicit unconstrained default, which on this tree takes the same nodes as FirstFree).

Printed: the read report, then per configuration the jobs, the mean leaf switches per job, the
share of multi-node jobs on one leaf switch, the mean hops between a job's nodes (up to the
lowest common switch and down) and the mean wait. Written into ``--out``: ``topology.conf``,
``sacct.txt``, one Batsim ``<name>_jobs.csv`` per configuration (readable by evalys) and
``slurm_site_replay.png`` (needs matplotlib): the distribution of leaf switches per job and the
mean hops by job size (multi-node jobs), recorded against each allocator. One seeded numpy generator per purpose
(arrivals and sizes, run times, quirks). Takes a few seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduling import Job, simulate  # noqa: E402
from scheduling.formats import export, export_name  # noqa: E402
from scheduling.formats.load import replay_recorded  # noqa: E402
from scheduling.formats.sacct import read_sacct  # noqa: E402
from topoalloc import FirstFree, FlatPool, KueueTAS, SlurmTree  # noqa: E402
from topologies import Flat, TreeRequest  # noqa: E402
from topologies.tree_files import read_tree_file  # noqa: E402

LEAVES, PER_LEAF = 8, 16
NODES = LEAVES * PER_LEAF
EPOCH = np.datetime64("2024-04-01T00:00:00")


def node_name(k: int) -> str:
    """The name of node ``k`` (0-based) in name order."""
    return f"cn{k + 1:03d}"


def topology_conf() -> str:
    """Leaf switch ``s`` holds the names ``s + 1``, ``s + 1 + 8``, ...: the names stride across racks."""
    lines = ["# synthetic site: 8 racks of 16 nodes, node names striding across the racks"]
    for s in range(LEAVES):
        names = ",".join(f"{k + 1:03d}" for k in range(s, NODES, LEAVES))
        lines.append(f"SwitchName=leaf{s} Nodes=cn[{names}]")
    lines.append("SwitchName=spine0 Switches=leaf[0-3]")
    lines.append("SwitchName=spine1 Switches=leaf[4-7]")
    lines.append("SwitchName=core Switches=spine[0-1]")
    return "\n".join(lines) + "\n"


def production_jobs(n: int, seed: int) -> list[Job]:
    """The site's submissions: Poisson arrivals, power-of-two sizes, exponential run times."""
    arrivals_rng = np.random.Generator(np.random.PCG64([seed, 1]))
    runtime_rng = np.random.Generator(np.random.PCG64([seed, 2]))
    size = 2 ** arrivals_rng.integers(0, 6, n)
    run = np.maximum(60.0, runtime_rng.exponential(3600.0, n)).round()
    load = 0.7
    rate = load * NODES / float(np.mean(size * run))
    arrival = np.cumsum(arrivals_rng.exponential(1.0 / rate, n)).round()
    limit = np.ceil(run * runtime_rng.uniform(1.5, 3.0, n) / 60.0) * 60.0
    return [Job(i + 1, float(a), int(k), float(r), estimate=float(lim), size=int(k))
            for i, (a, k, r, lim) in enumerate(zip(arrival, size, run, limit, strict=True))]


def write_log(path: Path, jobs: list[Job], seed: int) -> None:
    """The production run (EASY, lowest-named free nodes) as an sacct --parsable2 dump with real quirks."""
    import hostlist

    quirks = np.random.Generator(np.random.PCG64([seed, 3]))
    result = simulate(FlatPool(Flat(NODES)), "EASY", jobs, jobs=None, record_placement=True)
    by_id = {j.id: j for j in jobs}

    def stamp(t: float) -> str:
        return str(EPOCH + np.timedelta64(int(round(t)), "s"))

    def hms(seconds: float) -> str:
        s = int(seconds)
        return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"

    out = ["JobID|JobIDRaw|Partition|Submit|Start|End|Timelimit|NNodes|NodeList|State"]
    next_id = max(by_id) + 1
    for jid, start, end in zip(result.id.tolist(), result.start.tolist(), result.end.tolist(), strict=True):
        job = by_id[jid]
        if quirks.random() < 0.05:  # a submission cancelled while pending, just before this job
            out.append(f"{next_id}|{next_id}|batch|{stamp(job.arrival)}|Unknown|{stamp(job.arrival + 120)}|"
                       f"{hms(job.estimate)}|{job.size}|None assigned|CANCELLED by 1042")
            next_id += 1
        nodes = hostlist.collect_hostlist([node_name(k) for k in result.placements[jid].tolist()])
        state = "TIMEOUT" if quirks.random() < 0.03 else "COMPLETED"
        span = f"{stamp(job.arrival)}|{stamp(start)}|{stamp(end)}"
        out.append(f"{jid}|{jid}|batch|{span}|{hms(job.estimate)}|{job.size}|{nodes}|{state}")
        out.append(f"{jid}.batch|{jid}.batch||{stamp(start)}|{stamp(start)}|{stamp(end)}||1|"
                   f"{node_name(int(result.placements[jid][0]))}|{state}")
        out.append(f"{jid}.extern|{jid}.extern||{stamp(start)}|{stamp(start)}|{stamp(end)}||{job.size}|{nodes}|"
                   "COMPLETED")
    path.write_text("\n".join(out) + "\n")


def score(result, label: str) -> dict:
    multi = result.granted > 1
    return {"label": label, "jobs": len(result), "leaves": float(result.leaf_switches.mean()),
            "one_leaf": float((result.leaf_switches[multi] == 1).mean()), "hops": float(result.mean_hops[multi].mean()),
            "wait": float(result.wait.mean()), "result": result}


def figure(rows: list[dict], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure")
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    most = max(int(r["result"].leaf_switches.max()) for r in rows)
    edges = np.arange(1, most + 2)
    width = 0.8 / len(rows)
    for k, r in enumerate(rows):
        multi = r["result"].granted > 1
        counts = np.bincount(r["result"].leaf_switches[multi], minlength=most + 1)[1:]
        left.bar(edges[:-1] + (k - (len(rows) - 1) / 2) * width, counts / counts.sum(), width, label=r["label"])
        sizes = r["result"].granted
        keep = sizes > 1
        by = sorted(set(sizes[keep].tolist()))
        right.plot(by, [float(r["result"].mean_hops[keep][sizes[keep] == s].mean()) for s in by], marker="o",
                   label=f"{r['label']} (mean {r['hops']:.2f})")
    left.set_xlabel("leaf switches a job spans")
    left.set_ylabel("share of multi-node jobs")
    left.set_title("Leaf switches per multi-node job")
    left.legend()
    right.set_xscale("log", base=2)
    right.set_xlabel("job size (nodes)")
    right.set_ylabel("mean hops between its nodes")
    right.set_title("Mean hops by job size")
    right.legend(fontsize=8)
    fig.suptitle("Synthetic site: recorded placements vs allocators on the same jobs (EASY)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="slurm_site_replay", help="folder for the files (default: ./slurm_site_replay)")
    ap.add_argument("--jobs", type=int, default=2000, help="jobs submitted (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic site log (default 1)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    conf, log = out / "topology.conf", out / "sacct.txt"
    conf.write_text(topology_conf())
    write_log(log, production_jobs(args.jobs, args.seed), args.seed)

    tree = read_tree_file(conf)
    trace = read_sacct(log, tree)
    print(f"site: {tree.size} nodes, {len(tree.leaf_switch_ids)} leaf switches ({conf})")
    print(f"log: {trace.report}")
    rows = [score(replay_recorded(trace), "recorded")]
    leaf_level = tree.levels[-2]  # the leaf switches' level of the file's tree
    as_kueue = [dataclasses.replace(j, request=TreeRequest(j.size, preferred=leaf_level)) if j.size > 1 else j
                for j in trace]
    for allocator, jobs in ((SlurmTree, trace), (KueueTAS, as_kueue), (FirstFree, trace)):
        rows.append(score(simulate(allocator(tree), "EASY", jobs, jobs=None, record_placement=True),
                          allocator.__name__))
    print(f"\n{'placement':<12}{'jobs':>6}{'leaf sw./job':>14}{'one leaf':>10}{'mean hops':>11}{'mean wait s':>13}")
    for r in rows:
        print(f"{r['label']:<12}{r['jobs']:>6}{r['leaves']:>14.2f}{r['one_leaf']:>10.1%}{r['hops']:>11.2f}"
              f"{r['wait']:>13.0f}")
    print("(one leaf and mean hops over the multi-node jobs)")
    for r in rows:
        (path,) = export(r["result"], "batsim", out, export_name(r["label"], "EASY" if r["label"] != "recorded" else
                                                                  "log"), jobs=trace, workload_name="site")
        print(f"schedule: {path}")
    drawn = figure(rows, out / "slurm_site_replay.png")
    if drawn is not None:
        print(f"figure: {drawn}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
