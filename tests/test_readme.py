"""The README's examples run as written, and say what they do.

**Every ```python block of README.md runs**, each in a fresh namespace in a temporary working
directory, unless an HTML comment on the line just before its fence says why not:
``<!-- no-run: the reason -->`` (the test then skips, showing the reason). A block that reads a
trace with ``trace_path("name")`` skips when the trace is not in ``$TOPOALLOC_TRACES``.

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
either); ``...`` matches anything. Comments in prose are checked by :data:`PROSE_CLAIMS`, keyed by the
line they comment on; a key that no longer matches a README line fails the test, so the table follows
the README.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"```python\n(.*?)```", re.S)
NO_RUN = re.compile(r"<!--\s*no-run:\s*(?P<reason>.*?)\s*-->\s*$")


@dataclass
class Block:
    index: int
    line: int  # of the fence, 1-based
    code: str
    no_run: str | None

    @property
    def id(self) -> str:
        return f"block{self.index}-line{self.line}"


def readme_blocks() -> list[Block]:
    text = README.read_text()
    out = []
    for i, m in enumerate(FENCE.finditer(text)):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = NO_RUN.search(before)
        out.append(Block(i, line, m.group(1), skip.group("reason") if skip else None))
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


def claim_of(comment: str, ns: dict[str, Any]) -> Any:
    """The value a comment claims, or ``_PROSE`` if it is prose."""
    text = comment.strip()
    names = {**_public_names(), **ns}
    candidates = [text, text.split(";", 1)[0], text.split(": ", 1)[0]]
    for cand in candidates:
        try:
            tree = ast.parse(cand.strip(), mode="eval")
        except SyntaxError:
            continue
        if _literal_like(tree, names):
            return eval(compile(tree, "<claim>", "eval"), names)  # noqa: S307 - the README's own text
    return _PROSE


_PROSE = object()


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


def _simulate_sizes(code: str) -> tuple[int, int]:
    m = re.search(r"jobs=(\d+), warmup=(\d+)", code)
    return int(m.group(1)), int(m.group(2))


SUMMARY_KEYS = {"mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_folding_factor",
                "fraction_folded", "mean_slowdown", "mean_bounded_slowdown", "p50_turnaround", "p90_turnaround",
                "p99_turnaround", "jobs"}


def _check_summary(value: Any, ns: dict[str, Any], code: str) -> None:
    jobs, warmup = _simulate_sizes(code)
    assert SUMMARY_KEYS <= value.keys()
    assert value["jobs"] == jobs - warmup  # the README's 'jobs': 50000 for jobs=50_500, warmup=500


def _check_static_metrics(value: Any, ns: dict[str, Any], code: str) -> None:
    assert {"folding_fragmentation", "system_efficiency"} <= value.keys()
    assert 0 < value["folding_fragmentation"] < 1 and 0 < value["system_efficiency"] < 1
    # the paragraph after the block: the reconstruction's effectiveness differs from summary()'s in
    # the fourth digit, not more
    assert value["effectiveness"] == pytest.approx(ns["r"].summary()["effectiveness"], abs=2e-3)


def _check_dynamic_workload(value: Any, ns: dict[str, Any], code: str) -> None:
    assert ns["w"].workload.machine_size == 64  # §4.4.1: P = 64


#: Checks of comments in prose, keyed by (a unique part of) the line they comment on; each gets the
#: line's value (the expression's, or the assigned name's), the block's namespace and its code.
PROSE_CLAIMS: dict[str, Callable[[Any, dict[str, Any], str], None]] = {
    "r.summary()   # {'mean_turnaround'": _check_summary,
    "r.fairness()  # mean turnaround by requested size": lambda v, ns, code: (
        None if {"size", "mean_turnaround", "jobs"} <= v.keys() and len(v["size"]) > 10 else pytest.fail(str(v))),
    "r.table       # per-job records": lambda v, ns, code: (
        None if {"arrival", "start", "end", "requested", "granted", "folds", "changes", "runtime"}
        <= set(v.dtype.names) else pytest.fail(str(v.dtype))),
    "static_metrics(r, w.take(": _check_static_metrics,
    'w = ismail_dynamic("uniform", load=0.8, speedup="misp")': _check_dynamic_workload,
    "pol = DEQP(overhead=1.0)                                     # C = 1": lambda v, ns, code: (
        None if ns["pol"].overhead == 1.0 else pytest.fail("C")),
    "summarize_days(simulate_days(": lambda v, ns, code: (
        None if {"load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size",
                 "cv_cluster_size", "p90_slowdown"} <= v.keys() else pytest.fail(str(sorted(v)))),
    'trace = load_swf(trace_path("lublin_256"))': lambda v, ns, code: (
        None if v.report.jobs == len(v) > 0 and isinstance(v.report.counts, dict) else pytest.fail(str(v.report))),
}


def _comment_at(line: str) -> str | None:
    """The comment ending ``line`` (after two spaces and ``#``), if any."""
    _, sep, comment = line.partition("  #")
    return comment if sep else None


def run_block(block: Block, used: set[str]) -> int:
    """Run ``block``'s code (reduced), checking its claims; return how many claims were checked."""
    code = reduced(block.code)
    tree = ast.parse(code, f"README.md:{block.line}")
    lines = code.splitlines()
    ns: dict[str, Any] = {"__name__": "readme_block"}
    checked = 0
    for stmt in tree.body:
        line = lines[stmt.lineno - 1]  # a statement's comment sits on its first line
        comment = _comment_at(line)
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), ns)  # noqa: S307
        else:
            exec(compile(ast.Module([stmt], []), "README.md", "exec"), ns)  # noqa: S102
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            value = ns.get(targets[0].id) if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        for key, check in PROSE_CLAIMS.items():
            if key in line:
                check(value, ns, code)
                used.add(key)
                checked += 1
        if comment is None or any(key in line for key in PROSE_CLAIMS):
            continue
        claim = claim_of(comment, ns)
        if claim is _PROSE:
            continue
        assert same(value, claim), f"README.md:{block.line + stmt.lineno}: {line.strip()!r} gives {value!r}"
        checked += 1
    return checked


