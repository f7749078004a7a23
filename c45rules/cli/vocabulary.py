"""The one option vocabulary of the `c45rules` command (issue 49): every option of every command,
one name per concept, with its Python parameter, its meaning, its default and the spellings it
replaced.

The parsers take the names of the shared concepts from here (`flags`), a test checks that every
option any command's parser accepts is listed here (tests/e2e/test_cli_vocabulary.py), and
docs/options.md is `markdown_table()`'s text (a test keeps the two equal). A deprecated spelling
keeps, for one release, the meaning it had in the commands it had it in, and warns naming the
new spelling (options.deprecated); no old spelling is given a new meaning.

This module imports nothing heavy: `c45rules --help` reads it.
"""
from __future__ import annotations

from dataclasses import dataclass

ALL = ("tree", "rules", "fit", "predict", "evaluate", "explain", "export", "report", "rescore", "diff", "cv",
       "tune", "demo", "import", "serve", "audit")
READ = ("tree", "rules", "fit", "predict", "evaluate", "explain", "export", "report", "rescore", "diff", "cv",
        "tune")
LEARN = ("tree", "rules", "fit", "cv", "tune")
RULES = ("rules", "fit", "cv", "tune")
WINDOW = ("tree", "rules", "fit")
BOOST = ("rules", "fit", "cv")


@dataclass(frozen=True)
class Alias:
    """A deprecated spelling: `spelling` meant this option in `commands` (and nowhere else)."""

    spelling: str
    commands: tuple[str, ...]


@dataclass(frozen=True)
class Option:
    """One concept on the command line: its spellings, Python parameter, meaning and default."""

    flags: tuple[str, ...]
    meaning: str
    default: str
    commands: tuple[str, ...]
    python: str | None = None       # the library's parameter (c45rules.fit, C45Rules); None: CLI only
    aliases: tuple[Alias, ...] = ()

    @property
    def name(self) -> str:
        """The long spelling, which names the option in messages."""
        return next((f for f in self.flags if f.startswith("--")), self.flags[0])


def _o(flags: str, meaning: str, default: str, commands: tuple[str, ...], python: str | None = None,
       aliases: tuple[Alias, ...] = ()) -> Option:
    return Option(tuple(flags.split()), meaning, default, commands, python, aliases)


