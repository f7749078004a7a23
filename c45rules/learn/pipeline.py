"""The learning pipeline, data -> tree -> rules: `fit` (one call), `fit_dataset`, `learn_tree`, `learn_rules`."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from .. import __version__
from ..data.costs import cost_option, resolved, with_costs
from ..data.frame import from_frame, load_data
from ..data.reading import ReadOptions, is_frame, read_options
from ..data.schema import Dataset
from ..data.weights import split_weights, weighted
from ..errors import InputError, shown
from ..model.boosted import BoostedRuleSet
from ..model.ruleset import EVIDENCE_DIGITS, Condition, Rule, RuleSet, evidence_rate
from ..progress import Progress, report
from ..rules.coding import attribute_test_bits, branch_bits, rule_bits
from ..rules.extract import DISCRETE, THRESHOLD, CondTest
from ..rules.generalize import CandidateRule, generalise_rules
from ..rules.order import candidate_use, default_class, order_rules, sift_rules
from ..rules.select import select_rules
from ..tree.growers import NAMES as GROWERS, OPTIONS as GROWER_OPTIONS, get_grower
from ..tree.node import FlatTree, Node, Tree
from .winnow import without

if TYPE_CHECKING:
    from .stream import StreamFacts

# the options every grower shares (cf and rules_cf: the rules' confidence level; seed: the
# annealing's random() and cart's and quest's cross-validation folds), then each grower's own
_SHARED: dict[str, Any] = {
    "cf": 0.25, "rules_cf": None, "fisher": None, "redundancy": 1.0, "annealing": False, "seed": None,
    "jobs": 1,
}
DEFAULTS: dict[str, Any] = {
    "cf": 0.25, "min_objs": 2, "gain_ratio": True, "subset": False,
    "rules_cf": None, "fisher": None, "redundancy": 1.0, "annealing": False, "seed": None,
    "jobs": 1, "grower": "c45", "winnow": False, "costs": None, "trials": 1, "soft": False,
    **{k: v for name in GROWERS if name != "c45" for k, v in GROWER_OPTIONS[name].items()},
}
# options that change how fast, never what: not recorded in the RuleSet
_SPEED_ONLY = ("jobs",)
MAX_TRIALS = 1000   # boosting trials; C5.0 stops far sooner on any data we know


def _number(v: Any) -> bool:
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, (bool, np.bool_)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:   # an int beyond any double (10**400)
        return False


def check_options(o: dict[str, Any]) -> dict[str, Any]:
    """The options with defaults filled in, or InputError naming the first bad one."""
    unknown = sorted(set(o) - set(DEFAULTS))
    if unknown:
        raise InputError(f"unknown option(s): {', '.join(unknown)} (known: {', '.join(DEFAULTS)})")
    out = {**DEFAULTS, **o}
    for key in ("cf", "rules_cf"):
        v = out[key]
        if v is not None and not (_number(v) and 0 < v <= 1):
            raise InputError(f"option {key} must be a confidence level in (0, 1], got {shown(v)}")
    if not (_number(out["min_objs"]) and out["min_objs"] >= 1):
        raise InputError(f"option min_objs must be >= 1, got {shown(out['min_objs'])}")
    if out["fisher"] is not None and not (_number(out["fisher"]) and 0 < out["fisher"] <= 100):
        raise InputError(f"option fisher is a percentage in (0, 100], got {shown(out['fisher'])}")
    if not (_number(out["redundancy"]) and out["redundancy"] > 0):
        raise InputError(f"option redundancy must be > 0 and finite, got {shown(out['redundancy'])}")
    for key in ("gain_ratio", "subset", "annealing", "winnow", "soft"):
        if not isinstance(out[key], (bool, np.bool_)):
            raise InputError(f"option {key} must be True or False, got {shown(out[key])}")
    jobs = out["jobs"]
    if not (isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool) and (jobs >= 1 or jobs == -1)):
        raise InputError(f"option jobs must be a whole number >= 1, or -1 for one per core, got {shown(jobs)}")
    trials = out["trials"]
    if not (isinstance(trials, (int, np.integer)) and not isinstance(trials, bool) and 1 <= trials <= MAX_TRIALS):
        raise InputError(f"option trials (boosting) must be a whole number from 1 to {MAX_TRIALS}, got {shown(trials)}")
    out["trials"] = int(trials)
    seed = out["seed"]
    # glibc's srandom takes an unsigned int: a larger seed would wrap onto a smaller one
    if seed is not None and not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
                                 and 0 <= seed < 2**32):
        raise InputError(f"option seed must be an integer in [0, 2**32) or None, got {shown(seed)}")
    # the rates as floats, so that fit(fisher=50) and `-F 50` write the same model file
    for key in ("cf", "rules_cf", "fisher", "redundancy"):
        if out[key] is not None:
            out[key] = float(out[key])
    out["costs"] = cost_option(out["costs"])
    if out["grower"] not in GROWERS:
        raise InputError(f"option grower must be one of {', '.join(GROWERS)}, got {shown(out['grower'])}")
    from ..tree.growers import cart, chaid
    out.update(cart.check({k: out[k] for k in GROWER_OPTIONS["cart"]}))
    out.update(chaid.check({k: out[k] for k in GROWER_OPTIONS["chaid"]}))
    out["minbucket"] = o.get("minbucket")   # None: round(minsplit / 3), as recorded
    if out["grower"] == "j48":
        from ..tree.growers import j48
        out.update(j48.check({k: out[k] for k in GROWER_OPTIONS["j48"]}))
    from ..tree.growers import quest
    out.update(quest.check({k: out[k] for k in GROWER_OPTIONS["quest"]}))
    return out


def grower_options(o: dict[str, Any]) -> dict[str, Any]:
    """The options a model of grower o['grower'] is learnt with and records, or InputError when
    an option of another grower is set (its value not the default)."""
    name = o["grower"]
    foreign = list(dict.fromkeys(k for other in GROWERS if other != name for k in GROWER_OPTIONS[other]
                                 if k not in GROWER_OPTIONS[name] and o.get(k, DEFAULTS[k]) != DEFAULTS[k]))
    if foreign:
        raise InputError(f"option(s) {', '.join(foreign)} belong to another grower, not to grower {name!r}"
                         f" (its options: {', '.join(GROWER_OPTIONS[name]) or 'none'})")
    keep = {**_SHARED, **GROWER_OPTIONS[name]}
    out = {k: o.get(k, v) for k, v in keep.items()}
    if name != "c45":
        # c4.5 models record no grower, as before there were others: their files stay the same
        out["grower"] = name
    if o.get("costs") is not None:   # recorded only when set: every other model's file stays the same
        out["costs"] = o["costs"]
    if o.get("soft"):                 # likewise: the tree is c4.5 -p's, re-grown the same way (grow_with)
        out["soft"] = True
    return out


def learn_tree(data: Dataset, *, cf: float = 0.25, min_objs: float = 2, gain_ratio: bool = True,
               subset: bool = False, jobs: int = 1, grower: str = "c45", costs: Any = None,
               leaf_ratio: float | None = None, prune: bool = True, progress: Progress | None = None,
               **options: Any) -> Tree:
    """Grow a tree with the named grower (default c4.5: the unpruned tree and its pruned copy, spec 2-3);
    with `costs`, every node's class is the one of least expected cost (data/costs.py). `leaf_ratio`
    and `prune` (c4.5 only) are boosting's for its later trials (growers/c45.py, rules/boost.py).

    Parameters
    ----------
    data : Dataset
        The encoded training cases, with their class column.
    cf : float, default=0.25
        The pruning confidence level (c4.5 -c, as a fraction).
    min_objs : float, default=2
        The least number of cases in at least two branches of a test (c4.5 -m).
    gain_ratio : bool, default=True
        Choose tests by gain ratio (False: by information gain, c4.5 -g).
    subset : bool, default=False
        Test discrete attributes on subsets of their values (c4.5 -s).
    jobs : int, default=1
        Threads; -1 for one per core. Changes how fast, never what.
    grower : str, default="c45"
        The grower: "c45", "id3", "j48", "cart", "chaid" or "quest" (tree/growers).
    costs : mapping, str or None, default=None
        Misclassification costs, {(predicted, true): cost} or a C5.0 ``.costs`` file (c45 only).
    leaf_ratio : float or None, default=None
        Boosting's, for its later trials (c45 only).
    prune : bool, default=True
        Whether to prune (c45 only; boosting's later trials are not pruned).
    progress : callable or None, default=None
        Told of the stages grow and prune (c45rules/progress.py); changes nothing learnt.
    **options
        The other growers' own options (``cp``, ``seed``, ``alpha`` ...; see `fit`).

    Returns
    -------
    Tree
        Its ``unpruned`` tree (the rules come from it) and its ``pruned`` tree.

    Raises
    ------
    InputError
        Data without a class column, without cases or with a single class; case weights
        or costs with a grower other than c45.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import learn_tree
    >>> from c45rules.data.frame import from_frame
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> tree = learn_tree(from_frame(df, "class"))
    >>> tree.pruned.leaves(), tree.unpruned.leaves()
    (2, 2)
    """
    _require_labels(data)
    report(progress, "grow")
    grow = get_grower(grower)
    if data.weights is not None and grower != "c45":
        raise InputError(f"case and class weights are supported by the c45 grower only, not by grower {grower!r}")
    data = with_costs(data, resolved(costs, data.schema.classes))
    if data.costs is not None and grower != "c45":
        raise InputError(f"misclassification costs are supported by the c45 grower only, not by grower {grower!r}")
    if grower == "c45":
        return grow(data, {"cf": cf, "min_objs": min_objs, "gain_ratio": gain_ratio, "subset": subset,
                           "jobs": jobs, "leaf_ratio": leaf_ratio, "prune": prune, "progress": progress})
    if grower == "j48":
        # J48 prunes with cf and splits with -M as c4.5 does
        return grow(data, {"jobs": jobs, "cf": cf, "min_objs": min_objs, **options})
    return grow(data, {"jobs": jobs, **options})


@dataclass
class RulesTrace:
    """What c4.5rules printed along the way: candidates, the selected list, dropped rules."""

    candidates: list[CandidateRule]
    final: list[CandidateRule]       # "Final rules" before sifting
    dropped: list[int]
    default: int


def learn_rules(tree: Tree, data: Dataset, *, cf: float = 0.25, fisher: float | None = None,
                redundancy: float = 1.0, annealing: bool = False, seed: int | None = None,
                options: dict[str, Any] | None = None, jobs: int = 1,
                progress: Progress | None = None) -> tuple[RuleSet, RulesTrace]:
    """c4.5rules on the unpruned tree: generalise, select, order, default, sift (spec 7).

    Parameters
    ----------
    tree : Tree
        A tree from `learn_tree` on `data`.
    data : Dataset
        The training cases the tree was grown on.
    cf : float, default=0.25
        The confidence level of the rules' pessimistic error rates (c4.5rules -c).
    fisher : float or None, default=None
        Also drop a condition unless Fisher's exact test finds it significant at this
        percentage (c4.5rules -F); None: no test.
    redundancy : float, default=1.0
        The redundancy factor of the rules' coding cost (c4.5rules -r).
    annealing : bool, default=False
        Select the rules of a class with more than 10 by simulated annealing instead of
        the greedy search (c4.5rules -a).
    seed : int or None, default=None
        The seed of the annealing's random() stream.
    options : dict or None, default=None
        The options the RuleSet records (its `options`).
    jobs : int, default=1
        Threads; changes how fast, never what.
    progress : callable or None, default=None
        Told of the stages generalise and select (c45rules/progress.py); changes nothing learnt.

    Returns
    -------
    ruleset : RuleSet
        The ordered rules and the default class.
    trace : RulesTrace
        What c4.5rules printed along the way: the candidates, the rules before sifting,
        the rules sifting dropped, the default class's code.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import learn_rules, learn_tree
    >>> from c45rules.data.frame import from_frame
    >>> ds = from_frame(pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5}), "class")
    >>> rs, trace = learn_rules(learn_tree(ds), ds)
    >>> [str(r) for r in rs.rules], rs.default_class, trace.dropped
    (['rule 1: if a <= 2 then n [87.1%]', 'rule 2: if a > 2 then y [87.1%]'], 'n', [])
    """
    report(progress, "generalise")
    cands = generalise_rules(tree.unpruned_flat, data, cf=cf, fisher=None if fisher is None else fisher / 100,
                             jobs=jobs)
    return rules_from_candidates(cands, data, redundancy=redundancy, annealing=annealing, seed=seed,
                                 options=options, jobs=jobs, progress=progress)


@dataclass
class RuleCases:
    """What the rule stages after generalisation (spec 7.6-7.9) read of the training cases: each
    case's class and weight (None: each weighs 1) and the totals. A case may stand for several
    alike (the streamed stages give one per firing pattern and class, weighing their number)."""

    schema: Any
    y: np.ndarray
    weights: np.ndarray | None
    costs: np.ndarray | None
    class_n: np.ndarray          # per class, its cases' number (or summed weight)
    total_weight: float
    branch_bits: np.ndarray      # coding.branch_bits of the training cases
    weight_record: tuple
    fingerprint: str

    @classmethod
    def of(cls, data: Dataset) -> "RuleCases":
        """The cases of `data`, one by one."""
        return cls(data.schema, data.y, data.weights, data.costs, _class_totals(data), data.total_weight,
                   branch_bits(data), data.weight_record, data.fingerprint())


def rules_from_candidates(cands: list[CandidateRule], data: Dataset, *, redundancy: float = 1.0,
                          annealing: bool = False, seed: int | None = None, options: dict[str, Any] | None = None,
                          jobs: int = 1, rng: Any = None, progress: Progress | None = None,
                          max_rules: int | None = None,
                          refine: Callable[[list[CandidateRule], int], list[CandidateRule]] | None = None
                          ) -> tuple[RuleSet, RulesTrace]:
    """c4.5rules from the generalised rules on: select, order, default, sift (spec 7.6-7.9).
    `rng`: the random() stream to continue (several trees, spec 7.10); `progress`: told of the
    selection (c45rules/progress.py). `max_rules`: keep the first N rules of the sifted list, the
    default class then chosen again by spec 7.8 over the cases none of them covers (not sifted
    again: a shorter list for a little accuracy); `refine`: rules_from_cases'."""
    return rules_from_cases(cands, RuleCases.of(data), redundancy=redundancy, annealing=annealing, seed=seed,
                            options=options, jobs=jobs, rng=rng, progress=progress, max_rules=max_rules,
                            refine=refine)


