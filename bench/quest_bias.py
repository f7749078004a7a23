"""QUEST's unbiased choice of split attribute (Loh & Shih 1997, section 3): which attribute
each grower tests at the root when no attribute says anything about the class.

Each replication draws `--cases` cases of two equally likely classes and five attributes
independent of the class: two continuous (standard normal, the second rounded to one decimal,
so it has fewer distinct cuts) and three discrete with 2, 10 and 30 equally likely values. An
unbiased grower chooses each attribute at the root in a fifth of the replications; the
frequencies of quest, c45 (C4.5's unpruned tree, gain ratio) and cart (rpart's best split)
are printed, with the binomial 99.9% band around 1/5.

    python bench/quest_bias.py                   # 1,000 replications of 200 cases (seeded)
    python bench/quest_bias.py --markdown FIDELITY.md   # the table in its section
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from c45rules.data.schema import Attribute, Dataset, Schema  # noqa: E402

ATTRIBUTES = ("normal", "normal_1dp", "two", "ten", "thirty")
GROWERS = ("quest", "c45", "cart")
# the two-sided 99.9% normal quantile: the band the test and the table use
Z = 3.2905


def null_dataset(rng: np.random.Generator, n: int) -> Dataset:
    """`n` cases whose five attributes are independent of their class (the module's design)."""
    schema = Schema((Attribute("normal", "continuous"), Attribute("normal_1dp", "continuous"),
                     Attribute("two", "discrete", tuple(f"v{i}" for i in range(2))),
                     Attribute("ten", "discrete", tuple(f"v{i}" for i in range(10))),
                     Attribute("thirty", "discrete", tuple(f"v{i}" for i in range(30)))), ("a", "b"))
    columns = [rng.standard_normal(n).astype(np.float32).astype(np.float64),
               np.round(rng.standard_normal(n), 1).astype(np.float32).astype(np.float64),
               rng.integers(0, 2, n).astype(np.int32), rng.integers(0, 10, n).astype(np.int32),
               rng.integers(0, 30, n).astype(np.int32)]
    return Dataset(schema, columns, rng.integers(0, 2, n).astype(np.int32))


def root_attribute(grower: str, data: Dataset) -> int:
    """The attribute the grower tests at the root (-1: none)."""
    rows = np.arange(data.n)
    if grower == "quest":
        from c45rules.tree.growers import quest
        a = quest._Quest(data, quest.check({})).choose(rows)
        return -1 if a is None else a.attribute
    if grower == "cart":
        from c45rules.tree.growers import cart
        best = cart._Cart(data, cart.check({})).best_split(rows)
        return -1 if best is None else best[1]
    from c45rules.tree.grow import grow_tree
    return grow_tree(data).attribute


def root_frequencies(grower: str, replications: int, cases: int = 200, seed: int = 0) -> np.ndarray:
    """How often each attribute (in ATTRIBUTES' order) is tested at the root, as shares."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(ATTRIBUTES))
    for _ in range(replications):
        a = root_attribute(grower, null_dataset(rng, cases))
        if a >= 0:
            counts[a] += 1
    return counts / replications


def band(replications: int, share: float = 0.2) -> tuple[float, float]:
    """The binomial 99.9% band (normal approximation) of a share's frequency."""
    half = Z * math.sqrt(share * (1 - share) / replications)
    return share - half, share + half


def table(replications: int, cases: int, seed: int) -> str:
    """The markdown table of root-choice frequencies per grower."""
    low, high = band(replications)
    lines = [f"{replications:,} replications of {cases} cases, seed {seed}; unbiased: every share in"
             f" [{low:.3f}, {high:.3f}] (1/5 +- {Z} binomial SE).", "",
             "| grower | " + " | ".join(ATTRIBUTES) + " | unbiased |",
             "|---|" + "---:|" * len(ATTRIBUTES) + "---|"]
    for g in GROWERS:
        f = root_frequencies(g, replications, cases, seed)
        ok = "yes" if ((f >= low) & (f <= high)).all() else "no"
        lines.append(f"| {g} | " + " | ".join(f"{v:.3f}" for v in f) + f" | {ok} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--replications", type=int, default=1000)
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", type=Path, help="write the table into this file's quest-bias section")
    args = p.parse_args()
    text = table(args.replications, args.cases, args.seed)
    print(text)
    if args.markdown:
        from common import put_section
        put_section(args.markdown, "quest-bias", text)


if __name__ == "__main__":
    main()
