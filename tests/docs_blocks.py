"""Run the code blocks of Markdown pages (the README, the documentation site) as tests.

**Every ```python block runs**, each in a fresh namespace in a temporary working directory, unless an
HTML comment on the line just before its fence says why not: ``<!-- no-run: the reason -->`` (the
test then skips, showing the reason). A block that reads a trace with ``trace_path("name")`` skips
when the trace is not in ``$TOPOALLOC_TRACES``; a block that imports an optional extra that is not
installed (``distributed``, ``simpy``, ...) skips naming it.

**Reduced sizes.** Long blocks run at reduced size through the substitutions in :data:`REDUCED`,
applied to the code the test runs, never to what the reader sees: ``jobs=N, warmup=W`` with
``N > 5000`` becomes about 3,000 jobs with the warm-up scaled alike, ``days=D`` at most 3 days and a
trace's ``limit=L`` at most 200 jobs.

**Claims in comments are checked.** A statement followed by a comment that starts with a value --
``ff.free, ff.size  # 1012, 1024``, ``s = cube.allocate(3).placement  # Subcube(base=0, mask=7): ...``
-- has that value compared with what the expression (or the name assigned) holds. The claim is the
comment, or its part before the first ``;`` or ``: ``, when that is a Python literal: constants,
tuples, lists, dicts, negative numbers, constructor calls such as ``Submesh(...)`` or
``array([...])`` of names the block defines, and types (``Allocation | None`` means an instance of
either); ``...`` matches anything. Comments in prose are checked by a page's *prose claims*: a mapping
from (a unique part of) the line they comment on to a check of that line's value; a key that no
longer matches a line of its page fails the page's test, so the table follows the text.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: Pages written by ``topoalloc reproduce --doc``, not by hand: their blocks are transcripts of
#: diagnoses, not examples, and a test of the reproduce command keeps them current.
GENERATED = ("reproductions.md", "reproductions/")
FENCE = re.compile(r"```python\n(.*?)```", re.S)
NO_RUN = re.compile(r"<!--\s*no-run:\s*(?P<reason>.*?)\s*-->\s*$")

#: A page's checks of comments in prose: line key -> check(value, namespace, code).
ProseClaims = Mapping[str, Callable[[Any, dict[str, Any], str], None]]


@dataclass
class Block:
    """One ```python block of ``page``: its index on the page, the line of its fence (1-based)."""

    page: Path
    index: int
    line: int
    code: str
    no_run: str | None

    @property
    def name(self) -> str:
        """The page's path from the repository root (its own path, for a page elsewhere)."""
        return self.page.relative_to(ROOT).as_posix() if self.page.is_relative_to(ROOT) else self.page.as_posix()

    @property
    def id(self) -> str:
        return f"{self.name}:{self.line}"


def doc_pages() -> list[Path]:
    """The hand-written Markdown pages of the documentation site (the generated ones excluded)."""
    out = []
    for path in sorted(DOCS.rglob("*.md")):
        rel = path.relative_to(DOCS).as_posix()
        if rel.startswith("_build/") or any(rel == g or rel.startswith(g) for g in GENERATED):
            continue
        out.append(path)
    return out


def blocks_of(page: Path) -> list[Block]:
    """The ```python blocks of ``page``, with their no-run reasons."""
    text = page.read_text()
    out = []
    for i, m in enumerate(FENCE.finditer(text)):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = NO_RUN.search(before)
        out.append(Block(page, i, line, m.group(1), skip.group("reason") if skip else None))
    return out


# -- reduced sizes ------------------------------------------------------------------------------------
def _fewer_jobs(m: re.Match) -> str:
    jobs, warmup = int(m.group(1).replace("_", "")), int(m.group(2).replace("_", ""))
    if jobs <= 5000:
        return m.group(0)
    k = math.ceil(jobs / 3000)
    return f"jobs={jobs // k}, warmup={warmup // k}"


#: (pattern, replacement) applied to every block's code before it runs.
REDUCED: list[tuple[str, str | Callable[[re.Match], str]]] = [
    (r"jobs=([\d_]+), warmup=([\d_]+)", _fewer_jobs),
    (r"\bdays=(\d+)", lambda m: f"days={min(int(m.group(1)), 3)}"),
    (r"\blimit=(\d+)", lambda m: f"limit={min(int(m.group(1)), 200)}"),
]


def reduced(code: str) -> str:
    """``code`` with the :data:`REDUCED` substitutions applied."""
    for pattern, repl in REDUCED:
        code = re.sub(pattern, repl, code)
    return code


# -- claims --------------------------------------------------------------------------------------------
_LITERAL_NODES = (ast.Expression, ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.Set, ast.UnaryOp, ast.USub,
                  ast.UAdd, ast.Load, ast.Call, ast.keyword, ast.Name, ast.BinOp, ast.BitOr)


def _public_names() -> dict[str, Any]:
    import scheduling
    import topoalloc
    import topologies

    out: dict[str, Any] = {"array": np.array}
    for module in (topologies, topoalloc, scheduling):
        out.update({name: getattr(module, name) for name in module.__all__})
    return out


def _literal_like(tree: ast.Expression, ns: dict[str, Any]) -> bool:
    for node in ast.walk(tree):
        if not isinstance(node, _LITERAL_NODES):
            return False
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr):
            return False
        if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
            return False
        if isinstance(node, ast.Name) and not (node.id in ns and callable(ns[node.id])):
            return False  # a claim names constructors and types, never a variable
    return True


PROSE = object()  # claim_of's answer for a comment that is prose


def claim_of(comment: str, ns: dict[str, Any]) -> Any:
    """The value a comment claims, or :data:`PROSE` if it is prose."""
    text = comment.strip()
    names = {**_public_names(), **ns}
    candidates = [text, text.split(";", 1)[0], text.split(": ", 1)[0]]
    for cand in candidates:
        try:
            tree = ast.parse(cand.strip(), mode="eval")
        except SyntaxError:
            continue
        if _literal_like(tree, names):
            return eval(compile(tree, "<claim>", "eval"), names)  # noqa: S307 - the page's own text
    return PROSE


def same(value: Any, claim: Any) -> bool:
    """Whether ``value`` is what ``claim`` says: equal (arrays element-wise, floats to 1e-9), an
    instance of a claimed type, anything for ``...``."""
    if claim is Ellipsis:
        return True
    if isinstance(claim, type) or type(claim).__name__ == "UnionType":
        return isinstance(value, claim)
    if isinstance(claim, tuple | list) and isinstance(value, tuple | list):
        return len(claim) == len(value) and all(same(v, c) for v, c in zip(value, claim, strict=True))
    if isinstance(claim, dict) and isinstance(value, dict):
        return claim.keys() <= value.keys() and all(same(value[k], c) for k, c in claim.items())
    if isinstance(value, np.ndarray) or isinstance(claim, np.ndarray):
        return np.array_equal(np.asarray(value), np.asarray(claim))
    if isinstance(claim, float) and isinstance(value, int | float):
        return math.isclose(value, claim, rel_tol=1e-9)
    return value == claim


def _comment_at(line: str) -> str | None:
    """The comment ending ``line`` (after two spaces and ``#``), if any."""
    _, sep, comment = line.partition("  #")
    return comment if sep else None


def run_block(block: Block, prose: ProseClaims, used: set[str]) -> int:
    """Run ``block``'s code (reduced), checking its claims; return how many claims were checked.
    Keys of ``prose`` met on a line are added to ``used``."""
    code = reduced(block.code)
    tree = ast.parse(code, f"{block.name}:{block.line}")
    lines = code.splitlines()
    ns: dict[str, Any] = {"__name__": "docs_block"}
    checked = 0
    for stmt in tree.body:
        line = lines[stmt.lineno - 1]  # a statement's comment sits on its first line
        comment = _comment_at(line)
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), block.name, "eval"), ns)  # noqa: S307
        else:
            exec(compile(ast.Module([stmt], []), block.name, "exec"), ns)  # noqa: S102
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            value = ns.get(targets[0].id) if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        for key, check in prose.items():
            if key in line:
                check(value, ns, code)
                used.add(key)
                checked += 1
        if comment is None or any(key in line for key in prose):
            continue
        claim = claim_of(comment, ns)
        if claim is PROSE:
            continue
        assert same(value, claim), f"{block.name}:{block.line + stmt.lineno}: {line.strip()!r} gives {value!r}"
        checked += 1
    return checked