OPTIONS: tuple[Option, ...] = (
    # every command
    _o("-h --help", "show the command's help (fit/tree/rules/cv/tune: `--grower G --help` for G's options)", "",
       ALL),
    _o("-q --quiet", "no progress messages on stderr", "off", ALL),
    _o("--debug", "show the traceback of an error", "off", ALL),
    # data: training data and its columns
    _o("--train", "training data beside a model (C4.5 stem or CSV/Parquet): re-grows or draws its tree", "none",
       ("export", "report"), "train", (Alias("--data", ("export",)),)),
    _o("--data", "data to score or check a model on (labelled where the command measures errors)", "none",
       ("explain", "report", "rescore", "diff", "import"), "data"),
    _o("--target", "class column of a CSV/Parquet file", "the model's class, else required for a table",
       ("tree", "rules", "fit", "evaluate", "export", "report", "rescore", "cv", "tune", "import"), "target"),
    _o("--max-rules", "import --data: keep at most N rules of the forest's explanation", "all (2 classes)", ("import",),
       "max_rules"),
    _o("--synthetic", "import --data: also judge the rules on N times as many rows made near the training rows,"
       " labelled by the ensemble", "4 for two classes, else 0", ("import",), "synthetic"),
    _o("--validate", "import --data: then prune the rules against N times as many other such rows (deleting rules"
       " and dropping conditions by agreement with the ensemble)", "8 for two classes, else 4", ("import",),
       "validate"),
    _o("--names", "take a CSV's attributes and classes from a C4.5 .names file", "none", LEARN, "names"),
    _o("--discrete", "CSV columns read as discrete (comma-separated, repeatable)", "inferred", LEARN, "discrete"),
    _o("--continuous", "CSV columns read as continuous (comma-separated, repeatable)", "inferred", LEARN,
       "continuous"),
    _o("--ignore", "CSV columns left out (comma-separated, repeatable)", "none", LEARN, "ignore"),
    _o("--test", "also evaluate on this file", "none", WINDOW, "test"),
    _o("-u --unseen", "also evaluate on STEM.test (c4.5 -u; C5.0's -u is rule utility bands)", "off", WINDOW),
    # learning larger than memory (issue 50, docs/large-data.md)
    _o("--stream", "learn in passes over batches of rows, never holding them (tree: refused, pruning needs"
       " the rows)", "off", WINDOW, "stream"),
    _o("--memory", "memory budget (2GB): learn in passes when the in-memory fit's estimate (rows x columns x 32"
       " bytes) exceeds it; refuse an AVC group beyond it", "none", WINDOW, "memory"),
    _o("--batch-rows", "rows per batch when learning in passes", "100000", WINDOW, "batch_rows"),
    _o("--query", "the SQL a duckdb:FILE.db input runs", "none", WINDOW, "query"),
    _o("--weights", "numeric column weighing each case", "none", LEARN, "sample_weight"),
    _o("--class-weights", "multiply the cases' weights by their class's (A=2,B=1 or balanced)", "none", LEARN,
       "class_weight"),
    _o("--costs", "C5.0 .costs file of misclassification costs ('none': not STEM.costs)", "STEM.costs if any",
       LEARN, "costs"),
    # reading tables
    _o("--na-values", "more cell texts read as unknown (comma-separated, repeatable)", "none", READ, "na_values"),
    _o("--keep-na-tokens", "read pandas' missing-value tokens (NA, None, ...) as values", "off", READ,
       "keep_na_tokens"),
    _o("--sep", "field separator of a CSV: , ; tab |", "detected", READ, "sep"),
    _o("--decimal", "decimal mark of a CSV's numbers: . or ,", ".", READ, "decimal"),
    _o("--encoding", "text encoding of a CSV", "utf-8", READ, "encoding"),
    # growing the tree
    _o("--grower", "tree grower: c45, cart, id3, j48, chaid, quest", "c45", LEARN, "grower"),
    _o("--seed", "seed of the random draws (annealing, cross-validation folds)", "0", LEARN, "random_state"),
    _o("-j --jobs", "worker threads/processes (-1: one per core); results do not depend on it", "1", LEARN + ("predict",),
       "n_jobs"),
    _o("-c --cf", "pruning confidence level in percent (c4.5 -c; J48 -C; Python: a fraction)", "25", LEARN, "cf"),
    _o("-m --min-objs", "at least two branches must hold N cases (c4.5 -m; J48 -M)", "2", LEARN, "min_objs"),
    _o("-g --gain", "gain criterion instead of gain ratio (c4.5 -g; C5.0's -g is no global pruning)", "off",
       LEARN, "gain_ratio (inverted)"),
    _o("-s --subset", "tests on subsets of discrete values (c4.5 -s)", "off", LEARN, "subset"),
    _o("--max-depth", "deepest split level, the root at depth 0 (cart, chaid)", "cart 30, chaid 3", LEARN,
       "max_depth", (Alias("--maxdepth", LEARN),)),
    _o("--prune-folds", "folds of the pruning: j48 -N reduced-error folds, cart's xval, quest's CV",
       "j48 3, cart 0, quest 10", LEARN, "prune_folds",
       (Alias("--xval", LEARN), Alias("--folds", ("tree", "rules", "fit", "tune")))),
    _o("--cp", "cart: complexity parameter", "0.01", LEARN, "cp"),
    _o("--minsplit", "cart: fewest cases in a node to try a split", "20", LEARN, "minsplit"),
    _o("--minbucket", "cart: fewest cases in a leaf", "round(minsplit/3)", LEARN, "minbucket"),
    _o("--usesurrogate", "cart: unknown values: 0 stay, 1 surrogates, 2 surrogates then majority", "2", LEARN,
       "usesurrogate"),
    _o("--maxsurrogate", "cart: surrogate splits kept per node", "5", LEARN, "maxsurrogate"),
    _o("--alpha-merge", "chaid: merge groups while their p-value is above P", "0.05", LEARN, "alpha_merge"),
    _o("--alpha-split", "chaid: split when the adjusted p-value is at most P", "0.05", LEARN, "alpha_split"),
    _o("--min-parent", "chaid: fewest cases in a node to try a split", "100", LEARN, "min_parent"),
    _o("--min-child", "chaid: fewest cases in a group", "50", LEARN, "min_child"),
    _o("--bins", "chaid: equal-frequency bins of a continuous attribute", "every value a category", LEARN,
       "bins"),
    _o("--no-bonferroni", "chaid: compare attributes by unadjusted p-values", "off", LEARN, "bonferroni (inverted)"),
    _o("--quest-alpha", "quest: significance level of the attribute tests", "0.05", LEARN, "quest_alpha"),
    _o("--min-node", "quest: fewest cases in a node to try a split", "10", LEARN, "min_node"),
    _o("--se-rule", "quest: prune within S standard errors of the fewest CV errors", "1", LEARN, "se_rule"),
    _o("--weka-compat", "grow as Weka 3.6.14's J48 (the same as --grower j48)", "off", LEARN),
    _o("--unpruned", "j48 (-U): no pruning", "off", LEARN, "unpruned"),
    _o("--binary-splits", "j48 (-B): binary tests on nominal attributes", "off", LEARN, "binary_splits"),
    _o("--reduced-error-pruning", "j48 (-R): prune on one of --prune-folds folds", "off", LEARN,
       "reduced_error_pruning"),
    _o("--no-subtree-raising", "j48 (-S): no subtree raising", "off", LEARN, "subtree_raising (inverted)"),
    _o("--no-mdl-correction", "j48 (-J): no MDL penalty on a cut's gain", "off", LEARN, "mdl_correction (inverted)"),
    _o("--laplace", "j48 (-A): Laplace-smoothed leaf probabilities", "off", LEARN, "laplace"),
    _o("--no-collapse", "j48 (-O): keep subtrees that do not reduce the training errors", "off", LEARN,
       "collapse (inverted)"),
    # c4.5's windowing and soft thresholds
    _o("-t --window-trials", "c4.5 -t: N windowing trials (C5.0's -t N is boosting: --trials N)", "off", WINDOW),
    _o("-w --window", "c4.5 -w: initial window size (C5.0's -w is winnowing: --winnow)",
       "max(2 sqrt(cases), cases/5)", WINDOW),
    _o("-i --increment", "c4.5 -i: most misclassified cases joining the window per cycle", "window/5", WINDOW),
    _o("-p --soft", "c4.5 -p: soft thresholds", "off", ("tree", "fit"), "soft"),
    # rules
    _o("-F --fisher", "c4.5rules -F: drop conditions by Fisher's exact test at P percent", "off", RULES, "fisher"),
    _o("-r --redundancy", "c4.5rules -r: redundancy factor of the rules' coding cost", "1", RULES, "redundancy"),
    _o("-a --annealing", "c4.5rules -a: simulated annealing for the rule subset", "off", RULES, "annealing"),
    _o("--winnow", "screen out unhelpful attributes first (C5.0's -w)", "off", RULES, "winnow"),
    _o("--trials", "boosting trials (C5.0's -t N)", "1", BOOST, "trials"),
    # regression rules (a numeric target; issue 54)
    _o("--committees", "regression rules: committee members, each learning the previous one's errors", "1",
       BOOST, "n_committees"),
    _o("--neighbors", "regression rules: nearest training cases that correct each prediction", "0", BOOST,
       "neighbors"),
    _o("-b --boost", "boost with 10 trials (C5.0's -b)", "off", BOOST),
    # cross-validation and tuning
    _o("--cv-folds", "folds of the cross-validation (cv; tune and fit --tune: scoring each grid point)", "10",
       ("fit", "cv", "tune"), "cv_folds",
       (Alias("-k", ("cv", "tune")), Alias("--folds", ("cv",)), Alias("--tune-folds", ("fit", "tune")))),
    _o("--tune-folds", "cv --tune: folds of the inner cross-validation tuning each outer fold", "10", ("cv",)),
    _o("--grid", "options to search, NAME=V1,V2 (cf m s g r)", "cf=5,10,25,50 m=1,2,5,10 s=0,1",
       ("fit", "cv", "tune"), "grid"),
    _o("--tune", "choose the --grid options by cross-validation first", "off", ("fit", "cv")),
    _o("--repeats", "repeat the cross-validation with R shuffles", "1", ("cv",)),
    _o("--compare", "cv: also run C5.0 (c50 PATH) on the same folds", "none", ("cv",)),
    # outputs
    _o("-o --output", "file to write ('-': stdout where allowed)", "stdout (export, predict)",
       ("fit", "predict", "export", "report", "rescore", "import")),
    _o("--json", "print the result as JSON", "off",
       ("tree", "rules", "fit", "evaluate", "explain", "export", "rescore", "diff", "cv", "tune", "audit")),
    _o("--keep-tree", "fit: store the pruned tree in the model", "off", ("fit",)),
    _o("--explain-splits", "tree: every attribute's gain and gain ratio at each node", "off", ("tree",)),
    # scoring
    _o("--strict", "what would be a warning or a note is an error: a value unseen in training (scoring),"
       " a misread column such as decimal commas, dates or labels differing in case (learning)", "off",
       ("predict", "evaluate", "explain", "report") + LEARN, "strict"),
    _o("--fold-case", "merge class labels that differ only in case or surrounding spaces (the most"
       " frequent spelling wins)", "off", LEARN, "fold_case"),
    _o("--format", "predict: output format csv or parquet", "from OUT's suffix", ("predict",), "fmt"),
    _o("--engine", "where the rows are scored (predict: default, duckdb, spark) or learnt from (fit, rules: default,"
       " spark)", "default", ("predict", "fit", "rules", "tree")),
    _o("--bad-cells", "predict: a non-number in a continuous column: error or unknown", "error", ("predict",)),
    _o("--csv-safe --no-csv-safe", "predict: quote classes a spreadsheet would run as formulas", "on",
       ("predict",)),
    _o("--master", "--engine spark: the Spark master", "local[2]", ("predict", "fit", "rules", "tree")),
    _o("--chunksize", "predict: rows read and scored at a time", "50000", ("predict",)),
    _o("--prediction-column", "predict: name of the class column", "predicted_class", ("predict",),
       "prediction_column"),
    _o("--rule-column", "predict: name of the rule id column", "rule_id", ("predict",), "rule_column"),
    _o("--confidence", "add the decision's confidence (predict: a column; export: a SQL column)", "off",
       ("predict", "export")),
    _o("--confidence-column", "predict: name of the --confidence column", "confidence", ("predict",),
       "confidence_column"),
    _o("--explain", "predict: add a column naming the deciding rule", "off", ("predict",)),
    _o("--explain-column", "predict: name of the --explain column", "explanation", ("predict",)),
    # explaining
    _o("--row", "explain: the case as a JSON object", "none", ("explain",)),
    _o("--row-number", "the row to explain: the N-th case (1 = first) of --data", "none", ("explain", "report"),
       "row_number", (Alias("--explain-row", ("report",)),)),
    # exporting
    _o("--to", "export: sql, python, yaml, pmml, dmn, dot, graphml or dbt", "required", ("export",)),
    _o("--dmn-version", "export --to dmn: DMN version", "1.3", ("export",)),
    _o("--dialect", "export --to sql/dbt: SQL dialect", "sqlite (dbt: duckdb)", ("export",)),
    _o("--table", "export --to sql: the table the SELECT reads", "input_table", ("export",)),
    _o("--case-only", "export --to sql: only the CASE expression", "off", ("export",)),
    _o("--form", "export --to sql: flat or nested CASE", "flat", ("export",)),
    _o("--graph", "export --to dot/graphml: draw the rules or the tree", "tree when known", ("export",)),
    _o("--draw-unpruned", "export --to dot/graphml: draw the unpruned tree (needs --train)", "off", ("export",),
       "draw_unpruned", (Alias("--unpruned", ("export",)),)),
    _o("--source", "export --to dbt: the source table SCHEMA.TABLE", "required", ("export",), "source"),
    _o("--name", "export --to dbt/dmn: the model's or decision's name", "MODEL.yaml's name", ("export",), "name"),
    # report, demo, serve, audit
    _o("--compare", "report: add what changed since OLD.yaml", "none", ("report",)),
    _o("--stem", "demo: C4.5 stem instead of the bundled crx", "examples/crx/crx", ("demo",)),
    _o("--host", "serve: address to listen on", "127.0.0.1", ("serve",)),
    _o("--port", "serve: TCP port", "8080", ("serve",)),
    _o("--workers", "serve: worker processes", "1", ("serve",)),
    _o("--audit", "serve: where decisions are logged (sqlite:PATH or postgresql://...)",
       "sqlite:c45rules-audit.sqlite", ("serve",)),
    _o("--token-file", "serve: file holding the bearer token", "none", ("serve",)),
    _o("--max-body", "serve: largest request body", "10MB", ("serve",)),
    _o("--log-format", "serve: text, or json (one JSON object a line, one per request)", "text", ("serve",)),
    _o("--poll", "serve: seconds between checks of the model files (internal)", "1", ("serve",)),
    _o("--model", "audit: only this model's decisions", "all", ("audit",)),
    _o("--since", "audit: only decisions at or after this ISO 8601 time", "all", ("audit",)),
    _o("--rule", "audit: only this rule id's decisions", "all", ("audit",)),
    _o("--limit", "audit: at most N decisions", "all", ("audit",)),
    _o("--replay", "audit: decide every record again and report differences", "off", ("audit",)),
    _o("--compare", "audit: where the shadow challengers decide otherwise than the served models (as diff --data)",
       "off", ("audit",)),
    _o("--shadow", "serve: NAME=FILE, a challenger decided beside model NAME and logged, never answering "
       "(repeatable)", "none", ("serve",)),
    _o("--ensemble", "explain/report: the tree ensemble the rules explain; say where it agrees", "none",
       ("explain", "report")),
)


