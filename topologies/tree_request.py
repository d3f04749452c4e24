"""A node-count request with a topology constraint, for machines whose nodes sit under switches."""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import check_int, check_real, is_int, shown
from .errors import RequestSizeError, RequestTypeError

__all__ = ["TreeRequest"]


@dataclass(frozen=True, slots=True)
class TreeRequest:
    """``count`` nodes, optionally constrained by where they may lie in a switch tree.

    At most one constraint family is given:

    * ``required=LEVEL`` -- every node inside one domain of that level (Kueue's
      ``kueue.x-k8s.io/podset-required-topology``);
    * ``preferred=LEVEL`` -- inside one domain of that level if possible, else one domain of the
      level above, and so on; split across domains only at the top (Kueue's
      ``podset-preferred-topology``);
    * ``switches=N`` with an optional ``wait=T`` -- at most ``N`` leaf switches, waiting up to ``T``
      (in the workload's time unit) for such a placement, after which any placement will do
      (Slurm's ``--switches=N@T``). Without ``wait`` the job waits for ever. The waiting is the
      scheduling policy's; an allocator asked for this request honours ``switches`` and the
      policy drops the constraint (:meth:`relaxed`) once the wait has passed;
    * ``segment=S`` -- pieces of ``S`` nodes, each inside one base block (Slurm's ``--segment``
      on ``topology/block``); ``S`` divides ``count``.

    A plain count is the same request as ``TreeRequest(count)``. The levels are checked against a
    tree by :meth:`topologies.SwitchTree.validate_request`; this class checks the values.

    >>> TreeRequest(16, required="rack")
    TreeRequest(count=16, required='rack', preferred=None, switches=None, wait=None, segment=None)
    >>> TreeRequest(8, switches=1, wait=600).relaxed()
    TreeRequest(count=8, required=None, preferred=None, switches=None, wait=None, segment=None)
    >>> TreeRequest(6, segment=4)
    Traceback (most recent call last):
    ...
    topologies.errors.RequestTypeError: segment 4 does not divide the request's 6 nodes
    """

    count: int
    required: str | None = None
    preferred: str | None = None
    switches: int | None = None
    wait: float | None = None
    segment: int | None = None

    def __post_init__(self) -> None:
        if not is_int(self.count):
            raise RequestTypeError(f"a tree request's count must be an integer, got {shown(self.count)}")
        if self.count < 1:
            raise RequestSizeError(f"a request must ask for at least 1 node, got {self.count}")
        for name in ("required", "preferred"):
            level = getattr(self, name)
            if level is not None and (not isinstance(level, str) or not level):
                raise RequestTypeError(f"{name} must be a level name (a non-empty string), got {shown(level)}")
        if self.switches is not None:
            check_int(self.switches, "switches", low=1, error=RequestTypeError)
        if self.wait is not None:
            if self.switches is None:
                raise RequestTypeError(f"wait={self.wait!r} needs switches=N (Slurm's --switches=N@T)")
            check_real(self.wait, "wait", low=0, error=RequestTypeError)
        if self.segment is not None:
            check_int(self.segment, "segment", low=1, error=RequestTypeError)
            if self.count % self.segment:
                raise RequestTypeError(f"segment {self.segment} does not divide the request's {self.count} nodes")
        given = [n for n in ("required", "preferred", "switches", "segment") if getattr(self, n) is not None]
        if len(given) > 1:
            raise RequestTypeError(f"a tree request takes one constraint, got {' and '.join(given)}")

    @property
    def plain(self) -> bool:
        """Whether no constraint is given (any ``count`` nodes will do)."""
        return (self.required is None and self.preferred is None and self.switches is None
                and self.segment is None)

    @property
    def level(self) -> str | None:
        """The level named by ``required`` or ``preferred`` (``None`` for the others)."""
        return self.required if self.required is not None else self.preferred

    def relaxed(self) -> TreeRequest:
        """The same count without the ``switches`` wait: what Slurm runs once ``wait`` has passed."""
        if self.switches is None:
            return self
        return TreeRequest(self.count, segment=self.segment)