BLOCKS = readme_blocks()
USED: set[str] = set()
CHECKED: dict[int, int] = {}


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    from scheduling.workloads import traces_dir

    monkeypatch.setenv("TOPOALLOC_TRACES", str(traces_dir().resolve()))  # before leaving the repository
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_readme_block_runs_and_its_comments_hold(block, in_tmp):
    from scheduling.workloads import TraceNotFoundError, trace_path

    if block.no_run is not None:
        pytest.skip(f"README.md:{block.line}: no-run: {block.no_run}")
    for name in re.findall(r"trace_path\(\"([^\"]+)\"\)", block.code):
        try:
            trace_path(name)
        except TraceNotFoundError as exc:
            pytest.skip(f"README.md:{block.line} needs trace {name!r}: {exc}")
    CHECKED[block.index] = run_block(block, USED)


def test_the_mechanism_checks_what_it_should():
    """Run after the blocks (file order): the claims were really checked and every prose key was used."""
    runnable = [b for b in BLOCKS if b.no_run is None and "trace_path(" not in b.code]
    if not all(b.index in CHECKED for b in runnable):
        pytest.skip("run with the block tests (the whole file)")
    assert CHECKED[0] >= 7  # the allocator block: free/size, fold, shape, placement, pattern, ...
    trace_free = {k for k in PROSE_CLAIMS if "trace" not in k}
    assert trace_free <= USED, trace_free - USED


def test_reduced_sizes_only_shrink_long_runs():
    assert reduced("jobs=50_500, warmup=500") == "jobs=2970, warmup=29"
    assert reduced("jobs=5500, warmup=500") == "jobs=2750, warmup=250"
    assert reduced("jobs=2000, warmup=100, days=20, limit=500") == "jobs=2000, warmup=100, days=3, limit=200"
    assert reduced("summarize_days(simulate_days(\"SEV\", N=64, load=0.75, days=2))").endswith("days=2))")


def test_claims_are_parsed_from_values_not_prose():
    ns = {"Submesh": tuple, "array": np.array}
    assert claim_of(" 1012, 1024", ns) == (1012, 1024)
    assert claim_of(" (2, 3): halve the longer side", ns) == (2, 3)
    assert claim_of(" '00000***'", ns) == "00000***"
    assert claim_of(" int | None; a count", {"int": int}) == int | None
    for prose in (" trace.report: jobs kept", " folding fragmentation, system efficiency", " C = 1",
                  " mean turnaround by requested size", " x: the variable", " §4.4.1: P = 64"):
        assert claim_of(prose, {"trace": object(), "x": 3}) is _PROSE
    assert same((np.arange(3), 2.0), (np.array([0, 1, 2]), 2.0)) and not same(np.arange(3), np.arange(4))
    assert same({"a": 1, "b": 2}, {"a": ...}) and not same(3, 4) and same(None, int | None)


def test_a_no_run_marker_is_read(tmp_path, monkeypatch):
    text = "x\n<!-- no-run: needs a GPU -->\n```python\nraise SystemExit\n```\n```python\ny = 1\n```\n"
    monkeypatch.setattr(f"{__name__}.README", tmp_path / "R.md")
    (tmp_path / "R.md").write_text(text)
    blocks = readme_blocks()
    assert [(b.no_run, b.line) for b in blocks] == [("needs a GPU", 3), (None, 6)]


# -- the checks this file had before the generic runner ------------------------------------------------
def _block_after(marker: str) -> str:
    text = README.read_text()
    at = text.index(marker)
    return re.search(r"```python\n(.*?)```", text[at:], re.S).group(1)


def test_user_allocator_example_is_checked_by_the_machine():
    ns: dict = {}
    exec(compile(_block_after("<!-- user-allocator-example -->"), "README.md", "exec"), ns)
    case = ns["TestRowMajorScan"]("runTest")
    case.runTest()  # raises if the state machine finds a violation


def test_the_two_setup_commands_are_there():
    text = README.read_text()
    assert "python -m pip install . && topoalloc compare" in text
    assert 'python -m pip install -e ".[test]" && python -m pytest' in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'python -m pip install -e ".[test]" && python -m pytest' in ci


def test_every_python_block_imports_what_it_uses():
    """Each README Python block's import statements run, even where the block itself skips (no
    trace): a renamed API fails here, not in a user's first session."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 6
    for block in blocks:
        imports = [ast.get_source_segment(block, node) for node in ast.parse(block).body
                   if isinstance(node, ast.Import | ast.ImportFrom)]
        exec("\n".join(imports), {})  # noqa: S102