def option(spelling: str, command: str | None = None) -> Option:
    """The option `spelling` names (in `command`, when a spelling has a meaning per command)."""
    for o in OPTIONS:
        if spelling in o.flags and (command is None or command in o.commands):
            return o
    raise KeyError(f"{spelling} is not in the option vocabulary" + (f" of {command}" if command else ""))


def flags(spelling: str) -> tuple[str, ...]:
    """Every current spelling of the option `spelling` names (for add_argument)."""
    return option(spelling).flags


def accepted(command: str) -> frozenset[str]:
    """Every spelling `command`'s parser may accept: its options' and their deprecated aliases'."""
    out = set()
    for o in OPTIONS:
        if command in o.commands:
            out.update(o.flags)
        out.update(a.spelling for a in o.aliases if command in a.commands)
    return frozenset(out)


def by_python(name: str) -> Option | None:
    """The option whose Python parameter is `name` (None when the CLI has none)."""
    return next((o for o in OPTIONS if o.python == name), None)


def cli_message(message: str, params: tuple[str, ...]) -> str:
    """A library message in the CLI's words: each parameter it names (InputError.params), as
    `name=VALUE` or as the bare name, said as the option (`--name VALUE`, `--name`)."""
    import re
    for p in params:
        o = by_python(p)
        if o is not None:
            # not inside a path or file name (`/data/target/t.csv`, `x.target.csv`)
            message = re.sub(rf"(?<![\w/\\.-]){re.escape(p)}(?:(=)|(?![\w/\\-])(?!\.\w))",
                             lambda m, flag=o.name: flag + (" " if m.group(1) else ""), message, count=1)
    return message


