"""What the commands share on the command line: the parser class, value types and option groups.

Options follow c4.5 and c4.5rules: `-c` is the confidence level in percent (default 25),
`-m` the minimum cases per branch, `-g` the gain criterion instead of gain ratio, `-s`
subset tests, `-F` the Fisher significance level in percent, `-r` the redundancy factor,
`-a` simulated annealing for the rule subset search, `-u` evaluation on STEM.test.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from ..data.reading import ReadOptions


def did_you_mean(word: str, choices: list[str]) -> str:
    """' (did you mean X?)' for the choice nearest `word`, or '' when none is near."""
    import difflib      # only for a misspelt choice
    near = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


class Parser(argparse.ArgumentParser):
    """argparse with the one-line error format of the rest of the command and suggestions."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Exit 2 with `c45rules: error: MESSAGE`, the nearest choice suggested for a misspelt one."""
        # the choices are quoted in some Python versions' message and not in others
        m = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)$", message)
        if m:
            message += did_you_mean(m.group(1), [c.strip().strip("'") for c in m.group(2).split(",")])
        self.exit(2, f"c45rules: error: {message} (see '{self.prog} --help')\n")

    # set on a command whose optional positional follows its options (export MODEL --to dbt DIR):
    # plain argparse gives a '?' positional its empty match before reaching the options
    intermixed = False
    _mixing = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """argparse's; for an `intermixed` command, positionals anywhere among the options."""
        if not self.intermixed or self._mixing:
            return super().parse_known_args(args, namespace)
        self._mixing = True   # parse_known_intermixed_args calls back here
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        """argparse's, with the nearest option suggested for each one not recognised."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command_parser(getattr(parsed, "command", None))
            options = [o for a in command._actions for o in a.option_strings]
            hints = "".join(did_you_mean(x.split("=")[0], options) for x in extras if x.startswith("-"))
            command.error(f"unrecognized arguments: {' '.join(extras)}{hints}")
        return parsed

    def _command_parser(self, name: str | None) -> argparse.ArgumentParser:
        """The sub-command's parser named `name`, or this one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and name in action.choices:
                return action.choices[name]
        return self


def _number(text: str, convert, ok, expected: str):
    """`convert(text)` if it converts and passes `ok`, else argparse's error naming `expected`."""
    try:
        v = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(v):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return v


def percent(text: str) -> float:
    """A percentage in (0, 100]."""
    return _number(text, float, lambda v: 0 < v <= 100, "a percentage in (0, 100]")


def confidence_percent(text: str) -> float:
    """-c: a percentage in [1, 100]; below 1 it is refused as most likely meant as a fraction."""
    v = percent(text)
    if v < 1:
        raise argparse.ArgumentTypeError(
            f"{text} is read as a percentage, as c4.5 reads -c: {text}% (a far harsher pruning than"
            f" the default 25%), not the fraction {text} = {100 * v:g}%; write -c {100 * v:g} for"
            f" {100 * v:g}% (values below 1 are refused)")
    return v


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    return _number(text, int, lambda v: v >= 1, "a whole number >= 1")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    return _number(text, float, lambda v: v > 0 and v != float("inf"), "a number > 0")


def jobs(text: str) -> int:
    """A worker count >= 1, or -1 for one per core."""
    return _number(text, int, lambda v: v >= 1 or v == -1, "a whole number >= 1, or -1")


def whole(text: str) -> int:
    """Any whole number."""
    return _number(text, int, lambda v: True, "a whole number")


def common() -> argparse.ArgumentParser:
    """-q and --debug, accepted after the command as well as before it."""
    # SUPPRESS: given after the command these override, absent they keep the top-level value
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress messages on stderr")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the traceback of an error")
    return p