def rules_from_cases(cands: list[CandidateRule], cases: RuleCases, *, redundancy: float = 1.0,
                     annealing: bool = False, seed: int | None = None, options: dict[str, Any] | None = None,
                     jobs: int = 1, rng: Any = None, progress: Progress | None = None,
                     max_rules: int | None = None, selected: list[CandidateRule] | None = None,
                     refine: Callable[[list[CandidateRule], int], list[CandidateRule]] | None = None
                     ) -> tuple[RuleSet, RulesTrace]:
    """rules_from_candidates over `cases`, whose numbering the candidates' covers use.
    `selected`: the rules the subset selection chose already (learnt in passes, class by class
    over other groupings of the cases); `cases` then need only their firing. `refine`: given
    the sifted list and its default class, the list to keep instead (rules left out or with
    conditions dropped, covers recounted: from_ensemble's pruning), before `max_rules`."""
    y = cases.y
    w = cases.weights        # None: every count is a number of cases
    schema = cases.schema
    C = len(schema.classes)
    if selected is None:
        selected = select_rules(cands, candidate_bits(cands, schema, cases.branch_bits, redundancy), y, C,
                                annealing=annealing, seed=seed, jobs=jobs, weights=w, rng=rng, progress=progress)
    for r in selected:
        # unpacked once: ordering, the default class and sifting read each cover many times
        # (order_rules once per class and round: 10k unpackings for letter's 26 classes)
        r.cases = r.cover
    ordered = order_rules(selected, y, C, w, cases.costs)
    default = default_class(ordered, y, C, w, cases.costs)
    kept, dropped, use = sift_rules(ordered, y, default, w, cases.costs)
    if refine is not None:
        refined = refine(kept, default)
        left = {r.number for r in refined}
        dropped = dropped + [r.number for r in kept if r.number not in left]
        kept = refined
        default = default_class(kept, y, C, w, cases.costs)
        use = candidate_use(kept, y, default, w)
    if max_rules is not None and len(kept) > max_rules:
        dropped = dropped + [r.number for r in kept[max_rules:]]
        kept = kept[:max_rules]
        default = default_class(kept, y, C, w, cases.costs)
        use = candidate_use(kept, y, default, w)
    class_n = cases.class_n
    rules = tuple(_public_rule(r, schema, class_n, cases.total_weight, count(use.used[i]), count(use.wrong[i]))
                  for i, r in enumerate(kept))
    unmatched = use.first < 0
    default_counts = np.bincount(y[unmatched], weights=None if w is None else w[unmatched], minlength=C)
    opts = {k: v for k, v in (options or {}).items() if k not in _SPEED_ONLY}
    opts.update(cases.weight_record)
    rs = RuleSet(schema, rules, schema.classes[default], tuple(count(v) for v in class_n),
                 tuple(count(v) for v in default_counts), tuple(sorted(opts.items())),
                 cases.fingerprint, __version__)
    return rs, RulesTrace(cands, ordered, dropped, default)


