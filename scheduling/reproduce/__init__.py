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

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys(("Claim", "Outcome", "Size", "UnknownClaimError", "claims", "estimate", "papers", "register",
                     "run_claim"), "claims"),
    "PAPER_MODULES": "_papers",
    **dict.fromkeys(("DOC_PATH", "Result", "document", "markdown_table", "run_claims", "verdict"), "report"),
}


__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS, modules=(), shadowed="claims")