def data_options(*, test: bool = True) -> argparse.ArgumentParser:
    """DATA (a C4.5 stem or a table), its class column and the kinds of its columns."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("data")
    g.add_argument("data", metavar="DATA",
                   help="C4.5 stem (STEM.names + STEM.data; the .names or .data path also works)"
                        " or a CSV/Parquet file with --target")
    g.add_argument("--target", metavar="COL", help="class column of a CSV/Parquet file")
    g.add_argument("--names", metavar="FILE.names",
                   help="take the attributes and classes of a CSV from a C4.5 .names file")
    for kind in ("discrete", "continuous", "ignore"):
        g.add_argument(f"--{kind}", metavar="A,B", action="append", default=[],
                       help=f"CSV columns to treat as {kind} (comma-separated, repeatable"
                            + ("; default: inferred, a column whose known values are all numbers being"
                               " continuous, any other discrete)" if kind != "ignore" else ")"))
    if test:
        g.add_argument("--test", metavar="FILE", help="also evaluate on FILE (C4.5 .test/.data or CSV/Parquet)")
        g.add_argument("-u", "--unseen", action="store_true",
                       help="also evaluate on STEM.test, as c4.5 -u")
    g = p.add_argument_group("case weights")
    g.add_argument("--weights", metavar="COL",
                   help="weigh each case by numeric column COL (not an attribute; >= 0, 0 leaves the case out);"
                        " in a C4.5 stem, COL is declared continuous in the .names file")
    g.add_argument("--class-weights", metavar="A=2,B=1",
                   help="multiply the cases' weights by their class's ('balanced': n / (k * count of the class))")
    g = p.add_argument_group("misclassification costs")
    g.add_argument("--costs", metavar="FILE",
                   help="C5.0 .costs file ('predicted, true: cost' lines; unlisted errors cost 1): the tree's,"
                        " the rules' and the default class minimise the expected cost (boosted: every trial's,"
                        " and the vote's class of least expected cost wins); a C4.5 stem's STEM.costs"
                        " is read without it, as C5.0 does ('--costs none': not)")
    _add_reading(p)
    # ---- issue 49.5 (helper `first`): training tables that are misread without a word ----
    g = p.add_argument_group("misread training tables")
    g.add_argument("--fold-case", action="store_true",
                   help="merge class labels that differ only in case or surrounding spaces (ADELIE, Adelie,"
                        " ' adelie') into their most frequent spelling")
    g.add_argument("--strict", action="store_true",
                   help="a warning that a column is misread (decimal commas, dates read as categories, class"
                        " labels differing only in case, stray strings) is an error (exit 2)")
    # ---- end of issue 49.5's options ----
    return p


def reading_options() -> argparse.ArgumentParser:
    """How a CSV/Parquet table's cells are read, for the commands that take no data_options."""
    p = argparse.ArgumentParser(add_help=False)
    _add_reading(p)
    return p