def candidate_bits(cands: list[CandidateRule], schema: Any, branch_bits_: np.ndarray,
                   redundancy: float) -> dict[int, float]:
    """Each candidate's coding cost in bits (spec 7.6's theory part), by rule number."""
    att_bits = attribute_test_bits(branch_bits_)
    nvals = [len(a.values) for a in schema.attributes]
    return {r.number: rule_bits(r.conditions, branch_bits_, att_bits, nvals, redundancy) for r in cands}


def learn_rules_in_passes(tree: Node | FlatTree, batches: Any, *, fingerprint: str, cf: float = 0.25,
                          fisher: float | None = None, redundancy: float = 1.0, annealing: bool = False,
                          seed: int | None = None, options: dict[str, Any] | None = None, jobs: int = 1,
                          report: Any = None, memory: int | None = None) -> tuple[RuleSet, RulesTrace]:
    """learn_rules(tree, data) over `batches` (data/batches.py: each call a fresh pass over the
    data's cases, in Dataset batches sharing one Schema), unweighted cases only: the same RuleSet
    and trace, from count tables (rules/passes.py) instead of the rows. `fingerprint`: the data's
    (Dataset.fingerprint); `report`: a rules.passes.PassReport, filled with passes and table sizes;
    `memory`: the bytes the grouped tables of the selection and the ordering may hold (None: no
    bound; beyond it an InputError names the stage); a class's subset search whose lists exceed
    1/SPILL_SHARE of it reads them from temporary files (rules/passes.py _spills). `jobs`: the threads each pass counts on
    (rules.passes.slice_threads), as many as the in-memory stages may use."""
    from ..rules.passes import cases_in_passes, slice_threads
    from ..rules.random import GlibcRandom
    cands, totals, stages = cases_in_passes(tree, batches, cf=cf, fisher=None if fisher is None else fisher / 100,
                                            report=report, memory=memory, threads=slice_threads(jobs))
    schema = totals["schema"]
    bits = candidate_bits(cands, schema, totals["branch_bits"], redundancy)
    # class by class as select_rules goes, each over its own table, drawing from one stream
    rng = GlibcRandom(1 if seed is None else seed)
    selected: list[CandidateRule] = []
    for c, (positive, counts) in stages.class_tables().items():
        mine = [r for r in cands if r.klass == c]
        # the classes the selection's budget counted without their search's index keep it in files
        spilled = schema.classes[c] in stages.report.spilled
        selected += select_rules(mine, bits, np.where(positive, c, -1), len(schema.classes), annealing=annealing,
                                 jobs=jobs, counts=counts, rng=rng, spill_above=0 if spilled else None)
    y, counts = stages.selected_table(selected)
    return rules_from_cases(cands, RuleCases(y=y, weights=counts.astype(np.float64), fingerprint=fingerprint,
                                             **totals), redundancy=redundancy, options=options, jobs=jobs,
                            selected=selected)


