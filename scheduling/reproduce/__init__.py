"""The papers' claims, each defined once: the reduced-size tests and ``topoalloc reproduce`` run the
same definitions (see :mod:`scheduling.reproduce.claims`).

>>> from scheduling.reproduce import claims
>>> [c.id for c in claims("002")][:2]
['002-fig2-one-fold', '002-fig4-limit-0-vs-rsr-7']
"""

from .claims import (
                     PAPER_MODULES,
                     Claim,
                     Outcome,
                     Size,
                     UnknownClaimError,
                     claims,
                     estimate,
                     papers,
                     register,
                     run_claim,
)
from .report import DOC_PATH, Result, document, markdown_table, run_claims, verdict

__all__ = ["Claim", "Outcome", "Size", "register", "run_claim", "claims", "papers", "estimate", "PAPER_MODULES",
           "UnknownClaimError", "Result", "run_claims", "verdict", "markdown_table", "document", "DOC_PATH"]
