"""Package attributes imported from their submodule on first access (PEP 562), shared by the
packages whose modules only some commands need (``policies``, ``workloads``, ``experiments``,
``reproduce``): a command line start then imports only what the command uses.

>>> import scheduling.policies as policies
>>> policies.Gang.__module__, "Gang" in dir(policies)
('scheduling.policies.gang', True)
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["attach"]


def attach(name: str, attrs: dict[str, str], *, modules: Iterable[str] | None = None,
           shadowed: str | None = None) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package ``name``: ``attrs`` maps each lazily imported
    public name to the submodule defining it (or, written with a leading dot, to a module named
    relative to the package: ``"..formats.swf_load"``, for a name a package re-exports from
    another); ``modules`` are the submodules that are attributes too (default: those of ``attrs``
    that are submodules). A value is imported on first access and then kept in the package's
    namespace, so later accesses cost nothing.

    ``shadowed``: a submodule named like the function it defines (``workloads.ismail_dynamic``,
    ``reproduce.claims``). The import system binds a submodule to its package once it is
    imported, which would replace the function; the package's module type keeps the function
    there instead, as importing the function eagerly did."""
    package = sys.modules[name]
    submodules = frozenset(m for m in (attrs.values() if modules is None else modules) if not m.startswith("."))

    def __getattr__(attr: str) -> Any:
        if attr in attrs:
            where = attrs[attr]
            module = importlib.import_module(where, name) if where.startswith(".") else \
                importlib.import_module(f"{name}.{where}")
            value = getattr(module, attr)
        elif attr in submodules:
            value = importlib.import_module(f"{name}.{attr}")
        else:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        setattr(package, attr, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(package)) | set(attrs) | submodules)

    if shadowed is not None:
        class _Package(types.ModuleType):
            def __setattr__(self, attr: str, value: Any) -> None:
                if attr == shadowed and isinstance(value, types.ModuleType):
                    value = getattr(value, shadowed)
                super().__setattr__(attr, value)

        package.__class__ = _Package
    return __getattr__, __dir__