def fit_batches(source: Any, *, flag: str = "--stream", memory: int | None = None,
                **options: Any) -> tuple[RuleSet, Node, StreamFacts]:
    """The model `fit_dataset` learns from `source`'s rows, learnt in passes over its batches.

    Parameters
    ----------
    source : BatchSource
        From data/batches.open_batches (its schema, row count and fingerprint are used).
    flag : str, default="--stream"
        How learning in passes was asked for, named in the errors.
    memory : int or None
        The budget in bytes (DEFAULT_TABLE_MEMORY if None) that bounds the growth's AVC tables:
        a level's nodes are grown in as many passes as keep each pass's tables within it, and
        an attribute whose AVC group at one node may exceed it is refused before it is built;
        it bounds the rules stages' grouped tables too (rules/passes.py tables_in_passes).
    **options
        The pipeline's options (pipeline.DEFAULTS); those needing the rows are refused.

    Returns
    -------
    ruleset : RuleSet
        The same model as the in-memory fit (module docstring for data with unknown values).
    tree : Node
        The unpruned tree the rules came from.
    facts : StreamFacts

    Raises
    ------
    InputError
        A bad option, an option needing the rows in memory, data without two classes, an
        AVC group beyond `memory`, the input changing between passes.
    """
    from ..rules.passes import PassReport
    from ..tree.grow_passes import grow_in_passes
    from .stream import AVC_ENTRY_BYTES, DEFAULT_TABLE_MEMORY, StreamFacts, _Counted, needs_rows, refuse_in_memory
    schema = source.schema
    if "costs" in options:
        options = {**options, "costs": resolved(options["costs"], schema.classes)}
    checked = check_options(options)
    refuse_in_memory(checked, flag)
    if checked["costs"] is not None:
        # the grown trees differ in the class of empty branches (crx with '+, -: 5': grow_tree
        # labels them by the parent's count, grow_in_passes by its least cost), so the rules do
        raise needs_rows("misclassification costs (option costs, --costs)", flag)
    o = grower_options(checked)
    try:
        batches = _Counted(source, o.get("costs"))
        first = next(iter(batches()), None)
        if first is None:
            raise InputError(f"{source.source}: no cases")
        budget = DEFAULT_TABLE_MEMORY if memory is None else memory
        tree, info = grow_in_passes(batches, schema, min_objs=o["min_objs"], gain_ratio=o["gain_ratio"],
                                    costs=first.costs, memory=budget)
        require_classes(tree.class_dist, schema, int(source.n), source.source)
        rules_cf = o["rules_cf"] if o["rules_cf"] is not None else o["cf"]
        rules_report = PassReport()
        rs, _ = learn_rules_in_passes(tree, batches, fingerprint=source.fingerprint(), cf=rules_cf, fisher=o["fisher"],
                                      redundancy=o["redundancy"], annealing=o["annealing"], seed=o["seed"], options=o,
                                      jobs=o["jobs"], report=rules_report, memory=budget)
    finally:
        # a Spark source's rows encoded once, cached in Spark for the passes (learn/spark.py)
        release = getattr(source, "release", None)
        if release is not None:
            release()
    group = dict(info["largest_group"])
    group["bytes"] = group.get("entries", 0) * AVC_ENTRY_BYTES
    # + the schema pass and the fingerprint's (source.fingerprint reads the source itself)
    facts = StreamFacts(batches.passes + 2, batches.batches, int(getattr(source, "batch_rows", 0)), int(source.n),
                        group, info["passes_per_level"], info["table_bytes"], info["memory"],
                        list(getattr(source, "pass_bytes", [])), rules_report.as_dict(), info["exact_sum_levels"],
                        growths=info["growths"], settled=info["settled"], exact_weights=info["exact_weights"],
                        planned_bytes=info["planned_bytes"], tree_bytes=info["tree_bytes"],
                        accounted_bytes=info["accounted_bytes"])
    return rs, tree, facts


