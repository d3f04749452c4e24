"""Allocation quality: where a job's nodes lie and what that costs it, and the machine's free space.

Contiguity exists for communication locality; non-contiguous allocators trade external
fragmentation for distance and link contention. These measures let a user of the allocators
alone (no simulator needed) ask that question of any node set on a machine with links, a
:class:`~topologies.Network`: a :class:`~topologies.Mesh`, a :class:`~topologies.Hypercube` or a
:class:`~topologies.SwitchTree`. Node ids are the topology's: ``y * width + x`` on a mesh, the
binary address on a cube, leaf order on a tree. Every function validates its node set (ids
inside the machine, no duplicates, not empty) and raises :class:`~topoalloc.errors.NodeSetError`
otherwise; a measure asked of a topology it does not apply to (hops on a
:class:`~topologies.Flat` machine, a bounding box on a cube) raises
:class:`~topoalloc.errors.MetricNotApplicableError`.

**One protocol.** A topology answers its own distances, hop sums, links, routes, all-to-all link
traffic and compact baseline (:class:`~topologies.Network`: closed forms or vectorised per
family), and these measures ask it; a new machine with links gets them by answering that
protocol. The measures of one geometry stay specific and say so: :func:`bbox` and
:func:`largest_free_submesh` (a 2D mesh), :func:`largest_free_box` (a mesh or torus of any
dimension), :func:`largest_free_subcube` (a cube),
:func:`leaf_switches`, :func:`common_level` and :func:`free_per_domain` (a switch tree).

Per job (:mod:`.per_job`):

* :func:`mean_hops` -- average pairwise hop distance (Manhattan on a mesh, Hamming on a cube, up
  and down on a tree), the locality measure of Lo, Windisch, Liu & Nitzberg (IEEE TPDS 8(7),
  1997, §5's "average distance"), Mache & Lo ("The effects of dispersal on message-passing
  contention in processor allocation strategies", JCIS 1997) and Leung et al. (IEEE Cluster 2002,
  who found run times on Cplant to grow with it): the topology's ``hop_sum`` over the pairs, exact
  for any node set with no pairwise loop (on a mesh the sum over pairs of ``|x_i - x_j|`` is
  ``sum_i x_(i) (2i - n + 1)`` over the sorted coordinates, the same in y; on a cube, bit ``b``
  contributes ``c (n - c)`` pairs for ``c`` nodes with the bit set; on a tree, switch ``s``'s
  uplink ``c_s (n - c_s)``).
* :func:`components` -- pieces (connected in the machine graph on a mesh or a cube, round the
  wrap links of a torus, 1 for a contiguous grant; leaf switches on a tree).
* :func:`bbox` -- the sides of the bounding box (a mesh of any dimension; along a ring the
  smallest wrapped box). :func:`box_mean_hops` -- a box's mean hops in closed form.
* :func:`compact_nodes` / :func:`compact_mean_hops` -- the most compact placement of ``n`` nodes,
  the baseline of the placement-dependent run-time models.
* :func:`pattern_hops` -- hops travelled by one round of a communication pattern (all-to-all, or
  nearest neighbour on a virtual 2D grid): hop-bytes with one byte per message (Bunde, Leung &
  Mache, "Communication patterns and allocation strategies", PMEO-PDS 2004).
* :func:`leaf_switches`, :func:`common_level` -- a tree job's leaf switches and the level of its
  lowest common switch.

Machine level, external fragmentation as users see it (:mod:`.free_space`):

* :func:`largest_free_submesh`, :func:`largest_free_box` and :func:`largest_free_subcube`,
  :func:`free_fragments`,
  :func:`free_per_domain` (a tree's free nodes per domain), and :func:`fragmentation` for an
  allocator.

Contention, with each machine's routing (dimension ordered on a mesh -- x first, then y, ...,
the shorter way round a ring; e-cube on a cube --
the lowest differing bit first; Dally & Seitz 1987, Sullivan & Bashkow 1977; up and down on a
tree) (:mod:`.contention`):

* :func:`job_links` -- the links one job's all-to-all messages cross, computed without
  enumerating the ``n^2`` pairs; :func:`link_load` -- how many jobs cross each link;
  :func:`max_link_load` -- per job, the load of its busiest link, the measure non-contiguous
  allocation is criticised for (Mache & Lo 1997). Links are numbered by :func:`links`.
* :func:`flow_load` -- per link, the jobs' all-to-all traffic over the link's capacity, the
  flow-level load that counts a tree's uplink bundles; :func:`busiest_link` -- per job, the
  flow-level load of its most loaded link.

>>> from topologies import Mesh, Submesh
>>> m = Mesh(8, 8)
>>> nodes = Submesh(0, 0, 2, 2).node_ids(8)
>>> mean_hops(m, nodes), components(m, nodes), bbox(m, nodes)
(1.3333333333333333, 1, (2, 2))
>>> components(m, [0, 2]), mean_hops(m, [0, 63])
(2, 14.0)
"""

from ._common import applies
from .contention import busiest_link, flow_load, job_links, link_load, links, max_link_load
from .free_space import (
    fragmentation,
    free_fragments,
    free_per_domain,
    largest_free_box,
    largest_free_subcube,
    largest_free_submesh,
)
from .per_job import (
    PATTERNS,
    allocation_locality,
    allocation_mean_hops,
    bbox,
    box_mean_hops,
    common_level,
    compact_mean_hops,
    compact_nodes,
    components,
    leaf_switches,
    mean_hops,
    pattern_hops,
    subcube_mean_hops,
    submesh_mean_hops,
)

__all__ = [
    "applies",
    "mean_hops",
    "components",
    "bbox",
    "compact_nodes",
    "compact_mean_hops",
    "submesh_mean_hops",
    "box_mean_hops",
    "subcube_mean_hops",
    "allocation_locality",
    "allocation_mean_hops",
    "pattern_hops",
    "PATTERNS",
    "leaf_switches",
    "common_level",
    "largest_free_submesh",
    "largest_free_box",
    "largest_free_subcube",
    "free_fragments",
    "free_per_domain",
    "fragmentation",
    "links",
    "job_links",
    "link_load",
    "max_link_load",
    "flow_load",
    "busiest_link",
]
