"""Scheduling policies and their registry.

>>> from scheduling import policies
>>> policies.get("RSR-2").name, policies.get("limit-5").name
('RSR-2', 'Limit-5')
"""

from .base import Policy
from .fcfs import FCFS
from .folding import RSR, AverageLimit, FoldingRule, GreedyLimit, Limit, NoFold
from .registry import UnknownPolicyError, describe, get, names, register

register("FCFS", lambda: FCFS(), help="first come first served, no folding (seed 002, seed 000 §2.2.1)")
register("RSR", lambda t: FCFS(RSR(t)), param="int", help="FCFS with restricted size reduction (seed 002 §3.2)")
register("Limit", lambda k: FCFS(Limit(k)), param="int", help="FCFS with Yu & Das limit-k folding")
register("Greedy", lambda: FCFS(GreedyLimit()), help="FCFS folding as far as needed (seed 002 §4.4)")
register("Average", lambda: FCFS(AverageLimit()), help="FCFS with Yu & Das average limit (interpreted)")

__all__ = [
    "Policy",
    "FCFS",
    "FoldingRule",
    "NoFold",
    "RSR",
    "Limit",
    "GreedyLimit",
    "AverageLimit",
    "register",
    "get",
    "names",
    "describe",
    "UnknownPolicyError",
]
