"""The README's examples run as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


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
    """Each README Python block's import statements run: a renamed API fails here, not in a user's
    first session."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 6
    for block in blocks:
        lines = block.splitlines()
        imports, i = [], 0
        while i < len(lines):
            line = lines[i]
            if line.startswith(("from ", "import ")):
                stmt = [line]
                while stmt[-1].rstrip().endswith(("(", ",")) and i + 1 < len(lines):
                    i += 1
                    stmt.append(lines[i])
                imports.append("\n".join(stmt))
            i += 1
        exec("\n".join(imports), {})
