"""The C4.5 Release 8 grower: grow (spec 2) then prune (spec 3), as c4.5 does."""
from __future__ import annotations

import gc

from ...data.schema import Dataset
from ...progress import report
from ...workers import give_back_memory, no_collection
from ..grow import grow_tree
from ..node import FlatTree, Tree
from ..prune import prune_tree

# grown trees from this many nodes are followed by a full collection (see grow)
COLLECT_FROM_NODES = 10_000


def grow(data: Dataset, options: dict) -> Tree:
    """The unpruned C4.5 tree and its pruned copy; options cf, min_objs, gain_ratio, subset, jobs, and
    for boosting's later trials (rules/boost.py) leaf_ratio (the leaf budget, grow.grow_tree) and
    prune (False: no pruned copy, Tree.pruned None; their rules come from the unpruned tree);
    progress: a callback told of the pruning (c45rules/progress.py; the caller reports the growing)."""
    cf = options.get("cf", 0.25)
    min_objs = options.get("min_objs", 2)
    gain_ratio = options.get("gain_ratio", True)
    subset = options.get("subset", False)
    with no_collection():       # hundreds of thousands of nodes at scale, no cycles
        unpruned = grow_tree(data, min_objs=min_objs, gain_ratio=gain_ratio, subset=subset,
                             jobs=options.get("jobs", 1), flat=True, leaf_ratio=options.get("leaf_ratio"))
        if not options.get("prune", True):
            return Tree(data.schema, unpruned, None,
                        {"cf": cf, "min_objs": min_objs, "gain_ratio": gain_ratio, "subset": subset})
        # the unpruned tree kept as arrays (Tree.unpruned makes its nodes when asked for; the
        # compiled pruning reads them too), the pruned one made again once the growing's and
        # pruning's leftovers are gone, so that its nodes lie together: 180 MB less resident
        # at 1M cases (node.FlatTree)
        flat = unpruned if isinstance(unpruned, FlatTree) else FlatTree(unpruned)
        if not flat.subsets and data.costs is None:
            # pruned from the arrays alone: the grown nodes (100 MB at 1M cases) go first
            del unpruned
            # a full collection also empties the free lists (2,000 tuples of each size, kept
            # from amid the grown nodes), which held a few objects in many of the arenas the
            # nodes left: 4 MB resident under the rules' steps at 100k cases. It costs time in
            # proportion to the whole heap, not the tree (40 ms for a 40-case fit in a bare
            # process, more in a long-lived one), so only trees large enough to matter pay it
            if len(flat.klass) >= COLLECT_FROM_NODES:
                gc.collect()
            give_back_memory()
            unpruned = flat
        report(options.get("progress"), "prune")
        pruned = prune_tree(unpruned, data, cf=cf, flat=flat)
        small = FlatTree(pruned)
        del unpruned, pruned
        give_back_memory()
        pruned = small.rebuilt()
    give_back_memory()
    return Tree(data.schema, flat, pruned,
                {"cf": cf, "min_objs": min_objs, "gain_ratio": gain_ratio, "subset": subset})