def sifting_stages(ruleset: RuleSet, trace: RulesTrace, data: Dataset) -> list[RuleSet]:
    """`ruleset` as it stood before sifting (spec 7.9), then after each rule sifting dropped, in
    turn: the last is `ruleset`'s rules. `trace` and `data` are those `ruleset` was learnt with.

    c4.5rules prints a tree's "Final rules" before sifting and evaluates every stage.
    """
    kept = {r.id: r for r in ruleset.rules}
    class_n = _class_totals(data)
    # a dropped rule never reaches the model: its used/wrong stay 0 (every stage is re-evaluated)
    stage = replace(ruleset, rules=tuple(kept.get(r.number) or _public_rule(r, data.schema, class_n, data.total_weight, 0, 0)
                                         for r in trace.final))
    stages = [stage]
    for number in trace.dropped:
        stage = replace(stage, rules=tuple(r for r in stage.rules if r.id != number))
        stages.append(stage)
    return stages


def _class_totals(data: Dataset) -> np.ndarray:
    """Training cases per class, or their summed weight."""
    return np.bincount(data.y, minlength=len(data.schema.classes)) if data.weights is None else data.class_weights()


def count(v: Any) -> int | float:
    """A count as the model records it: a whole number as an int (every count of unweighted
    cases, and of whole weights), a sum of fractional weights as a float to 12 digits."""
    v = float(v)
    # 12 digits: sums of the same weights in different orders print alike
    return int(v) if v.is_integer() else float(f"{v:.12g}")


def _public_rule(r: CandidateRule, schema: Any, class_n: np.ndarray, total_weight: float, used: float,
                 wrong: float) -> Rule:
    conds = tuple(_condition(t, schema) for t in r.conditions)
    error = evidence_rate(float(np.float32(r.error)))
    prior = class_n[r.klass] / total_weight
    return Rule(r.number, conds, schema.classes[r.klass], count(r.covered), count(r.errors),
                error, float(f"{(1.0 - error) / prior:.{EVIDENCE_DIGITS}g}"), used, wrong)


def _condition(t: CondTest, schema: Any) -> Condition:
    attr = schema.attributes[t.attribute]
    if t.kind == THRESHOLD:
        return Condition(attr.name, "<=" if t.outcome == 0 else ">", float(t.cut))
    if t.kind == DISCRETE:
        return Condition(attr.name, "=", attr.values[t.outcome])
    return Condition(attr.name, "in", tuple(attr.values[v] for v in sorted(t.values)))


def _require_labels(data: Dataset) -> None:
    if data.y is None:
        raise InputError(f"{data.source}: the data has no class column")
    if data.n == 0:
        raise InputError(f"{data.source}: no cases")
    require_classes(np.bincount(data.y, minlength=len(data.schema.classes)), data.schema, data.n, data.source)


def require_classes(class_counts: np.ndarray, schema: Any, n: int, source: str) -> None:
    """InputError unless the cases (`class_counts`: their number or weight per class) hold two classes."""
    present = np.flatnonzero(np.asarray(class_counts) > 0)
    if len(present) < 2:
        raise InputError(f"{source}: all {n} cases are of class"
                         f" {schema.classes[int(present[0])]!r}; learning needs at least two classes, not one class")


