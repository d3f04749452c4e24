"""Policies by the names the papers use.

``get("RSR-1")`` returns a fresh policy object; parameterised names (``RSR-3``, ``Limit-6``,
``DPROP-SM/2``) are parsed as a family plus a number after the last ``-`` or ``/``. Every policy
module registers its families here with :func:`register`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .base import Policy

__all__ = ["register", "get", "names", "describe", "UnknownPolicyError"]


class UnknownPolicyError(KeyError):
    """No registered policy has this name; the message lists the known families."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class _Family:
    name: str
    factory: Callable[..., Policy]
    param: str | None  # "int", "float" or None
    help: str


_FAMILIES: dict[str, _Family] = {}


def register(name: str, factory: Callable[..., Policy], *, param: str | None = None, help: str = "") -> None:
    """Register a policy family. ``param`` is ``"int"`` or ``"float"`` if the name takes a number
    (``RSR-<int>``), else ``None``. Re-registering a name replaces it."""
    if param not in (None, "int", "float"):
        raise ValueError(f"param must be None, 'int' or 'float', got {param!r}")
    _FAMILIES[name.upper()] = _Family(name, factory, param, help)


def names() -> list[str]:
    """The registered families, as written (parameterised ones with a placeholder: ``RSR-<t>``)."""
    out = []
    for fam in _FAMILIES.values():
        out.append(fam.name if fam.param is None else f"{fam.name}-<{fam.param}>")
    return sorted(out, key=str.upper)


def describe() -> dict[str, str]:
    """Family name -> one-line description."""
    return {fam.name: fam.help for fam in _FAMILIES.values()}


_NUMBER = re.compile(r"^(?P<family>.+?)[-/](?P<value>\d+(?:\.\d+)?)$")


def get(name: str) -> Policy:
    """A fresh policy for ``name`` (case-insensitive); :class:`UnknownPolicyError` lists the known
    names if there is none, :class:`ValueError` if the parameter is bad."""
    if isinstance(name, Policy):
        return name
    if not isinstance(name, str):
        raise TypeError(f"a policy name must be a string, got {name!r}")
    fam = _FAMILIES.get(name.strip().upper())
    if fam is not None and fam.param is None:
        return fam.factory()
    m = _NUMBER.match(name.strip())
    if m:
        fam = _FAMILIES.get(m.group("family").upper())
        if fam is not None and fam.param is not None:
            raw = m.group("value")
            if fam.param == "int" and "." in raw:
                raise ValueError(f"policy {name!r}: {fam.name} takes an integer, got {raw}")
            return fam.factory(int(raw) if fam.param == "int" else float(raw))
    raise UnknownPolicyError(f"unknown policy {name!r}; known: {', '.join(names())}")