# -- what a block needs --------------------------------------------------------------------------------
_OURS = {"topologies", "topoalloc", "scheduling"}


def imports_of(code: str) -> str:
    """The block's top-level import statements, as source."""
    return "\n".join(ast.get_source_segment(code, node) or "" for node in ast.parse(code).body
                     if isinstance(node, ast.Import | ast.ImportFrom))


def missing_extras(code: str) -> list[str]:
    """Third-party modules the block imports that are not installed (an optional extra)."""
    names = set()
    for node in ast.parse(code).body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names - _OURS if importlib.util.find_spec(n) is None)


def skip_reason(block: Block) -> str | None:
    """Why ``block`` cannot run here (a no-run marker, a missing trace or extra), or None."""
    from scheduling.workloads import TraceNotFoundError, trace_path

    if block.no_run is not None:
        return f"{block.id}: no-run: {block.no_run}"
    missing = missing_extras(block.code)
    if missing:
        return f"{block.id} needs {', '.join(missing)} (an optional extra of pyproject.toml)"
    for name in re.findall(r"trace_path\(\"([^\"]+)\"\)", block.code):
        try:
            trace_path(name)
        except TraceNotFoundError as exc:
            return f"{block.id} needs trace {name!r}: {exc}"
    return None


def enter_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from ``tmp_path``, with ``$TOPOALLOC_TRACES`` made absolute first (its default is
    relative to the working directory)."""
    from scheduling.workloads import traces_dir

    monkeypatch.setenv("TOPOALLOC_TRACES", str(traces_dir().resolve()))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- links ---------------------------------------------------------------------------------------------
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`+([^`]+)`+")
_REPO_PATH = re.compile(r"(?<![\w/.-])((?:tests|examples|benchmarks|scheduling|topoalloc|topologies|docs)/[\w./-]*)")


def broken_links(page: Path) -> list[str]:
    """Relative links of ``page`` (``[text](other.md#anchor)``) whose file does not exist."""
    out = []
    for target in _LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            out.append(target)
    return out


def missing_paths(page: Path) -> list[str]:
    """Repository paths ``page`` names in code (``examples/tree_blocks.toml``) that do not exist;
    placeholders (``seedNNN.py``, ``examples/<file>.toml``) and build output are not paths."""
    out = []
    for span in _CODE_SPAN.findall(page.read_text()):
        for m in _REPO_PATH.finditer(span):
            path = m.group(1).rstrip(".")
            if "NNN" in path or "_build" in path or span[m.end():m.end() + 1] in ("<", "*"):
                continue
            if not (ROOT / path).exists():
                out.append(path)
    return out
