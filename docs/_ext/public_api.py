"""API pages generated from the packages' public ``__all__``, not from module paths.

A page holds ``.. public-api:: PACKAGE``; the directive documents every name of ``PACKAGE.__all__``
whose *home* is that package, and lists the others as links to their home. The home of a class or
function is the documented package exporting it whose dotted name is the longest prefix of the
object's ``__module__`` (``topoalloc.Buddy`` is defined in ``topoalloc.hypercube.buddy``: its home is
``topoalloc.hypercube``, and ``topoalloc``'s page links there); an object defined outside every
exporting package lives in the most specific one. Data (constants, type aliases) is documented where it
is exported, except when a documented sub-package exports the same object under the same name.
Modules moving inside a package change nothing here, only a package's ``__all__`` does.

Cross-references in docstrings are written the way their module sees the names (``:class:`Allocator```
inside ``topoalloc.hypercube.buddy``, ``:mod:`topoalloc.registry```). The ``missing-reference``
handler resolves what the Python domain could not:

1. the target is imported as written -- from the referring class and the classes of its method
   resolution order, from the module where the documented object (the docstring's or signature's
   owner) is defined, from the current module, then as an absolute dotted path (Python's own name
   lookup, in that order); a name that only an import for type checkers brings in is found when
   exactly one project module defines it; a dataclass field without a default counts as its class;
2. what was found links to the documented name of that very object (by identity), so every alias
   reaches the one description; a module that is not documented itself (``topoalloc.registry``)
   links to the documented package holding it; a private member of a documented class links to the
   class;
3. an object that exists but is outside the public API (a private helper) is shown by name, unlinked:
   the reference is right, there is just no page for it;
4. a target that no lookup finds links to the one documented object whose name ends with it, if
   there is exactly one; otherwise it stays broken, and ``-n -W`` fails the build.

Interpretation: nitpicky mode is there to catch references to nothing (a typo, a renamed or removed
object); step 3 accepts references to real objects that the public reference does not describe.

Complexity: a few imports and ``getattr`` chains per unresolved reference (one scan of the loaded
project modules for step 1's type-checking names); the identity map of the documented objects is built
once per build (one ``getattr`` chain per documented name).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import sys
from types import ModuleType
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docstrings import prepare_docstring
from sphinx.util.docutils import SphinxDirective
from sphinx.util.inspect import object_description
from sphinx.util.nodes import nested_parse_with_titles

_KIND_ORDER = ("class", "exception", "function", "data")
LOGGER = logging.getLogger(__name__)


def _kind(obj: Any) -> str:
    if inspect.ismodule(obj) or type(obj).__name__ == "_Package":
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "function"
    return "data"


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def available_packages(names: list[str]) -> list[str]:
    """The packages of ``names`` that import (optional ones such as ``scheduling.formats`` may not exist yet)."""
    out = []
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and _within(name, exc.name):
                continue  # the package itself is absent, not one of its imports
            raise
        out.append(name)
    return out


def _public(package: str) -> dict[str, Any]:
    mod = importlib.import_module(package)
    return {name: getattr(mod, name) for name in getattr(mod, "__all__", ())}


def home(package: str, name: str, obj: Any, packages: list[str]) -> str:
    """The documented package where ``package.name`` (the object ``obj``) is described."""
    kind = _kind(obj)
    if kind == "module":
        target = getattr(obj, "__name__", f"{package}.{name}")
        return target if target in packages else package
    exporters = [p for p in packages if any(v is obj for v in _public(p).values())]
    if kind == "data":
        deeper = [p for p in exporters if p != package and _within(p, package) and _public(p).get(name) is obj]
        return max(deeper, key=len) if deeper else package
    module = getattr(obj, "__module__", "") or ""
    inside = [p for p in exporters if _within(module, p)]
    if inside:
        return max(inside, key=len)
    return max(exporters, key=len) if exporters else package


def data_comment(name: str, obj: Any) -> tuple[str | None, list[str]]:
    """The ``#:`` comment documenting the module-level constant ``name`` (the object ``obj``), read
    from the project module that binds it, with that module's name; ``(None, [])`` when none does. A
    constant has no docstring of its own (autodoc would show its type's), so the comment in its
    defining module is its documentation."""
    for modname in sorted(sys.modules):
        if modname.split(".")[0] not in _ROOTS:
            continue
        module = sys.modules[modname]
        if module is None or module.__dict__.get(name, _MISSING) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except PycodeError:
            continue
        if ("", name) in docs:
            return modname, list(docs[("", name)])
    return None, []


_MISSING = object()


class PublicApi(SphinxDirective):
    """``.. public-api:: package``: the package's docstring, then its public names (see the module)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        package = self.arguments[0]
        packages = self.config.public_api_packages_found
        if package not in packages:
            raise self.error(f"public-api: {package!r} is not one of the packages found from conf.py's "
                             f"public_api_packages ({', '.join(packages)})")
        pages: dict[str, str] = self.env.__dict__.setdefault("public_api_pages", {})
        pages[package] = self.env.docname
        public = _public(package)
        own: dict[str, list[str]] = {k: [] for k in _KIND_ORDER}
        elsewhere: list[tuple[str, str, str]] = []
        for name, obj in public.items():
            where = home(package, name, obj, packages)
            kind = _kind(obj)
            if kind == "module":
                elsewhere.append((name, "mod", where))
            elif where == package:
                own[kind].append(name)
            else:
                role = {"class": "class", "exception": "exc", "function": "func"}.get(kind, "data")
                there = next((n for n, v in _public(where).items() if v is obj), name)
                elsewhere.append((name, role, f"{where}.{there}"))
        lines = [f".. automodule:: {package}", "   :no-members:", ""]
        titles = {"class": "Classes", "exception": "Exceptions", "function": "Functions", "data": "Data"}
        for kind in _KIND_ORDER:
            if not own[kind]:
                continue
            lines += [f".. rubric:: {titles[kind]}", ""]
            for name in own[kind]:
                if kind == "data":
                    obj = public[name]
                    lines.append(f".. py:data:: {package}.{name}")
                    value = object_description(obj)
                    if len(value) <= 120:
                        lines.append(f"   :value: {value}")
                    lines.append("")
                    lines += [f"   {line}" for line in data_comment(name, obj)[1]]
                    lines.append("")
                    continue
                directive = {"class": "autoclass", "exception": "autoexception", "function": "autofunction",
                             "data": "autodata"}[kind]
                lines.append(f".. {directive}:: {package}.{name}")
                if kind in ("class", "exception"):
                    lines += ["   :members:", "   :show-inheritance:"]
                lines.append("")
        if elsewhere:
            lines += [".. rubric:: Also exported here", "",
                      f"Documented with the package that defines them; ``from {package} import NAME`` works:", ""]
            for name, role, target in elsewhere:
                lines.append(f"- :py:{role}:`{name} <{target}>`")
            lines.append("")
        content = StringList(lines, source=f"<public-api {package}>")
        container = nodes.container()
        nested_parse_with_titles(self.state, content, container)
        return container.children


class ModuleDocOf(SphinxDirective):
    """``.. module-doc-of:: package.name``: the docstring of the module that defines the public object
    ``package.name`` -- a module's prose (an experiment file's schema, say) shown on a page without
    naming a module path that may move. References in it resolve from that module."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        found = _resolve_object(self.arguments[0], [])
        if found is None:
            raise self.error(f"module-doc-of: cannot import {self.arguments[0]!r}")
        module = sys.modules[found[0].__module__]
        lines = prepare_docstring(module.__doc__ or "")
        context = self.env.ref_context
        saved = context.get("py:module")
        context["py:module"] = module.__name__
        try:
            container = nodes.container()
            nested_parse_with_titles(self.state, StringList(lines, source=f"docstring of {module.__name__}"),
                                     container)
        finally:
            if saved is None:
                context.pop("py:module", None)
            else:
                context["py:module"] = saved
        return container.children


def _resolve_object(target: str, modules: list[str]) -> tuple[Any, Any] | None:
    """``(object, its parent)`` for the object ``target`` names, looked up from each of ``modules``
    then absolutely; None when no lookup finds it. A dataclass field without a class-level default
    (``SWFReport.clamped``) is found as ``(_FIELD, the class)``."""
    for base in [*modules, ""]:
        path = f"{base}.{target}" if base else target
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj: Any = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            except Exception:  # noqa: BLE001 - a module failing to import is not this reference's business
                break
            parent = None
            rest = parts[cut:]
            try:
                for i, attr in enumerate(rest):
                    if (i == len(rest) - 1 and inspect.isclass(obj) and not hasattr(obj, attr)
                            and any(attr in getattr(c, "__annotations__", {}) for c in obj.__mro__)):
                        return _FIELD, obj
                    parent, obj = obj, getattr(obj, attr)
            except AttributeError:
                break
            return obj, parent
    return None


_FIELD = object()


def _context(node: nodes.Element) -> list[str]:
    """Where the names of the docstring or signature holding ``node`` are looked up: the documented
    object's defining module (and, for a class, each class of its method resolution order)."""
    out: list[str] = []
    where = re.search(r"docstring of ([\w.]+)", node.source or "")
    if where:  # autodoc names the object by its defining module in the node's source
        parts = where.group(1).split(".")
        out += [".".join(parts[:cut]) for cut in range(len(parts) - 1, 0, -1)]
    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.desc):
            for sig in parent.findall(addnodes.desc_signature):
                full = ".".join(filter(None, (sig.get("module"), sig.get("fullname"))))
                found = _resolve_object(full, []) if full else None
                if found is None:
                    continue
                obj = found[0]
                if parent.get("objtype") == "data":
                    module, _ = data_comment(full.rsplit(".", 1)[-1], obj)
                    out += [module] if module else []
                for cls in inspect.getmro(obj) if inspect.isclass(obj) else ():
                    out += [f"{cls.__module__}.{cls.__qualname__}", cls.__module__]
                if not inspect.isclass(obj) and getattr(obj, "__module__", None):
                    out.append(obj.__module__)
                break
        parent = parent.parent
    return out