def as_dataset(data: Any, target: str | None = None, *, read: ReadOptions | None = None, jobs: int = 1,
               **kinds: Iterable[str]) -> tuple[Dataset, Dataset | None]:
    """Training data from a Dataset, DataFrame (pandas, polars, pyarrow), CSV/Parquet path or C4.5 stem
    (`jobs`: threads that may cut a large C4.5 data file)."""
    if isinstance(data, Dataset):
        return data, None
    if is_frame(data):
        if target is None:
            raise InputError("a DataFrame needs target= (the class column)")
        return from_frame(data, target, read=read, **kinds), None
    if isinstance(data, (str, os.PathLike)):
        return load_data(data, target=target, test=False, read=read, jobs=jobs, **kinds)
    raise InputError(f"cannot learn from {type(data).__name__}: give a DataFrame, a path or a Dataset")


def _names_duckdb(data: Any) -> bool:
    # a path only: str() of a DataFrame renders it (14 ms a fit on a small table)
    return isinstance(data, (str, os.PathLike)) and str(data).startswith("duckdb:")


def fit(data: Any, target: str | None = None, *, discrete: Iterable[str] = (), continuous: Iterable[str] = (),
        ignore: Iterable[str] = (), na_values: Iterable[str] = (), keep_na_tokens: bool = False,
        sep: str | None = None, decimal: str = ".",
        encoding: str = "utf-8", fold_case: bool = False, strict: bool = False,
        sample_weight: Any = None, class_weight: Any = None, stream: bool = False, memory: str | int | None = None,
        batch_rows: int = 100_000, query: str | None = None, progress: Progress | None = None,
        **options: Any) -> RuleSet | BoostedRuleSet:
    """Learn a C4.5-rules RuleSet in one call, from a table, a file or a Dataset.

    Parameters
    ----------
    data : DataFrame (pandas, polars, pyarrow), str or path, or Dataset
        The training cases: a table, a CSV/Parquet file, or a C4.5 stem (``.names``/``.data``).
    target : str or None, default=None
        The class column of a table or CSV/Parquet file.
    discrete, continuous, ignore : sequence of str, default=()
        Columns to read as discrete, as continuous, or to leave out.
    na_values, keep_na_tokens, sep, decimal, encoding
        How a table's cells are read (data/reading.py); a C4.5 stem takes none of them.
    fold_case : bool, default=False
        Merge class labels that differ only in case or surrounding spaces (the most frequent
        spelling wins).
    strict : bool, default=False
        Make the reader's warnings about a misread column (decimal commas, dates read as
        categories, labels differing in case) errors.
    sample_weight : array-like, str or None, default=None
        One weight per case, or the name of a column of the table holding them.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each case's weight by its class's (data/weights.py).
    stream : bool, default=False
        Learn in passes over batches of the file's rows, never holding them (docs/large-data.md):
        the same model on data without unknown values; options that need the rows in memory
        (boosting, windowing, winnowing, other growers, subset tests, weights) are refused.
    memory : str, int or None, default=None
        A memory budget (``"2GB"``, or bytes): learn in passes when the in-memory fit's estimated
        peak (rows x columns x 32 bytes) exceeds it, and refuse an AVC group beyond it.
    batch_rows : int, default=100000
        Cases per batch when learning in passes (speed and memory only, never the model).
    query : str or None, default=None
        The SQL a ``duckdb:FILE.db`` input runs.
    progress : callable or None, default=None
        Told of each stage of the learning, `progress(stage, done, total, **info)`
        (c45rules/progress.py); changes nothing learnt.
    **options
        The pipeline's options with their recorded names and the reference's defaults
        (pipeline.DEFAULTS: ``cf``, ``min_objs``, ``grower``, ``cp``, ``seed``, ``jobs``,
        ``trials`` ...); ``costs`` ({(predicted, true): cost} or a C5.0 ``.costs`` file)
        makes every class choice minimise the expected cost (data/costs.py). C45Rules
        spells them by stage (docs/estimator.md).

    Returns
    -------
    RuleSet, or BoostedRuleSet when ``trials`` > 1 (rules/boost.py).

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> print(fit(df, target="class").rules[0])
    rule 1: if a <= 2 then n [87.1%]
    """
    read = read_options(na_values, keep_na_tokens, sep, decimal, encoding, fold_case, strict)
    from .spark import is_spark_frame, open_spark
    if is_spark_frame(data):
        from .stream import needs_rows, parse_memory
        if sample_weight is not None or class_weight is not None:
            raise needs_rows("case and class weights", "a Spark DataFrame")
        source = open_spark(data, target, read=read, batch_rows=batch_rows, **_kinds(discrete, continuous, ignore))
        return fit_batches(source, flag="a Spark DataFrame", memory=None if memory is None else parse_memory(memory),
                           **options)[0]
    if stream or memory is not None or query is not None or _names_duckdb(data):
        from .stream import open_for_passes
        streamed = open_for_passes(data, target, read=read, stream=stream, memory=memory, batch_rows=batch_rows,
                                   query=query, weighted=sample_weight is not None or class_weight is not None,
                                   flags=("stream=True", "memory="), **_kinds(discrete, continuous, ignore))
        if streamed is not None:
            source, budget, flag = streamed
            return fit_batches(source, flag=flag, memory=budget, **options)[0]
    jobs = options.get("jobs", 1)     # checked with the other options, after the reading
    train, _ = as_dataset(data, target, read=read, jobs=jobs if isinstance(jobs, int) else 1,
                          **_kinds(discrete, continuous, ignore))
    name = "sample_weight"
    if isinstance(sample_weight, str):
        name = sample_weight
        train, sample_weight = split_weights(train, sample_weight, "sample_weight")
    return fit_dataset(weighted(train, sample_weight, class_weight, name), progress=progress, **options)[0]


def _kinds(discrete, continuous, ignore) -> dict:
    out = {}
    for k, v in (("discrete", discrete), ("continuous", continuous), ("ignore", ignore)):
        if v:
            out[k] = list(v)
    return out


