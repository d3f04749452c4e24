"""Workloads for switch trees: the kueue#4634 scenario (blocks of racks, small jobs and hero jobs).

kubernetes-sigs/kueue#4634 reports the fragmentation topology-aware admission meets on a cluster of
blocks of racks of hosts: small jobs scattered over the blocks leave no whole block free for the
rare job that needs one, though the quota says it fits. :func:`kueue_tree` is that machine (2
blocks x 10 racks x 64 hosts, 1,280 nodes, levels ``block``, ``rack``, ``host``) and
:func:`hero_mix` its workload: Poisson arrivals of :class:`~scheduling.workloads.HeroMix` node
counts (80% of 1..64 nodes, 18% of 65..320, 2% heroes of 640 or 1,280), exponential run times of
mean one hour, optionally with topology constraints attached by a rule
(:mod:`scheduling.workloads.constraints`; e.g. :class:`~scheduling.workloads.LevelBySize`: rack
for jobs up to a rack, block up to a block, as Kueue's ``podset-required-topology`` would be
used). ``examples/tree_blocks.toml`` runs it for every tree allocator under FCFS and EASY.
"""

from __future__ import annotations

from typing import Any

from topologies import SwitchTree

from .._validate import check_real
from .distributions import Exponential, HeroMix

__all__ = ["KUEUE_4634_LEVELS", "KUEUE_4634_NAMES", "kueue_tree", "hero_mix"]

#: The kueue#4634 tree: blocks, racks per block, hosts per rack.
KUEUE_4634_LEVELS = (2, 10, 64)
#: Its level names below the root.
KUEUE_4634_NAMES = ("block", "rack", "host")


def kueue_tree() -> SwitchTree:
    """``SwitchTree.uniform((2, 10, 64), names=("block", "rack", "host"))``: 1,280 nodes.

    >>> kueue_tree().size, kueue_tree().levels
    (1280, ('cluster', 'block', 'rack', 'host'))
    """
    return SwitchTree.uniform(KUEUE_4634_LEVELS, names=KUEUE_4634_NAMES)


def hero_mix(load: float = 0.7, *, tree: SwitchTree | None = None, service: Any = None, constraints: Any = None,
             p_medium: float = 0.18, p_hero: float = 0.02) -> Any:
    """The kueue#4634 workload at offered ``load`` on ``tree`` (default :func:`kueue_tree`):
    :class:`~scheduling.workloads.HeroMix` node counts scaled to the tree
    (:meth:`~scheduling.workloads.HeroMix.for_tree`: on the default tree 80% of jobs on 1..64
    nodes, ``p_medium`` = 18% on 65..320, ``p_hero`` = 2% heroes of 640 or 1,280 nodes), run times
    from ``service`` (default exponential with mean 3,600: one hour, in seconds, the unit of a
    switches ``wait``), Poisson arrivals at the rate that offers ``load`` (on the requested
    nodes). With ``constraints`` (a rule of :mod:`scheduling.workloads.constraints`) the jobs carry
    the requests the rule makes (:class:`~scheduling.workloads.Constrained`). Endless: simulate it
    with ``jobs=`` or ``until=``.

    >>> from scheduling import simulate
    >>> from scheduling.workloads import LevelBySize
    >>> from topoalloc.tree import FirstFree
    >>> w = hero_mix(0.5, constraints=LevelBySize())
    >>> r = simulate(FirstFree(kueue_tree()), "FCFS", w, jobs=300, seed=1)
    >>> s = r.summary(); s["jobs"], s["mean_leaf_switches"] >= 1.0, s["blocked_by_topology"] >= 0.0
    (300, True, True)
    """
    from .constraints import Constrained
    from .synthetic import Synthetic

    check_real(load, "load", low=0, low_open=True)
    tree = kueue_tree() if tree is None else tree
    if not isinstance(tree, SwitchTree):
        raise TypeError(f"hero_mix runs on a SwitchTree, got {tree!r}")
    sizes = HeroMix.for_tree(tree, p_medium=p_medium, p_hero=p_hero)
    work = Synthetic(sizes, Exponential(3600.0) if service is None else service, load=load, machine_size=tree.size)
    return work if constraints is None else Constrained(work, constraints, tree)