def _commands(cs: tuple[str, ...]) -> str:
    return "all" if cs == ALL else "reading" if cs == READ else ", ".join(cs)


def markdown_table() -> str:
    """docs/options.md: the one table of the command line's options."""
    lines = [
        "# Options",
        "",
        "<!-- generated by c45rules.cli.vocabulary.markdown_table(); tests keep it equal -->",
        "",
        "One name per concept across every command (issue 49). A deprecated spelling keeps its old",
        "meaning in the commands listed beside it for one release and warns on stderr",
        "(`c45rules: warning: --xval is deprecated, use --prune-folds`). C4.5's letters keep C4.5's",
        "meanings (`-t` windowing trials, `-w` window, `-u` unseen test, `-g` gain); C5.0 uses",
        "`-t` for boosting trials (`--trials` here), `-w` for winnowing (`--winnow`), `-u` for rule",
        "utility bands and `-g` to turn global pruning off. \"reading\" commands: every command that",
        "reads a table (all but demo, import, serve, audit).",
        "",
        "| option | Python parameter | meaning | default | commands | deprecated spellings |",
        "|---|---|---|---|---|---|",
    ]
    for o in OPTIONS:
        old = "; ".join(f"`{a.spelling}` ({_commands(a.commands)})" for a in o.aliases)
        python = f"`{o.python}`" if o.python else ""
        cells = [", ".join(f"`{f}`" for f in o.flags), python, o.meaning.replace("|", "\\|"),
                 o.default.replace("|", "\\|"), _commands(o.commands), old]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