def _add_reading(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reading tables (CSV/Parquet)")
    g.add_argument("--na-values", metavar="A,B", action="append", default=[],
                   help="more texts read as unknown (comma-separated, repeatable); pandas' NA, N/A,"
                        " NULL, NaN, None, ..., the empty cell and ? are unknown already")
    g.add_argument("--keep-na-tokens", action="store_true",
                   help="read pandas' missing-value tokens (NA, None, ...) as ordinary values;"
                        " the empty cell and ? stay unknown")
    g.add_argument("--sep", metavar="SEP",
                   help="field separator: ',' ';' tab ('\\t' or 'tab') or '|' (default: tab for .tsv,"
                        " else detected from the first lines)")
    g.add_argument("--decimal", choices=(".", ","), default=".",
                   help="decimal mark of the numbers (',': 1,5 is 1.5; then the separator is not ',')")
    g.add_argument("--encoding", default="utf-8", metavar="NAME",
                   help="text encoding of a CSV (default utf-8; e.g. latin-1, cp1252)")


def usesurrogate(text: str) -> int:
    """rpart's usesurrogate: 0, 1 or 2."""
    return _number(text, int, lambda v: v in (0, 1, 2), "0, 1 or 2")


def unit_interval(text: str) -> float:
    """A number in [0, 1]."""
    return _number(text, float, lambda v: 0 <= v <= 1, "a number in [0, 1]")


def probability(text: str) -> float:
    """A number in (0, 1]."""
    return _number(text, float, lambda v: 0 < v <= 1, "a number in (0, 1]")
def open_unit_interval(text: str) -> float:
    """A number in (0, 1)."""
    return _number(text, float, lambda v: 0 < v < 1, "a number in (0, 1)")


def at_least_two(text: str) -> int:
    """A whole number >= 2."""
    return _number(text, int, lambda v: v >= 2, "a whole number >= 2")


def non_negative_float(text: str) -> float:
    """A finite number >= 0."""
    return _number(text, float, lambda v: 0 <= v < float("inf"), "a number >= 0")


def natural(text: str) -> int:
    """A whole number >= 0."""
    return _number(text, int, lambda v: v >= 0, "a whole number >= 0")


GROWER_HELP = ("tree grower: c45 (C4.5 Release 8, the default), cart (R rpart 4.1.19's method='class':"
               " Gini, binary splits, cost-complexity pruning at --cp, surrogate splits), id3 (the classic"
               " ID3: information gain, multiway splits on discrete attributes, binary cuts on continuous"
               " ones, no pruning), j48 (Weka 3.6's J48: C4.5 as Weka ports it; also --weka-compat), chaid"
               " (Kass's CHAID: categories merged by chi-square, multiway splits, Bonferroni-adjusted"
               " p-values, stop by significance), quest (Loh & Shih's QUEST: the split attribute by F and"
               " chi-square tests, unbiased; split points by quadratic discriminant analysis; cost-complexity"
               " pruning by cross-validation and the 1-SE rule)")
# cart's flags: (option, type, metavar, help); their default None means "rpart's default"
_CART_FLAGS = (
    ("--cp", unit_interval, "CP", "cart: complexity parameter; a split must cut the risk by cp x the root's (default 0.01)"),
    ("--minsplit", positive_int, "N", "cart: fewest cases in a node to try a split (default 20)"),
    ("--minbucket", positive_int, "N", "cart: fewest cases in a leaf (default round(minsplit/3))"),
    ("--usesurrogate", usesurrogate, "0|1|2",
     "cart: unknown values: 0 stay at the node, 1 surrogates, 2 surrogates then the majority way (default 2)"),
    ("--maxsurrogate", natural, "N", "cart: surrogate splits kept per node (default 5)"),
)
# J48's flags (Weka's letter in the help): (option, our option name, value when given, help)
_J48_FLAGS = (
    ("--unpruned", "unpruned", True, "j48 (-U): no pruning (subtrees that do not reduce the training errors"
                                     " are still collapsed)"),
    ("--binary-splits", "binary_splits", True, "j48 (-B): binary tests on nominal attributes, one value against"
                                               " the rest"),
    ("--reduced-error-pruning", "reduced_error_pruning", True,
     "j48 (-R): grow on all stratified folds but one (--prune-folds) and prune on that one"),
    ("--no-subtree-raising", "subtree_raising", False, "j48 (-S): prune without raising the largest branch"),
    ("--no-mdl-correction", "mdl_correction", False, "j48 (-J): no MDL penalty on the gain of a cut"),
    ("--laplace", "laplace", True, "j48 (-A): Laplace-smoothed leaf probabilities (the tree stays the same)"),
    ("--no-collapse", "collapse", False, "j48 (-O): keep subtrees that do not reduce the training errors"),
)

# quest's flags, as cart's (their default None means Loh & Shih's default)
_QUEST_FLAGS = (
    ("--quest-alpha", open_unit_interval, "A",
     "quest: significance level of the attribute tests, Bonferroni-adjusted (default 0.05)"),
    ("--min-node", at_least_two, "N", "quest: fewest cases in a node to try a split (default 10)"),
    ("--se-rule", non_negative_float, "S", "quest: prune to the smallest tree within S standard errors of the"
                                           " fewest cross-validated errors (default 1)"),
)


# chaid's flags, as _CART_FLAGS; the option is the flag's name with '_' for '-'
_CHAID_FLAGS = (
    ("--alpha-merge", probability, "P", "chaid: merge two groups while their chi-square p-value is above P (default 0.05)"),
    ("--alpha-split", probability, "P", "chaid: split on the best attribute when its adjusted p-value is at most P"
                                        " (default 0.05)"),
    ("--min-parent", positive_int, "N", "chaid: fewest cases in a node to try a split (default 100)"),
    ("--min-child", positive_int, "N", "chaid: fewest cases in a group; smaller ones merge with their most similar"
                                       " neighbour (default 50)"),
    ("--bins", positive_int, "N", "chaid: continuous attributes binned into N equal-frequency bins first (SPSS: 10;"
                                  " default: every distinct value a category)"),
)


# options several growers read, each under its own library name: (flag, type, metavar, help,
# {grower: library option}); one spelling per concept (cli/vocabulary.py)
_SHARED_FLAGS = (
    ("--max-depth", positive_int, "N", "cart, chaid: deepest split level, the root at depth 0 (cart: default 30,"
                                       " at most 30, as rpart's maxdepth; chaid: default 3)",
     {"cart": "maxdepth", "chaid": "max_depth"}),
    ("--prune-folds", natural, "N", "j48 (-N): folds of --reduced-error-pruning, one held out (default 3; Weka's"
                                    " stratification, which --seed does not change); cart: prune at the cp of"
                                    " fewest errors in N-fold cross-validation (rpart's xval; default 0: none);"
                                    " quest: cross-validation folds choosing the pruning (default 10; 0: none)",
     {"j48": "folds", "cart": "xval", "quest": "prune_folds"}),
)
# deprecated spellings of the growers' options: (spelling, its own dest, the new flag, the growers
# it had a meaning for); each keeps that meaning and no other
_OLD_GROWER_FLAGS = (
    ("--maxdepth", "old_maxdepth", "--max-depth", ("cart",), positive_int),
    ("--xval", "old_xval", "--prune-folds", ("cart", "quest"), natural),
    ("--folds", "j48_folds", "--prune-folds", ("j48",), positive_int),
)
GROWERS = ("c45", "cart", "id3", "j48", "chaid", "quest")
# which growers read which option group: the help of `--grower G --help` shows G's alone
_GROUP_GROWERS = {"cart": ("cart",), "chaid": ("chaid",), "quest": ("quest",), "j48": ("j48",),
                  "c45": ("c45", "j48")}


class Deprecated(argparse.Action):
    """An old spelling: it does what it did, and warns once naming the new spelling."""

    def __init__(self, option_strings, dest, use: str = "", **kw) -> None:
        self.use, self.warned = use, False
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if not self.warned:
            self.warned = True
            print(f"c45rules: warning: {option_string} is deprecated, use {self.use}", file=sys.stderr)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def deprecated(g: argparse._ActionsContainer, spelling: str, use: str, dest: str, *,
               kind: Callable[[str], Any] | None = None, flag: bool = False,
               default: Any = None) -> None:
    """Add the hidden old `spelling` of option `use` to the group or parser `g`, storing in `dest`
    (a flag: True)."""
    if flag:
        g.add_argument(spelling, dest=dest, action=Deprecated, use=use, nargs=0, const=True, default=default,
                       help=argparse.SUPPRESS)
    else:
        g.add_argument(spelling, dest=dest, action=Deprecated, use=use, type=kind, default=default,
                       help=argparse.SUPPRESS)


# the grower whose options `--help` shows (set by cli.build_parser for a help request); None: all
HELP_GROWER: str | None = None

# one example per grower for `COMMAND --grower G --help` (DATA and the command's own options added)
GROWER_EXAMPLES = {
    "c45": "",
    "cart": " --grower cart --cp 0.02 --max-depth 5 --prune-folds 10 --seed 1",
    "id3": " --grower id3",
    "j48": " --grower j48 --reduced-error-pruning --prune-folds 3",
    "chaid": " --grower chaid --max-depth 3 --min-parent 50 --min-child 20",
    "quest": " --grower quest --min-node 40 --se-rule 0 --prune-folds 10",
}

C50_LETTERS = ("C4.5's letters keep C4.5's meanings; C5.0 uses some differently: C5.0's -t N is boosting"
               " trials (here --trials N; -t is c4.5's windowing trials), -w winnowing (here --winnow; -w is"
               " c4.5's window), -u N rule utility bands (here -u evaluates STEM.test), -g no global pruning"
               " (here the gain criterion), -I the seed (--seed), -X K cross-validation (c45rules cv"
               " --cv-folds K). All options: docs/options.md.")


def grower_epilog(command: str, grower: str, example: str) -> str:
    """The end of `COMMAND [--grower G] --help`: the other growers, C5.0's letters, one example."""
    others = ", ".join(g for g in GROWERS if g != grower)
    line = (f"options shown: the common ones and --grower {grower}'s; the other growers ({others}):"
            f" 'c45rules {command} --grower NAME --help'")
    if grower != "c45":
        first = example.split("\n")[0]
        data_end = first.index(" ", len(f"c45rules {command} ") + 1) if " -" in first else len(first)
        example = first[:data_end] + GROWER_EXAMPLES[grower] + first[data_end:]
    else:
        example = example.split("\n")[0]
    import textwrap
    return f"{textwrap.fill(line, 79)}\n\n{textwrap.fill(C50_LETTERS, 79)}\n\nexample:\n  {example}"


def _c45_help(text: str) -> str:
    """`text`, or hidden when --help is about another grower than c45 (windowing and -p are c4.5's)."""
    return text if HELP_GROWER in (None, "c45") else argparse.SUPPRESS


def tree_options(old_folds: bool = True, grower: str | None = None) -> argparse.ArgumentParser:
    """--grower, c4.5's -c -m -g -s, cart's rpart options, chaid's, J48's, quest's, --seed and -j
    (`old_folds` False: without J48's deprecated --folds, for `cv`, whose --folds were its own).
    `grower` (default HELP_GROWER; for --help): only its options are shown; all are accepted."""
    grower = grower or HELP_GROWER

    def shown(*growers: str) -> bool:
        return grower is None or grower in growers

    def help_of(text: str, *growers: str) -> str:
        return text if shown(*growers) else argparse.SUPPRESS

    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("tree grower")
    g.add_argument("--grower", choices=GROWERS, default="c45", help=GROWER_HELP)
    g.add_argument("--seed", type=whole, metavar="N",
                   help="seed of the random draws: the annealing's random() (default: glibc's default state)"
                        " and cart's and quest's cross-validation folds (default 0)")
    g.add_argument("-j", "--jobs", type=jobs, default=1, metavar="N",
                   help="workers: threads for the compiled steps and for cutting a large .data file,"
                        " else processes (default 1; -1: one per core); the results do not depend on it")
    for flag, kind, metavar, text, growers in _SHARED_FLAGS:
        g.add_argument(flag, type=kind, metavar=metavar, help=help_of(text, *growers))
    for spelling, dest, use, _, kind in _OLD_GROWER_FLAGS:
        if old_folds or spelling != "--folds":
            deprecated(g, spelling, use, dest, kind=kind)
    for name, flags in (("cart", _CART_FLAGS), ("chaid", _CHAID_FLAGS), ("quest", _QUEST_FLAGS)):
        if shown(name):
            g = p.add_argument_group(f"{name} (--grower {name})")
        for flag, kind, metavar, text in flags:
            g.add_argument(flag, type=kind, metavar=metavar, help=help_of(text, name))
        if name == "chaid":
            g.add_argument("--no-bonferroni", action="store_true",
                           help=help_of("chaid: compare attributes by their p-values as they are (the CHAID"
                                        " package's way), not by Kass's Bonferroni-adjusted ones", "chaid"))
    if shown("j48"):
        g = p.add_argument_group("Weka J48 (the j48 grower; -m and -c as J48's -M and -C)")
    g.add_argument("--weka-compat", action="store_true",
                   help=help_of("grow as Weka 3.6.14's J48 does where it differs from C4.5 R8 (the same as"
                                " --grower j48)", "j48", "c45"))
    for flag, name, value, text in _J48_FLAGS:
        g.add_argument(flag, dest=name, action="store_const", const=value, help=help_of(text, "j48"))
    # c4.5's -c is every pruning grower's confidence; -m -g -s are c4.5's (and -m J48's)
    g = p.add_argument_group("tree options (as c4.5)")
    g.add_argument("-c", "--cf", type=confidence_percent, default=25.0, metavar="CF",
                   help="pruning confidence level in percent, 1 to 100 (default 25): the tree's (c45, j48)"
                        " and the rules'")
    g.add_argument("-m", "--min-objs", type=positive_int, default=2, metavar="N",
                   help=help_of("at least two branches must hold N cases (default 2)", "c45", "j48"))
    g.add_argument("-g", "--gain", action="store_true",
                   help=help_of("gain criterion instead of gain ratio (C5.0's -g: no global pruning)", "c45"))
    g.add_argument("-s", "--subset", action="store_true",
                   help=help_of("tests on subsets of discrete values", "c45"))
    return p


def window_options() -> argparse.ArgumentParser:
    """c4.5's windowing -t -w -i (spec 5)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("windowing (as c4.5)")
    g.add_argument("-t", "--window-trials", dest="window_trials", type=trials_count, metavar="N",
                   help=_c45_help("grow N trees by windowing (1 to 10000): tree keeps the one of fewest estimated errors,"
                        " rules and fit the composite ruleset of all N (c4.5's -t; C5.0's boosting -t N is"
                        " --trials N here; default: off, one tree from all the cases)"))
    g.add_argument("-w", "--window", type=positive_int, metavar="N",
                   help=_c45_help("initial window of N cases (default max(2 sqrt(cases), cases/5)); implies -t 10"))
    g.add_argument("-i", "--increment", type=positive_int, metavar="N",
                   help=_c45_help("at most N misclassified cases join the window per cycle (default window/5, but at"
                        " least half of them); implies -t 10"))
    return p


# c4.5 R8 knows no costs: its -p tree is grown, pruned and softened by errors alone
SOFT_COSTS = ("-p (soft thresholds) does not go with misclassification costs (--costs FILE, or the stem's"
              " STEM.costs: give --costs none): c4.5 -p grows, prunes and softens its tree by errors alone")


def soft_options() -> argparse.ArgumentParser:
    """c4.5's soft thresholds -p."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("soft thresholds (as c4.5)")
    g.add_argument("-p", "--soft", action="store_true",
                   help=_c45_help("soft thresholds: each cut's [lower,upper] band (tree: printed as c4.5 -p prints it;"
                        " fit: kept with --keep-tree, and explain tells how close a case is to each cut)"))
    return p


def trials_count(text: str) -> int:
    """-t: c4.5 accepts 1 to 10000 trials."""
    n = positive_int(text)
    if n > 10000:
        raise argparse.ArgumentTypeError(f"{text}: at most 10000 trials")
    return n


def window_settings(args: argparse.Namespace) -> dict[str, int] | None:
    """{trials, window, increment} when windowing was asked for (-w or -i alone mean 10
    trials, as in c4.5), else None; window/increment None for their defaults."""
    trials = getattr(args, "window_trials", None)
    window, increment = getattr(args, "window", None), getattr(args, "increment", None)
    if trials is None and window is None and increment is None:
        return None
    return {"trials": trials or 10, "window": window, "increment": increment}


def boost_options() -> argparse.ArgumentParser:
    """C5.0's boosting: --trials N and -b (10 trials)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("boosting (as C5.0's -t N and -b)")
    # the upper bound is fit's (pipeline.MAX_TRIALS): importing it here would load numpy for --help
    g.add_argument("--trials", type=positive_int, metavar="N",
                   help="boost: up to N trials, each a tree and its rules on reweighted"
                        " cases, voting with their rules' confidences (fewer when a trial classifies every"
                        " training case or errs on half the weight; default 1: no boosting)")
    g.add_argument("-b", "--boost", action="store_true", help="boost with 10 trials (--trials 10)")
    return p


def boost_trials(args: argparse.Namespace) -> int:
    """The boosting trials asked: --trials N, else 10 for -b, else 1 (no boosting)."""
    trials = getattr(args, "trials", None)
    return trials if trials is not None else 10 if getattr(args, "boost", False) else 1


STREAM_HELP = ("learning larger than memory (docs/large-data.md): the rows are read in batches, one pass per"
               " tree level and per rule generalisation round, never held; the model file is the in-memory"
               " fit's (on data with unknown values its fractional counts may differ in the last bits).")


def stream_options() -> argparse.ArgumentParser:
    """fit/rules/tree in passes over record batches (issue 50): --stream, --memory, --batch-rows, --query."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("larger than memory", STREAM_HELP)
    g.add_argument("--stream", action="store_true",
                   help="always learn in passes (what needs the rows is refused)")
    g.add_argument("--memory", metavar="SIZE",
                   help="e.g. 2GB: learn in passes beyond it; it bounds their tables")
    g.add_argument("--batch-rows", type=positive_int, default=100_000, metavar="N",
                   help="rows per batch in passes (default 100000)")
    g.add_argument("--query", metavar="SQL",
                   help="SQL run on a duckdb:FILE.db input")
    g.add_argument("--engine", choices=("default", "spark"), default="default",
                   help="spark: the passes as Spark jobs (docs/spark-learning.md); DATA a CSV/Parquet path,"
                        " or spark:db.tbl a catalog table")
    g.add_argument("--master", default="local[2]", metavar="URL",
                   help="with --engine spark: the Spark master (default local[2])")
    return p


def rule_options() -> argparse.ArgumentParser:
    """c4.5rules' -F -r -a and the annealing seed."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("rule options (as c4.5rules)")
    g.add_argument("-F", "--fisher", type=percent, metavar="P",
                   help="drop conditions by Fisher's exact test at significance P percent (default: off)")
    g.add_argument("-r", "--redundancy", type=positive_float, default=1.0, metavar="R",
                   help="redundancy factor for the coding cost of rules (default 1)")
    g.add_argument("-a", "--annealing", action="store_true",
                   help="simulated annealing for the rule subset search (its seed: --seed)")
    g.add_argument("--winnow", action="store_true",
                   help="screen out attributes that do not help, on halves of the training data,"
                        " before learning (as C5.0's -w; the dropped ones are reported and recorded)")
    return p


def kinds(args: argparse.Namespace) -> dict[str, list[str]]:
    """{'discrete'|'continuous'|'ignore': column names} from the repeatable kind options."""
    out = {}
    for kind in ("discrete", "continuous", "ignore"):
        names = [n.strip() for item in getattr(args, kind, []) for n in item.split(",") if n.strip()]
        if names:
            out[kind] = names
    return out


def read_options(args: argparse.Namespace) -> ReadOptions:
    """The ReadOptions the reading options of `args` give (InputError for a bad one)."""
    from ..data.reading import ReadOptions
    tokens = [t for item in getattr(args, "na_values", []) for t in item.split(",")]
    if any(t.strip() == "" for t in tokens):
        raise InputError("--na-values: an empty token (the empty cell is unknown already)")
    return ReadOptions(tuple(t.strip() for t in tokens), getattr(args, "keep_na_tokens", False),
                       getattr(args, "sep", None), getattr(args, "decimal", "."),
                       getattr(args, "encoding", "utf-8"),
                       getattr(args, "fold_case", False), getattr(args, "strict", False))  # issue 49.5


def _given(args: argparse.Namespace, flags: tuple) -> dict[str, Any]:
    """{option: value} of the flags given on the command line (the option: the flag's name with
    '_' for '-'; a flag not given is None)."""
    names = (flag[2:].replace("-", "_") for flag, *_ in flags)
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


def learning_tree_options(args: argparse.Namespace) -> dict[str, Any]:
    """Library options from the tree flags (cf in percent on the command line): the grower's
    own and the shared ones; a flag of another grower is an InputError."""
    grower = getattr(args, "grower", "c45")
    if getattr(args, "weka_compat", False):
        if grower not in ("c45", "j48"):
            raise InputError(f"--weka-compat grows J48's tree: it does not go with --grower {grower}")
        grower = "j48"
    shared = _shared_options(args, grower)
    j48 = {name: getattr(args, name) for _, name, _, _ in _J48_FLAGS if getattr(args, name, None) is not None}
    if j48 and grower != "j48":
        flags = [f for f, name, _, _ in _J48_FLAGS if name in j48]
        raise InputError(f"{', '.join(flags)}: option(s) of J48 (--weka-compat or --grower j48), not of --grower {grower}")
    cart = _given(args, _CART_FLAGS)
    quest = _given(args, _QUEST_FLAGS)
    {"j48": j48, "cart": cart, "quest": quest}.get(grower, {}).update(shared)
    if grower != "quest" and quest:
        raise InputError(f"{', '.join('--' + k.replace('_', '-') for k in quest)}: option(s) of --grower quest,"
                         f" not of --grower {grower}")
    c45 = [f for f, given in (("-m", args.min_objs != 2), ("-g", args.gain), ("-s", args.subset)) if given]
    if grower != "cart" and cart:
        raise InputError(f"{', '.join('--' + k for k in cart)}: option(s) of --grower cart, not of --grower {grower}")
    if grower == "j48":
        c45 = [f for f in c45 if f != "-m"]
    chaid = _given(args, _CHAID_FLAGS)
    if grower == "chaid":
        chaid.update(shared)
    if getattr(args, "no_bonferroni", False):
        chaid["bonferroni"] = False
    if grower != "chaid" and chaid:
        flags = ", ".join("--no-bonferroni" if k == "bonferroni" else "--" + k.replace("_", "-") for k in chaid)
        raise InputError(f"{flags}: option(s) of --grower chaid, not of --grower {grower}")
    if grower != "c45" and c45:
        raise InputError(f"{', '.join(c45)}: option(s) of --grower c45, not of --grower {grower}")
    out: dict[str, Any] = {"cf": args.cf / 100, "jobs": args.jobs}
    soft = getattr(args, "soft", False)
    costs = cost_file(args, note=not soft)    # -p refuses them: the error alone says so
    if costs is not None:   # read by the pipeline, which knows the classes (data/costs.py)
        out["costs"] = costs
    if soft:
        if costs is not None:
            raise InputError(SOFT_COSTS)
        # tree -p and fit -p grow the same tree (pipeline.soft_tree); the model records it
        out["soft"] = True
    if grower == "c45":
        out.update({"min_objs": args.min_objs, "gain_ratio": not args.gain, "subset": args.subset})
    elif grower == "j48":
        out.update({"grower": "j48", "min_objs": args.min_objs, **j48})
        if getattr(args, "seed", None) is not None:
            out["seed"] = args.seed
    else:
        out.update({"grower": grower, **cart, **chaid, **quest})
        if getattr(args, "seed", None) is not None:
            out["seed"] = args.seed
    return out


def _shared_options(args: argparse.Namespace, grower: str) -> dict[str, Any]:
    """{library option: value} of the options several growers share (--max-depth, --prune-folds),
    under `grower`'s names; their deprecated spellings only where they had a meaning; an option
    `grower` does not read is an InputError."""
    for spelling, dest, use, growers, _ in _OLD_GROWER_FLAGS:
        value = getattr(args, dest, None)
        if value is None:
            continue
        if grower not in growers:
            who = " or ".join(f"--grower {g}" for g in growers)
            raise InputError(f"{spelling}: option of {who}, not of --grower {grower} (its new name: {use})")
        new = use[2:].replace("-", "_")
        if getattr(args, new, None) is not None:
            raise InputError(f"{spelling} and {use}: the same option, give one ({use})")
        setattr(args, new, value)
    out = {}
    for flag, _, _, _, names in _SHARED_FLAGS:
        value = getattr(args, flag[2:].replace("-", "_"), None)
        if value is None:
            continue
        if grower not in names:
            raise InputError(f"{flag}: option of {' or '.join('--grower ' + g for g in names)},"
                             f" not of --grower {grower}")
        if grower == "j48" and value < 1:
            raise InputError(f"{flag}: J48's folds are a whole number >= 1, got {value}")
        out[names[grower]] = value
    return out


def cost_file(args: argparse.Namespace, note: bool = True) -> str | None:
    """The .costs file to learn with: --costs FILE, else a C4.5 stem's STEM.costs when there is one
    (as C5.0 reads it; said on stderr unless -q or not `note`), never with '--costs none'."""
    given = getattr(args, "costs", None)
    if given is not None:
        return None if given == "none" else given
    from ..data.reading import is_table
    data = getattr(args, "data", None)
    if data is None or is_table(data):
        return None
    path = re.sub(r"\.(names|data)$", "", data) + ".costs"
    if not os.path.isfile(path):
        return None
    if note and not getattr(args, "quiet", False):
        print(f"c45rules: note: misclassification costs read from {path} (--costs none: without them)",
              file=sys.stderr)
    return path


def learning_rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """Tree options plus those of c4.5rules."""
    out = {**learning_tree_options(args), "fisher": args.fisher, "redundancy": args.redundancy,
           "annealing": args.annealing, "seed": args.seed}
    if getattr(args, "winnow", False):
        out["winnow"] = True
    if boost_trials(args) > 1:
        out["trials"] = boost_trials(args)
    return out


def scoring_options() -> argparse.ArgumentParser:
    """--strict, for the commands that score data with a model (predict, evaluate, explain, report)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--strict", action="store_true",
                   help="a value the model never saw in training (a new category) is an error"
                        " (exit 2) instead of a note on stderr; without it such a value matches no test")
    return p


