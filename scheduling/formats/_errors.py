"""The error of a trace file that cannot be read, shared by the Batsim and sacct readers."""

from __future__ import annotations

from typing import Any

__all__ = ["FileLineError"]


class FileLineError(ValueError):
    """A file that cannot be read (or a value that cannot be written): the message names the file,
    the line (when there is one) and the problem; ``file``, ``line`` and ``problem`` hold the parts,
    and the error pickles with them (so it crosses process pools whole).

    >>> e = FileLineError("site.sacct", 3, "NNodes 'x' is not a number"); str(e), e.line
    ("site.sacct, line 3: NNodes 'x' is not a number", 3)
    """

    def __init__(self, file: str, line: int | None, problem: str) -> None:
        self.file = file
        self.line = line
        self.problem = problem
        where = f"{file}, line {line}" if line is not None else file
        super().__init__(f"{where}: {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.file, self.line, self.problem))
