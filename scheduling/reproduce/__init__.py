"""The papers' claims, each defined once: the reduced-size tests and ``topoalloc reproduce`` run the
same definitions (see :mod:`scheduling.reproduce.claims`).

>>> from scheduling.reproduce import claims
>>> [c.id for c in claims("002")][:2]
['002-fig2-one-fold', '002-fig4-limit-0-vs-rsr-7']

Each name is imported from its module on first access (PEP 562): every command line start builds
the ``reproduce`` subcommand's parser, which needs only :data:`PAPER_MODULES`.
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

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


class _Package(types.ModuleType):
    """This package's module type. The submodule :mod:`.claims` has the name of the function it
    defines; binding the submodule to the package once it is imported (what the import system
    does) keeps the function there instead, as importing the function eagerly did."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "claims" and isinstance(value, types.ModuleType):
            value = value.claims
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name not in _LAZY_ATTRS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY_ATTRS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_ATTRS))