def grid_options(command: str = "fit") -> argparse.ArgumentParser:
    """--grid and the folds of the cross-validation that scores each grid point: --cv-folds in
    fit and tune (their old --tune-folds, and tune's -k, deprecated), --tune-folds in cv, where
    --cv-folds are its own (outer) folds."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("tuning")
    g.add_argument("--grid", nargs="+", metavar="NAME=V1,V2", default=None,
                   help="options to search, each NAME=values (NAME: cf in percent, m, s 0|1, g 0|1, r;"
                        " default cf=5,10,25,50 m=1,2,5,10 s=0,1); the rest as given")
    if command == "cv":
        g.add_argument("--tune-folds", type=positive_int, default=10, metavar="K",
                       help="with --tune: folds of the inner cross-validation that scores each grid point on"
                            " an outer fold's training part (default 10)")
        return p
    cv_folds_option(g, "folds of the cross-validation that scores each grid point (default 10)",
                    old=("--tune-folds", "-k") if command == "tune" else ("--tune-folds",))
    return p


def cv_folds_option(g: argparse._ActionsContainer, text: str, old: tuple[str, ...]) -> None:
    """--cv-folds K (default 10) in the group `g`, with the `old` spellings it replaced."""
    g.add_argument("--cv-folds", type=positive_int, default=10, metavar="K", help=text)
    for spelling in old:
        deprecated(g, spelling, "--cv-folds", "cv_folds", kind=positive_int, default=argparse.SUPPRESS)


def tuning_grid(args: argparse.Namespace) -> dict:
    """The grid of --grid, or the default grid."""
    from ..learn.crossval import DEFAULT_GRID, parse_grid
    return parse_grid(args.grid) if args.grid else dict(DEFAULT_GRID)
