"""Policies by the names the papers use.

``get("RSR-1")`` returns a fresh policy object; parameterised names (``RSR-3``, ``Limit-6``,
``DPROP-SM/2``) are parsed as a family plus a number after the last ``-`` or ``/``. Every policy
module registers its families here with :func:`register`, saying what each needs (``needs``: the
allocator or topology, and what the jobs must carry), which :func:`families` and ``topoalloc
list`` show. An unknown name raises :class:`UnknownPolicyError` suggesting the closest names.

>>> get("RSR1")
Traceback (most recent call last):
...
scheduling.policies.registry.UnknownPolicyError: unknown policy 'RSR1'; did you mean RSR-1? \
(scheduling.policies.names() lists every family; on the command line: topoalloc list)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from .base import Policy

__all__ = ["register", "get", "names", "describe", "families", "suggest", "PolicyFamily", "UnknownPolicyError",
           "ANY_ALLOCATOR"]

#: What most policies need: nothing beyond the allocator surface.
ANY_ALLOCATOR = "any allocator (mesh, cube, DHC tree or flat pool)"


class UnknownPolicyError(KeyError):
    """No registered policy has this name; the message suggests the closest names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class PolicyFamily:
    """A registered family: its ``name``, ``factory``, the number its name takes (``param``:
    ``"int"``, ``"float"`` or ``None``), a one-line ``help`` and what it ``needs`` to run (the
    allocator or topology, and any job attributes)."""

    name: str
    factory: Callable[..., Policy]
    param: str | None
    help: str
    needs: str = ANY_ALLOCATOR

    @property
    def pattern(self) -> str:
        """The name as :func:`names` lists it (``RSR-<int>`` for a parameterised family)."""
        return self.name if self.param is None else f"{self.name}-<{self.param}>"


_FAMILIES: dict[str, PolicyFamily] = {}


def register(name: str, factory: Callable[..., Policy], *, param: str | None = None, help: str = "",
             needs: str = ANY_ALLOCATOR) -> None:
    """Register a policy family. ``param`` is ``"int"`` or ``"float"`` if the name takes a number
    (``RSR-<int>``), else ``None``; ``needs`` says what it runs on (default: any allocator).
    Re-registering a name replaces it."""
    if param not in (None, "int", "float"):
        raise ValueError(f"param must be None, 'int' or 'float', got {param!r}")
    _FAMILIES[name.upper()] = PolicyFamily(name, factory, param, help, needs)


def families() -> list[PolicyFamily]:
    """The registered families, sorted by name (case-insensitive)."""
    return sorted(_FAMILIES.values(), key=lambda f: f.name.upper())


def names() -> list[str]:
    """The registered families, as written (parameterised ones with a placeholder: ``RSR-<t>``)."""
    return sorted((fam.pattern for fam in _FAMILIES.values()), key=str.upper)


def describe() -> dict[str, str]:
    """Family name -> one-line description."""
    return {fam.name: fam.help for fam in _FAMILIES.values()}


_NUMBER = re.compile(r"^(?P<family>.+?)[-/](?P<value>\d+(?:\.\d+)?)$")
_TRAILING = re.compile(r"^(?P<family>.*?)[-/ ]?(?P<value>\d+(?:\.\d+)?)$")


def suggest(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` registered names closest to ``name`` (``"RSR1"`` -> ``["RSR-1"]``), keeping a
    number the name ends with for the families that take one.

    >>> suggest("rsr1"), suggest("limit 5"), suggest("MFF")
    (['RSR-1'], ['Limit-5'], ['MFFF', 'FF', 'MFSJF'])
    """
    text = str(name).strip()
    m = _TRAILING.match(text)
    number = m.group("value") if m and m.group("family") else None
    if number is not None and "." in number:
        number_int = None
    else:
        number_int = number
    candidates: dict[str, str] = {}
    for fam in _FAMILIES.values():
        if fam.param is None:
            candidates[fam.name.upper()] = fam.name
            continue
        value = number if fam.param == "float" else number_int
        spelled = f"{fam.name}-{value}" if value is not None else fam.pattern
        candidates[spelled.upper()] = spelled
    found = difflib.get_close_matches(text.upper(), list(candidates), n=n, cutoff=0.6)
    return [candidates[c] for c in found]


def get(name: str) -> Policy:
    """A fresh policy for ``name`` (case-insensitive); :class:`UnknownPolicyError` (suggesting the
    closest names) if there is none, :class:`ValueError` if the parameter is bad."""
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
    if fam is not None and fam.param is not None:  # the family without its number
        raise UnknownPolicyError(f"policy {fam.name} takes a number: {fam.pattern} (e.g. {fam.name}-1)")
    close = suggest(name)
    hint = ""
    if close:
        hint = f"; did you mean {close[0] if len(close) == 1 else ', '.join(close[:-1]) + ' or ' + close[-1]}?"
    raise UnknownPolicyError(f"unknown policy {name!r}{hint} (scheduling.policies.names() lists every family; "
                             "on the command line: topoalloc list)")
