"""Nothing imports upward: topologies <- topoalloc <- scheduling; and the layout stays walkable: the
scheduling layer keeps its plain modules few (the rest lives in sub-packages named for what they
hold) and no module of the three packages is over 1,000 lines (issue 29).

``topoalloc/__main__.py`` (``python -m topoalloc``, the command line) is the one allowed exception.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ABOVE = {"topologies": {"topoalloc", "scheduling"}, "topoalloc": {"scheduling"}}
#: Entry points allowed to reach up (each says so in a comment).
EXCEPTIONS = {Path("topoalloc/__main__.py")}
#: The most lines a module of the three packages may have, and the most plain modules (``.py``
#: files, ``__init__.py`` and ``__main__.py`` included) at the top of ``scheduling/``.
MAX_LINES = 1000
MAX_TOP_MODULES = 8
#: Modules allowed over MAX_LINES (none).
LONG_MODULES: set[Path] = set()


def _imported_packages(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            out.add(str(node.args[0].value).split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(ABOVE))
def test_no_module_imports_a_layer_above(package):
    offenders = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel in EXCEPTIONS:
            continue
        bad = _imported_packages(path) & ABOVE[package]
        if bad:
            offenders[str(rel)] = sorted(bad)
    assert not offenders


def test_the_exception_is_only_the_entry_point_and_says_so():
    text = (ROOT / "topoalloc" / "__main__.py").read_text()
    assert "scheduling" in text and "upward" in text
    assert _imported_packages(ROOT / "topoalloc" / "__main__.py") == {"sys", "scheduling"}


def test_importing_the_allocators_loads_no_scheduling():
    code = ("import sys, topoalloc, topoalloc.mesh, topoalloc.hypercube, topoalloc.dhc, topoalloc.flat, topologies; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scheduling'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_the_scheduling_layer_keeps_few_plain_modules_at_its_top():
    plain = sorted(p.name for p in (ROOT / "scheduling").glob("*.py"))
    assert "__init__.py" in plain and len(plain) <= MAX_TOP_MODULES, plain


@pytest.mark.parametrize("package", sorted({*ABOVE, "scheduling"}))
def test_no_module_is_over_the_line_limit(package):
    long = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT)
        with open(path, encoding="utf-8") as fh:
            lines = sum(1 for _ in fh)
        if lines > MAX_LINES and rel not in LONG_MODULES:
            long[str(rel)] = lines
    assert not long, f"modules over {MAX_LINES} lines: {long}"