def _defined_once(name: str) -> Any:
    """The one class or function of the project's loaded modules defined under ``name``, or None: a
    type that an annotation names through an import made only for type checkers."""
    hits = {id(v): v for modname, module in list(sys.modules.items())
            if module is not None and modname.split(".")[0] in _ROOTS
            for v in [module.__dict__.get(name)]
            if (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == modname}
    return next(iter(hits.values())) if len(hits) == 1 else None


_ROOTS = ("topologies", "topoalloc", "scheduling")


_IDS: dict[int, tuple[int, dict[int, tuple[str, str]]]] = {}


def _documented(env: BuildEnvironment) -> dict[int, tuple[str, str]]:
    """id(object) -> (documented full name, object type), built once per build (kept in this
    process, never in the pickled environment: object ids mean nothing in another process)."""
    cache = _IDS.get(id(env))
    if cache is not None and cache[0] == len(env.get_domain("py").objects):
        return cache[1]
    out: dict[int, tuple[str, str]] = {}
    for fullname, entry in env.get_domain("py").objects.items():
        if entry.aliased or entry.objtype == "module":
            continue
        found = _resolve_object(fullname, [])
        if found is not None and not isinstance(found[0], int | float | str | tuple | bool):
            out.setdefault(id(found[0]), (fullname, entry.objtype))
    _IDS[id(env)] = (len(env.get_domain("py").objects), out)
    return out


def missing_reference(app: Sphinx, env: BuildEnvironment, node: nodes.Element,
                      contnode: nodes.Element) -> nodes.Element | None:
    """Resolve a Python reference the domain could not (see the module docstring)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if target.startswith(("~", ".")):
        target = target.lstrip("~.")
    domain = env.get_domain("py")
    modname, clsname = node.get("py:module"), node.get("py:class")
    bases: list[str] = []
    if modname and clsname:
        owner = _resolve_object(f"{modname}.{clsname}", [])
        bases.append(f"{modname}.{clsname}")
        for cls in inspect.getmro(owner[0]) if owner and inspect.isclass(owner[0]) else ():
            bases += [f"{cls.__module__}.{cls.__qualname__}", cls.__module__]
    bases += _context(node)
    if modname:
        bases.append(modname)
    found = _resolve_object(target, bases)
    if found is None and "." not in target and _defined_once(target) is not None:
        found = _defined_once(target), None

    def link(name: str, objtype: str = "obj") -> nodes.Element | None:
        return domain.resolve_xref(env, node["refdoc"], app.builder, objtype, name, node, contnode)

    if found is None:
        # the last resort: one documented object whose name ends with the target
        ends = [name for name, e in domain.objects.items() if not e.aliased and name.endswith("." + target)]
        return link(ends[0]) if len(ends) == 1 else None
    obj, parent = found
    if obj is _FIELD:
        obj, parent = parent, None  # a dataclass field: its class
    if isinstance(obj, ModuleType) or type(obj).__name__ == "_Package":
        name = obj.__name__
        documented = [m for m, e in domain.objects.items() if e.objtype == "module" and _within(name, m)]
        return link(max(documented, key=len), "mod") if documented else contnode
    ids = _documented(env)
    if id(obj) in ids:
        return link(ids[id(obj)][0])
    if parent is not None and id(parent) in ids:
        return link(ids[id(parent)][0])  # a private or undocumented member: its documented class
    return contnode  # it exists, outside the public API (a private helper): named, not linked


def dataclass_signature(app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None,
                        return_annotation: str | None) -> tuple[str | None, str | None] | None:
    """Write a dataclass field's ``default_factory`` as a call (``values: dict = dict()``) where the
    signature says ``<factory>``, which is not Python: Sphinx would then split the parameters at every
    comma, breaking ``dict[str, Any]`` into unresolvable parts."""
    if not signature or "<factory>" not in signature or not dataclasses.is_dataclass(obj):
        return None
    for f in dataclasses.fields(obj):
        if f.default_factory is not dataclasses.MISSING:
            factory = getattr(f.default_factory, "__qualname__", "factory")
            signature = re.sub(r"\s*=\s*<factory>", f" = {factory}()", signature, count=1)
    return signature, return_annotation


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    pages = env.__dict__.get("public_api_pages", {})
    for package in [p for p, d in pages.items() if d == docname]:
        del pages[package]


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    env.__dict__.setdefault("public_api_pages", {}).update(other.__dict__.get("public_api_pages", {}))


def _every_package_has_a_page(app: Sphinx, env: BuildEnvironment) -> None:
    """A package of ``public_api_packages`` that exists but has no ``public-api`` page is a warning
    (an error under ``-W``): a new package (``topoalloc.grid``, ``scheduling.formats``) is not left
    out of the reference silently."""
    pages = env.__dict__.get("public_api_pages", {})
    for package in app.config.public_api_packages_found:
        if package not in pages:
            LOGGER.warning("public-api: the package %s exists but no page documents it (add api/%s.rst with "
                           "'.. public-api:: %s' and list it in api/index.md)", package, package, package,
                           type="public_api", subtype="missing")


def _find_packages(app: Sphinx, config: Any) -> None:
    config.public_api_packages_found = available_packages(list(config.public_api_packages))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("public_api_packages", [], "env")
    app.add_config_value("public_api_packages_found", [], "env")
    app.connect("config-inited", _find_packages)
    app.add_directive("public-api", PublicApi)
    app.add_directive("module-doc-of", ModuleDocOf)
    app.connect("missing-reference", missing_reference)
    app.connect("autodoc-process-signature", dataclass_signature)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _every_package_has_a_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
