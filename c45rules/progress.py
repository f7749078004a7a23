"""How long learning work tells its progress: a callback the learners call between steps.

The learners stay pure: they print nothing and keep no state of the progress. A function that
does long work takes `progress: Progress | None = None` and calls `report(progress, stage, done,
total, **info)` at the start of each step, which costs one comparison when no callback is given.
The command line's reporter (cli/progress.py) draws the calls as one line on a terminal.

A call `progress(stage, done, total, **info)` says: `stage` is under way, `done` of its `total`
steps are finished (total None: not known ahead, as for a streamed pass over rows). The stages
nest in the order of STAGES, outermost first: a call for a stage ends the stages nested in it,
and the stages sharing its depth (grow, prune, generalise, select follow one another). The
stages and who reports them:

- fold: cross-validation's fold `done` of `total` (learn/crossval.cross_validate);
- tune fold, candidate: tuning's fold, and the grid point being learnt on it (learn/crossval.tune,
  learn/pipeline.fit_rulesets);
- trial: boosting's trial `done` of at most `total` (learn/pipeline.fit_dataset);
- grow, prune, generalise, select: the steps of one fit (growing the tree, pruning it,
  generalising the rules, selecting them; select counts the classes done);
- pass: for a learner that reads its rows in passes (a streamed grower), reported per batch
  inside its stage (grow, generalise, select): `done` the rows read so far in this pass, `total`
  the table's rows when known (else None), info `number` (the pass, from 1) and `level` (the
  tree level the pass grows, for growth); the reporter shows rows/s from `done` and the time
  since the pass began (a call with other info, or fewer rows, begins a new pass). E.g.
  `report(progress, "pass", rows_so_far, n_rows, number=3, level=2)`.

Extra `info` is shown as `name value` after the stage; keys the reporter does not know are shown
too, so a new learner needs no change here to say more.
"""
from __future__ import annotations

from typing import Any, Protocol

# outermost first; the stages of one depth replace each other
STAGES: tuple[tuple[str, ...], ...] = (
    ("fold",), ("tune fold",), ("candidate",), ("trial",), ("grow", "prune", "generalise", "select"), ("pass",))
DEPTH: dict[str, int] = {stage: depth for depth, names in enumerate(STAGES) for stage in names}


class Progress(Protocol):
    """A progress callback: `stage` under way, `done` of `total` steps finished (None: unknown)."""

    def __call__(self, stage: str, done: int, total: int | None, /, **info: Any) -> None:
        """Note that `stage` is under way with `done` of `total` steps finished."""


def report(progress: Progress | None, stage: str, done: int = 0, total: int | None = None, /,
           **info: Any) -> None:
    """Call `progress` (if any) for `stage`; a stage not in STAGES is a mistake of the caller."""
    if progress is None:
        return
    if stage not in DEPTH:
        raise ValueError(f"progress stage {stage!r} is not one of {', '.join(DEPTH)}")
    progress(stage, done, total, **info)
