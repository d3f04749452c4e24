"""``topoalloc list``: the names a command line or a study file may use -- allocators by topology kind,
topology forms, constraint rules, policies by what they need, workload distributions and models.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._args import add_subcommand

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``list`` to the sub-command parsers ``sub``."""
    add_subcommand(sub, "list", "list the allocators (and which are missing), the policies with what each needs, "
                                "and the workload distributions and models", "  topoalloc list")


def command(args: argparse.Namespace) -> int:
    from topoalloc import registry as allocators

    from .. import policies
    from ..experiments import registry as reg
    from ..workloads.constraints import RULE_SYNTAX

    print("allocators (topology kind):")
    for name in allocators.names():
        entry = allocators.entry(name)
        print(f"  {name:<19} {entry.kind:<5} {entry.help}")
    print("\ntopologies (--topology, or topology = ... in a file), and the allocators of each kind:")
    forms = {"mesh": "mesh:WxH", "cube": "cube:D", "flat": "flat:P",
             "tree": "tree:AxBx..xN[:names], fattree:K,N, tree:FILE (.conf, .yaml, .csv)"}
    for kind in allocators.KINDS:
        print(f"  {forms.get(kind, kind + ':...')}: {', '.join(allocators.names(kind)) or '(none registered)'}")
    print(f"\nconstraint rules on a tree (--constraints, or a [constraints] table): {', '.join(RULE_SYNTAX)}")
    print("\npolicies, by what they need:")
    groups: dict[str, list[Any]] = {policies.ANY_ALLOCATOR: []}
    for fam in policies.families():
        groups.setdefault(fam.needs, []).append(fam)
    for needs, fams in groups.items():
        if fams:
            print(f"  needs {needs}:")
        for fam in fams:
            print(f"    {_policy_pattern(fam):<30} {fam.help}")
    print("\nworkload distributions:")
    for role in ("sizes", "service", "speedup"):
        print(f"  {role}: {', '.join(reg.distribution_names(role))}" + (", auto" if role == "sizes" else ""))
    print("\nworkload models ([workload] model = {name = ..., parameter = ...}):")
    for name, model in reg.WORKLOAD_MODELS.items():
        print(f"  {name:<14} ({', '.join(reg.workload_model_params(name))}) {model.help}")
    return 0


def _policy_pattern(fam: Any) -> str:
    """How ``topoalloc list`` writes a policy family: as its policies name themselves (``DPROP-SM/x``,
    ``AVG-hybrid/x``, as the README writes them) when they put the number after a ``/``, else the
    family's pattern (``RSR-<int>``). Both spellings are accepted as policy names."""
    from .. import policies

    if fam.param == "float":
        try:
            if policies.get(f"{fam.name}-0.5").name == f"{fam.name}/0.5":
                return f"{fam.name}/x"
        except Exception:  # a family whose policies cannot be built without more: its pattern
            pass
    return fam.pattern
