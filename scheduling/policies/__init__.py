"""Scheduling policies and their registry.

The policy classes of the papers' other families (``EASY``, ``Gang``, ``DEQP``, ...) are attributes
of this package, imported from their modules on first access (PEP 562), as :func:`get` imports a
family's module on first use: ``import scheduling`` does not pay for every policy module.

>>> from scheduling import policies
>>> policies.get("RSR-2").name, policies.get("limit-5").name
('RSR-2', 'Limit-5')
"""

from .._lazy import attach
from .base import Policy
from .fcfs import FCFS
from .folding import RSR, AverageLimit, FoldingRule, GreedyLimit, Limit, NoFold
from .registry import (
    ANY_ALLOCATOR,
    PolicyFamily,
    UnknownPolicyError,
    describe,
    families,
    get,
    load_all,
    names,
    register,
    suggest,
)

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
    "load_all",
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

#: Policy classes defined in the lazily imported modules: attribute -> module.
_LAZY_ATTRS = {
    **dict.fromkeys(("EASY", "Conservative"), "backfill"),  # seed 004 §2.2
    **dict.fromkeys(("ASP", "DowneyStrategy"), "downey"),  # seed 001
    **dict.fromkeys(("EQUI", "APEQUI", "STEQUI", "EQUALEFF", "STEQUALEFF", "OPTEFF"), "efficiency"),  # seed 003
    "Gang": "gang",  # seed 004 §2.3-2.6
    **dict.fromkeys(("DynamicPolicy", "DEQP", "DPROP", "DPROPSM", "DPROPSH", "DFCFS", "DSMJF"),
                    "ismail_dynamic"),  # seed 000 ch. 4
    **dict.fromkeys(("FirstFitQueue", "UnlimitedFolding", "EPFP", "AdaptiveFolding"), "ismail_static"),  # seed 000
    **dict.fromkeys(("Recorded", "RecordedScheduleError"), "recorded"),  # seed 004 §5: a trace's own schedule
}
__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS)
