"""Each grower's own options with their defaults (`OPTIONS`) and the growers' names: the table
the growers read their defaults from, apart from the package's dispatch (which imports the
growers), so that a grower importing it closes no circle."""
from __future__ import annotations

from typing import Any

OPTIONS: dict[str, dict[str, Any]] = {
    "c45": {"min_objs": 2, "gain_ratio": True, "subset": False},
    "cart": {"cp": 0.01, "minsplit": 20, "minbucket": None, "maxdepth": 30, "usesurrogate": 2,
             "maxsurrogate": 5, "xval": 0},
    "id3": {},
    "j48": {"min_objs": 2, "unpruned": False, "binary_splits": False, "reduced_error_pruning": False,
            "folds": 3, "subtree_raising": True, "mdl_correction": True, "laplace": False, "collapse": True},
    # SPSS's CHAID defaults; bins None: every distinct value of a continuous attribute a category
    "chaid": {"alpha_merge": 0.05, "alpha_split": 0.05, "max_depth": 3, "min_parent": 100, "min_child": 50,
              "bins": None, "bonferroni": True},
    "quest": {"quest_alpha": 0.05, "min_node": 10, "prune_folds": 10, "se_rule": 1.0},
}
NAMES = tuple(OPTIONS)
