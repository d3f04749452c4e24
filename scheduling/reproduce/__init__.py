"""The papers' claims, each defined once: the reduced-size tests and ``topoalloc reproduce`` run the
same definitions (see :mod:`scheduling.reproduce.claims`).

>>> from scheduling.reproduce import claims
>>> [c.id for c in claims("002")][:2]
['002-fig2-one-fold', '002-fig4-limit-0-vs-rsr-7']

Each name is imported from its module on first access (PEP 562): every command line start builds
the ``reproduce`` subcommand's parser, which needs only :data:`PAPER_MODULES`.
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:
    from ._papers import PAPER_MODULES
    from .claims import (
        NOT_SIGNIFICANT,
        SEED_PAPERS,
        Claim,
        Expectation,
        Outcome,
        Reading,
        Size,
        UnknownClaimError,
        claims,
        estimate,
        papers,
        register,
        run_claim,
    )
    from .judge import Check, bound, fact, judged, ordering, paired, within
    from .report import DOC_PATH, Result, document, markdown_table, reading_verdicts, run_claims, summary_table, verdict

__all__ = ["Claim", "Outcome", "Reading", "Expectation", "Size", "register", "run_claim", "claims", "papers",
           "estimate", "PAPER_MODULES", "SEED_PAPERS", "NOT_SIGNIFICANT", "UnknownClaimError", "Result", "run_claims",
           "verdict", "reading_verdicts", "markdown_table", "summary_table", "document", "DOC_PATH",
           "Check", "ordering", "paired", "bound", "within", "fact", "judged"]

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys(("Claim", "Outcome", "Reading", "Expectation", "Size", "UnknownClaimError", "claims", "estimate",
                     "papers", "register", "run_claim", "SEED_PAPERS", "NOT_SIGNIFICANT"), "claims"),
    **dict.fromkeys(("Check", "ordering", "paired", "bound", "within", "fact", "judged"), "judge"),
    "PAPER_MODULES": "_papers",
    **dict.fromkeys(("DOC_PATH", "Result", "document", "markdown_table", "run_claims", "verdict", "reading_verdicts",
                     "summary_table"), "report"),
}


__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS, modules=(), shadowed="claims")