def fit_dataset(train: Dataset, *, progress: Progress | None = None,
                **options: Any) -> tuple[RuleSet | BoostedRuleSet, Tree, RulesTrace]:
    """Tree and rules on an encoded Dataset; returns the model, the Tree and the rules trace
    (of the first trial when boosting: `trials` > 1 gives a BoostedRuleSet, rules/boost.py).
    The option `costs` may also name a C5.0 `.costs` file (data/costs.py).

    Parameters
    ----------
    train : Dataset
        The encoded training cases (their weights and costs, if any, included).
    progress : callable or None, default=None
        Told of each boosting trial and each stage (c45rules/progress.py); changes nothing learnt.
    **options
        The pipeline's options, as `fit` takes them (pipeline.DEFAULTS: ``cf``, ``min_objs``,
        ``grower``, ``trials``, ``costs`` ...).

    Returns
    -------
    model : RuleSet or BoostedRuleSet
        A BoostedRuleSet when ``trials`` > 1.
    tree : Tree
        The tree the rules came from (the first trial's when boosting).
    trace : RulesTrace
        What c4.5rules printed along the way (see `learn_rules`).

    Raises
    ------
    InputError
        An unknown or bad option, an option of another grower, data without labels or
        with one class, or options that do not go together (naming them).

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit_dataset
    >>> from c45rules.data.frame import from_frame
    >>> ds = from_frame(pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5}), "class")
    >>> model, tree, trace = fit_dataset(ds, cf=0.5)
    >>> type(model).__name__, model.options_dict["cf"], len(model.rules)
    ('RuleSet', 0.5, 2)
    >>> fit_dataset(ds, colour="red")
    Traceback (most recent call last):
    ...
    c45rules.errors.InputError: unknown option(s): colour (known: ...)
    """
    train, o = fit_options(train, options)
    trials = int(options.get("trials", 1))
    if trials == 1:
        return _fit_once(train, o, progress=progress)
    from ..rules.boost import boost_trials
    first: list[tuple[Tree, RulesTrace]] = []
    started = [0]     # the trials begun: boost_trials calls learn once per trial

    def learn(data: Dataset, leaf_ratio: float | None) -> tuple[RuleSet, int | None]:
        # the later trials' trees are not pruned: their rules come from the unpruned tree, and
        # only the first trial's pruned tree is used (its leaves set the leaf ratio; fit_dataset
        # returns it)
        report(progress, "trial", started[0], trials)
        started[0] += 1
        rs, tree, trace = _fit_once(data, o, leaf_ratio=leaf_ratio, prune=not first, progress=progress)
        if not first:
            first.append((tree, trace))
        return rs, None if tree.pruned is None else tree.pruned.leaves()

    built = [t.ruleset for t in boost_trials(train, trials, learn) if t.kept]
    rs1 = built[0]
    recorded = tuple(sorted((*rs1.options, ("trials", trials), ("trials_built", len(built)))))
    model = BoostedRuleSet(tuple(built), recorded, rs1.fingerprint, rs1.version)
    return model, *first[0]


def _fit_once(train: Dataset, o: dict[str, Any], *, leaf_ratio: float | None = None,
              prune: bool = True, progress: Progress | None = None) -> tuple[RuleSet, Tree, RulesTrace]:
    """One tree and its ruleset for checked grower options `o` (winnowed attributes left out;
    `leaf_ratio` and `prune` as grow_with's, for boosting's later trials)."""
    tree = grow_with(train, o, leaf_ratio=leaf_ratio, prune=prune, progress=progress)
    rs, trace = rules_of(tree, train, o, progress=progress)
    return rs, tree, trace


def fit_options(train: Dataset, options: dict[str, Any]) -> tuple[Dataset, dict[str, Any]]:
    """`train` with its costs, and the checked options a model of it is learnt with and records
    (the winnowed attributes among them when winnowing is on), or InputError."""
    if "costs" in options:
        options = {**options, "costs": resolved(options["costs"], train.schema.classes)}
    checked = check_options(options)
    o = grower_options(checked)
    _require_labels(train)
    check_weighted(train, o)
    trials = checked["trials"]
    if trials > 1 and o.get("soft"):
        raise InputError(f"option soft (c4.5 -p) keeps one pruned tree: boosting (trials {trials}) grows one per trial")
    check_soft(train, o)
    if trials > 1 and o.get("grower", "c45") != "c45":
        raise InputError(f"boosting (trials {trials}) grows c4.5 trees on reweighted cases: it applies to"
                         f" grower c45, not to grower {o['grower']!r}")
    # the rules' classes and default class minimise the expected cost too (rules/order.py); boosted,
    # every trial's, and the vote decides by cost (boosted.py)
    train = with_costs(train, o.get("costs"))
    if checked["winnow"]:
        # recorded only when on, so that every other model's options stay as they were
        o = {**o, "winnow": True, "winnowed": list(winnowed_attributes(train, o))}
    return train, o


def rules_of(tree: Tree, train: Dataset, o: dict[str, Any],
             progress: Progress | None = None) -> tuple[RuleSet, RulesTrace]:
    """The rules of fit_options' `o` from the tree grown with them (its unpruned tree, spec 7);
    `progress` told of the stages (c45rules/progress.py)."""
    rules_cf = o["rules_cf"] if o["rules_cf"] is not None else o["cf"]
    learn_on = without(train, set(o["winnowed"])) if o.get("winnowed") else train
    rs, trace = learn_rules(tree, learn_on, cf=rules_cf, fisher=o["fisher"], redundancy=o["redundancy"],
                            annealing=o["annealing"], seed=o["seed"], options=o, jobs=o["jobs"],
                            progress=progress)
    if learn_on is not train:    # the model describes the data it was given, every column
        rs = replace(rs, schema=train.schema, fingerprint=train.fingerprint())
    return rs, trace


