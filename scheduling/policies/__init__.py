"""Scheduling policies and their registry.

>>> from scheduling import policies
>>> policies.get("RSR-2").name, policies.get("limit-5").name
('RSR-2', 'Limit-5')
"""

from .backfilling import EASY, Conservative  # registers EASY and Conservative backfilling (seed 004 §2.2)
from .base import Policy
from .downey import ASP, DowneyStrategy  # registers Downey's strategies (seed 001)
from .efficiency import APEQUI, EQUALEFF, EQUI, OPTEFF, STEQUALEFF, STEQUI  # seed 003
from .fcfs import FCFS
from .folding import RSR, AverageLimit, FoldingRule, GreedyLimit, Limit, NoFold
from .gang import Gang  # registers DHC gang scheduling (seed 004 §2.3-2.6)
from .ismail_dynamic import DEQP, DFCFS, DPROP, DPROPSH, DPROPSM, DSMJF, DynamicPolicy  # seed 000 ch. 4
from .ismail_static import EPFP, AdaptiveFolding, FirstFitQueue, UnlimitedFolding  # registers seed 000 static
from .recorded import Recorded, RecordedScheduleError  # registers a trace's recorded schedule (seed 004 §5)
from .registry import ANY_ALLOCATOR, PolicyFamily, UnknownPolicyError, describe, families, get, names, register, suggest

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
    "families",
    "suggest",
    "PolicyFamily",
    "ANY_ALLOCATOR",
    "UnknownPolicyError",
    "FirstFitQueue",
    "UnlimitedFolding",
    "EPFP",
    "AdaptiveFolding",
    "DowneyStrategy",
    "ASP",
    "DynamicPolicy",
    "DEQP",
    "DPROP",
    "DPROPSM",
    "DPROPSH",
    "DFCFS",
    "DSMJF",
    "EQUI",
    "APEQUI",
    "STEQUI",
    "EQUALEFF",
    "STEQUALEFF",
    "OPTEFF",
    "EASY",
    "Conservative",
    "Gang",
    "Recorded",
    "RecordedScheduleError",
]