def fit_rulesets(train: Dataset, option_sets: list[dict[str, Any]],
                 progress: Progress | None = None) -> list[RuleSet]:
    """fit_dataset's RuleSet for each of the option sets, one c4.5 tree grown for all those that
    differ in cf alone: cf prunes, and the rules come from the unpruned tree (spec 7), so they
    are the same as with a tree grown for each (tune's grid, where cf is one axis). Without
    discrete attributes, subset (which groups their values) is left out of the match too.
    `progress` hears of each option set (stage candidate, when there are several) and its stages."""
    same_tree = {"cf"} | (set() if any(a.kind == "discrete" for a in train.schema.attributes) else {"subset"})
    grown: dict[str, Tree] = {}
    out = []
    for i, options in enumerate(option_sets):
        report_candidate(progress, i, len(option_sets))
        costed, o = fit_options(train, options)
        if o.get("grower", "c45") == "c45":
            key = repr(sorted((k, v) for k, v in o.items() if k not in same_tree))
            if key not in grown:
                grown[key] = grow_with(costed, o, progress=progress)
            tree = grown[key]
        else:
            tree = grow_with(costed, o, progress=progress)
        out.append(rules_of(tree, costed, o, progress)[0])
    return out


def report_candidate(progress: Progress | None, done: int, total: int) -> None:
    """Stage candidate (option set `done` of `total`) when there are several to tell apart."""
    if total > 1:
        report(progress, "candidate", done, total)


def winnowed_attributes(train: Dataset, o: dict[str, Any]) -> tuple[str, ...]:
    """The attributes winnowing screens out of `train` for a model of checked options `o` (winnow.py)."""
    from ..tree.growers import tree_classes
    from .winnow import winnow
    return winnow(train, lambda d: grow_with(d, o), tree_classes, seed=o["seed"] if o["seed"] is not None else 0)


def check_weighted(train: Dataset, o: dict[str, Any]) -> None:
    """InputError for Fisher's exact test on fractional weights (the growers other than c45 are
    refused weights in learn_tree)."""
    w = train.weights
    if w is None:
        return
    if o.get("fisher") is not None and not (w == np.round(w)).all():
        raise InputError("option fisher (Fisher's exact test) needs whole counts: weights must then be whole numbers")


# c4.5 R8 has no costs: its -p tree is grown, pruned and softened by errors alone, and the
# read-order replay that grows it (tree/window.py) knows no costs
SOFT_COSTS = "option soft (c4.5 -p's soft thresholds) does not go with misclassification costs (option costs)"


def check_soft(train: Dataset, o: dict[str, Any]) -> None:
    """InputError when option soft (c4.5 -p) meets what c4.5 -p's tree cannot be grown with:
    another grower, case or class weights, misclassification costs."""
    if not o.get("soft"):
        return
    if o.get("grower", "c45") != "c45":
        raise InputError(f"option soft (c4.5 -p's soft thresholds) applies to grower c45, not to grower {o['grower']!r}")
    if train.weights is not None:
        raise InputError("option soft (c4.5 -p's soft thresholds) counts whole cases: it does not go with case or"
                         " class weights")
    if o.get("costs") is not None:
        raise InputError(SOFT_COSTS)


def soft_tree(train: Dataset, o: dict[str, Any]) -> Tree:
    """c4.5 -p's tree for checked options `o`: grown and pruned over c4.5's Item array in the order
    the cases were read (fractional weights summed as c4.5 sums them), and each cut of the pruned
    tree given its soft band (Node.soft); `tree -p` prints it, `fit -p --keep-tree` keeps it."""
    from ..tree.soft import soften
    from ..tree.window import read_order_tree
    check_soft(train, o)
    unpruned, pruned = read_order_tree(train, cf=o.get("cf", 0.25), min_objs=o.get("min_objs", 2),
                                       gain_ratio=o.get("gain_ratio", True), subset=o.get("subset", False))
    soften(pruned, train)
    return Tree(train.schema, unpruned, pruned, o)


def grow_with(train: Dataset, o: dict[str, Any], *, leaf_ratio: float | None = None, prune: bool = True,
              progress: Progress | None = None) -> Tree:
    """The tree of checked options `o` (grower_options' result, or a model's recorded options;
    winnowed attributes are left out of the growing, the tree keeps the data's schema);
    `leaf_ratio` and `prune` for boosting's later trials (learn_tree); `progress` told of the
    stages grow and prune (c45rules/progress.py)."""
    if o.get("winnowed"):
        tree = grow_with(without(train, set(o["winnowed"])), {**o, "winnowed": []}, leaf_ratio=leaf_ratio,
                         prune=prune, progress=progress)
        tree.schema = train.schema
        return tree
    if o.get("soft"):
        report(progress, "grow")
        return soft_tree(train, o)
    name = o.get("grower", "c45")
    own = {k: o.get(k, v) for k, v in GROWER_OPTIONS[name].items()}
    return learn_tree(train, cf=o.get("cf", 0.25), jobs=o.get("jobs", 1), grower=name, seed=o.get("seed"),
                      costs=o.get("costs"), progress=progress, **own) if name != "c45" else \
        learn_tree(train, cf=o.get("cf", 0.25), jobs=o.get("jobs", 1), costs=o.get("costs"), leaf_ratio=leaf_ratio,
                   prune=prune, progress=progress, **own)
