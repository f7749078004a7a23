"""RuleSet -> one standalone Python module (standard library only) that scores records.

The module has `predict(record) -> str`, `predict_rule(record) -> int` (0: the default
class applied, the rule-id convention of every c45rules output), the rules as readable `if`
blocks over field names, and a CSV scorer (`python model.py in.csv -o out.csv`). It decides
exactly as `RuleSet.predict`: first firing rule, else the default; rules that never fire are
left out; an unknown value (a field left out of the record, None, NaN, '', '?') satisfies no
condition but a threshold test marked `or unknown` (`(x <= t or _unknown(x))`); continuous values given as text are parsed as
numbers the way the library's pandas path accepts them (anything else raises ValueError
naming the field); discrete values are compared as text after the canonicalisation of
`c45rules.data.frame.value_str` (1.0 -> '1', True -> 'True'); a value outside the
attribute's list matches nothing.

Every name and value from the RuleSet enters the code through repr() (or, in the module
docstring, an escaper that leaves only printable characters), so no attribute name, value
or class can inject code.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

from ..data.costs import vote_cost_terms
from ..data.frame import unique_spellings
from ..data.reading import PANDAS_NA_TOKENS
from ..data.spreadsheet import escapes
from ..errors import InputError, ModelError
from ..model.boosted import BoostedRuleSet
from ..model.regression import RegressionModel
from ..model.ruleset import Condition, RuleSet, checked_condition, conjunction
from ._atomic import atomic_write_text
from ._comment import comment_text, note_lines
from .choices import REGRESSION_HINT


def _docstring(text: str) -> str:
    """A triple-quoted literal whose value is `text`, a lone surrogate shown as its escape.

    Other unprintable characters are written as escapes whose value is the character; a lone
    surrogate is not (Python 3.13 compiles a docstring as UTF-8, which cannot hold one, and
    refuses the module), so the docstring reads the text `\\ud800` where the rule has U+D800.
    The code's own constants keep every value exactly.
    """
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n" or ch.isprintable():
            out.append(ch)
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\\\u{code:04x}")
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"""' + "".join(out) + '"""'


def _literal(value) -> str:
    """Python source for a string, or a tuple of strings, from the RuleSet: repr() of plain
    str objects (a str subclass such as numpy.str_ would repr as a call)."""
    if isinstance(value, str):
        return repr(str(value))
    items = [_literal(v) for v in value]
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _float(v: float) -> str:
    v = float(v)
    if math.isnan(v):
        return "float('nan')"
    if math.isinf(v):
        return "float('inf')" if v > 0 else "-float('inf')"
    return repr(v)   # shortest text that reads back as this very double


def _test(cond: Condition, ruleset: RuleSet, where: str) -> str:
    """The Python test for one condition over the cleaned record."""
    attr, values = checked_condition(cond, ruleset.schema, where)
    field = f"record[{_literal(cond.attribute)}]"
    if cond.op in ("<=", ">"):
        test = f"{field} {cond.op} {_float(cond.value)}"
        return f"({test} or _unknown({field}))" if cond.or_unknown else test
    if cond.op == "=":
        return f"{field} == {_literal(cond.value)}"
    return f"{field} in {_literal(values)}"


def _opening(what: str, s) -> list[str]:
    """The docstring's first lines: what the module is, the target and the classes."""
    from .. import __version__

    return [f"{what} exported by c45rules {__version__}: a standalone classifier (standard library only).", "",
            f"Target {_literal(s.target)}; classes: {', '.join(map(_literal, s.classes))}."]


def _describe(ruleset: RuleSet) -> str:
    lines = [
        *_opening("C4.5 rules", ruleset.schema),
        f"Default class (no rule fires): {_literal(ruleset.default_class)}.",
        "",
        "Rules, tried in order; the first whose conditions all hold gives the class.",
        "Evidence on the training data: covered = cases satisfying every condition,",
        "errors = of those, cases of another class, confidence = 1 - pessimistic error rate,",
        "lift = confidence / training frequency of the class.",
        "",
    ]
    lines += _rule_lines(ruleset)
    lines += [
        "",
        "Use:",
        "    import model; model.predict(record); model.predict_rule(record);"
        " model.predict_confidence(record)",
        "    python model.py in.csv -o out.csv   (every input column, plus the predicted",
        "                                         class and the rule id, 0 for the default)",
        "",
        *_UNKNOWN_TEXT,
    ]
    return "\n".join(lines)


def _rule_lines(ruleset: RuleSet) -> list[str]:
    """Each rule in words with its evidence, two lines a rule."""
    lines = []
    for r in ruleset.rules:
        conds = conjunction(r.conditions) or "(always)"
        lines.append(f"rule {r.id}: if {conds} then {_literal(r.prediction)}")
        note = "" if r.fires else "   NEVER FIRES (pessimistic error above 0.7)"
        lines.append(f"    covered {r.covered}, errors {r.errors}, confidence {r.confidence:.3f},"
                     f" lift {r.lift:.2f}{note}")
    return lines


def _describe_boosted(model: BoostedRuleSet) -> str:
    lines = [
        *_opening("Boosted C4.5 rules", model.schema),
        f"{len(model.trials)} trials vote. Each trial's rules are tried in order; the first whose",
        "conditions all hold gives the trial's class, else the trial's default class, and the trial",
        "votes for that class with the decision's confidence. The class with the highest total wins",
        "(a tie goes to the class listed first); the confidence is its total over all the votes.",
    ] if model.costs is None else [
        *_opening("Boosted C4.5 rules", model.schema),
        f"{len(model.trials)} trials vote, with misclassification costs. Each trial's rules are tried in",
        "order; the first whose conditions all hold gives the trial's class, else the trial's default",
        "class, and the trial votes for that class with the decision's confidence. Predicting a class",
        "costs the sum, over the classes it would be wrong for, of the error's cost times that class's",
        "total; the class of least expected cost wins (a tie goes to the class listed first). The",
        "confidence is the winner's total over all the votes.",
    ]
    for t, rs in enumerate(model.trials, 1):
        lines += ["", f"Trial {t} (default class {_literal(rs.default_class)}):", *_rule_lines(rs)]
    lines += [
        "",
        "Use:",
        "    import model; model.predict(record); model.predict_rules(record);"
        " model.predict_confidence(record); model.votes(record)",
        "    python model.py in.csv -o out.csv   (every input column, plus the predicted",
        "                                         class and each trial's rule id, 0 for its default)",
        "",
        *_UNKNOWN_TEXT,
    ]
    return "\n".join(lines)


_UNKNOWN_TEXT = (
    "Unknown values (a field left out, None, NaN, '' and '?', and in a continuous field pandas'",
        "missing-value texts such as 'NA' and 'NULL') satisfy no condition but one that says",
        "'or unknown'; a discrete value the",
        "model never saw satisfies no test; continuous values given as text are parsed as",
        "numbers (anything else raises ValueError naming the field).",
)


# the generated module's imports (what _RUNTIME and the CSV scorer use)
IMPORTS = ("import numbers", "import os", "import sys", "from collections.abc import Mapping", "")

_RUNTIME = '''
_UNKNOWN = ("", "?")
_NAN = float("nan")
_NUMBER_CHARS = frozenset("0123456789+-.eE")


def _number(name, value):
    """A continuous value as a float; NaN (which fails every comparison) when unknown."""
    if value is None:
        return _NAN
    if isinstance(value, str):
        if value in _UNKNOWN or value in NA_TOKENS:
            return _NAN
        # a number as the library reads text (its data/numbers.py): ASCII blanks around a plain
        # decimal, finite; float() alone would also take 'inf', 'nan', '1_000', non-ASCII digits
        text = value.strip(" \\t\\n\\r\\x0b\\x0c")
        if text and set(text) <= _NUMBER_CHARS:
            try:
                number = float(text)
            except ValueError:
                number = _NAN
            if number - number == 0:   # finite: NaN and the infinities give NaN here
                return number
        raise ValueError(f"field {name!r}: {value!r} is not a number")
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
        raise ValueError(f"field {name!r}: {value!r} is not a number")
    if type(value).__name__ in ("NAType", "NaTType"):
        return _NAN
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"field {name!r}: {value!r} is not a number") from None


def _text(value):
    """A discrete value as canonical text (as c45rules' value_str); None when unknown."""
    if value is None:
        return None
    if isinstance(value, str):
        return None if value in _UNKNOWN else value
    kind = type(value)
    from_numpy = kind.__module__ == "numpy"
    if kind.__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, bool) or from_numpy and kind.__name__ in ("bool_", "bool"):
        return str(bool(value))
    if isinstance(value, float) or from_numpy and isinstance(value, numbers.Real) \\
            and not isinstance(value, numbers.Integral):
        number = float(value)
        if number != number:
            return None
        return str(int(number)) if number.is_integer() else repr(number)
    if isinstance(value, int) or from_numpy and isinstance(value, numbers.Integral):
        return str(int(value))
    return str(value)


def _unknown(number):
    """Whether a continuous value (as _number gives it) is unknown: NaN, the one value unequal to itself."""
    return number != number


def _fields(record):
    """The record's values as the rules test them (a field left out is unknown, as None is)."""
    fields = {}
    for name in CONTINUOUS:
        fields[name] = _number(name, record[name]) if name in record else _NAN
    for name in DISCRETE:
        fields[name] = _typed(name, record[name]) if name in record else None
    return fields


def _typed(name, value):
    """_text(value); but a bool or number whose text is not one of the field's values takes the
    one value that spells the same boolean or number (True: 'true', 1.0: '1'), if there is one,
    as c45rules' encode_frame does."""
    text = _text(value)
    if text is None or isinstance(value, str) \\
            or not (isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy"):
        return text
    if text in ("True", "False"):
        key = "bool:" + text.lower()
    else:
        try:
            number = float(text)
        except ValueError:
            return text
        if number != number:
            return text
        key = "num:" + repr(number)
    return SPELLED.get(name, {}).get(key, text)
'''

_API = '''

def predict(record: Mapping[str, object]) -> str:
    """The predicted class of one record (a mapping from field name to value)."""
    return _decide(record)[1]


def predict_rule(record: Mapping[str, object]) -> int:
    """The id of the rule that decides the record; 0 when the default class applies."""
    return _decide(record)[0]


def predict_confidence(record: Mapping[str, object]) -> float:
    """The confidence of the decision: the deciding rule's, or the default class's."""
    return CONFIDENCE[_decide(record)[0]]


def _outputs(record, confidence):
    """The CSV columns added for a record: the class, the rule id (and the confidence)."""
    rule, klass = _decide(record)
    return [klass, rule] + ([repr(CONFIDENCE[rule])] if confidence else [])
'''

_MAIN = '''

def _main(argv=None) -> int:
    """Score a CSV file: every input column unchanged, plus the class and the rule id."""
    import argparse
    import csv
    import tempfile

    parser = argparse.ArgumentParser(description="Score a CSV file (with a header row)"
                                     " with the rules of this module.")
    parser.add_argument("input", help="CSV file to score; '-' reads standard input")
    parser.add_argument("-o", "--output", help="CSV file to write (default: standard output)")
    parser.add_argument("--prediction-column", default="predicted_class",
                        help="name of the class column added (default: %(default)s)")
    parser.add_argument("--rule-column", default="rule_id",
                        help="name of the rule id column added (default: %(default)s)")
    parser.add_argument("--confidence-column",
                        help="also add the decision's confidence, in a column of this name")
    parser.add_argument("--csv-safe", action=argparse.BooleanOptionalAction, default=True,
                        help="write a class a spreadsheet would run as a formula with a leading"
                             " apostrophe (default; input columns are written as read)")
    args = parser.parse_args(argv)

    def fail(message):
        print(f"{args.input}: {message}", file=sys.stderr)
        return 1

    if args.input == "-":
        source = open(sys.stdin.fileno(), encoding="utf-8-sig", newline="", closefd=False)
    else:
        try:
            source = open(args.input, encoding="utf-8-sig", newline="")
        except OSError as e:
            return fail(f"cannot read ({e.strerror})")
    with source:
        reader = csv.reader(source)
        try:
            header = next(reader, None)
        except (csv.Error, UnicodeDecodeError) as e:
            return fail(f"not a readable CSV file ({e})")
        if header is None:
            return fail("empty file (expected a header row)")
        names = set(header)
        if len(names) != len(header):
            dups = sorted({h for h in header if header.count(h) > 1})
            return fail(f"duplicate column name(s): {', '.join(map(repr, dups))}")
        missing = [name for name in REQUIRED if name not in names]
        if missing:
            return fail(f"column(s) the rules need are missing: {', '.join(map(repr, missing))}")
        added = [args.prediction_column, args.rule_column]
        if args.confidence_column is not None:
            added.append(args.confidence_column)
        for name in added:
            if name in names:
                return fail(f"already has a column {name!r}; choose another name with"
                            " --prediction-column / --rule-column / --confidence-column")
        if len(set(added)) < len(added):
            return fail("--prediction-column, --rule-column and --confidence-column must differ")
        if args.output:
            directory = os.path.dirname(os.path.abspath(args.output))
            try:
                fd, tmp = tempfile.mkstemp(dir=directory, prefix=".score.", suffix=".csv.tmp")
            except OSError as e:
                print(f"{args.output}: cannot write ({e.strerror})", file=sys.stderr)
                return 1
            sink = open(fd, "w", encoding="utf-8", newline="")
        else:
            tmp = None
            sink = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="", closefd=False)
        status = 0
        try:
            with sink:
                writer = csv.writer(sink, lineterminator="\\n")
                # a lone CR in a field must be quoted, which the "\\n"-terminated writer does
                # not do (before Python 3.12): such rows are written with every field quoted
                quoted = csv.writer(sink, lineterminator="\\n", quoting=csv.QUOTE_ALL)
                writer.writerow(header + added)
                try:
                    for row in reader:
                        if not row:
                            row = [""] * len(header)   # a blank line: every value unknown
                        if len(row) != len(header):
                            status = fail(f"line {reader.line_num}: {len(row)} fields,"
                                          f" the header has {len(header)}")
                            break
                        try:
                            out = row + _outputs(dict(zip(header, row)), len(added) > 2)
                            if args.csv_safe:
                                out[len(row)] = CSV_SAFE.get(out[len(row)], out[len(row)])
                        except ValueError as e:
                            status = fail(f"line {reader.line_num}: {e}")
                            break
                        (quoted if any("\\r" in f for f in row) else writer).writerow(out)
                except (csv.Error, UnicodeDecodeError) as e:
                    status = fail(f"line {reader.line_num}: not readable CSV ({e})")
            if tmp is not None:
                if status == 0:
                    os.chmod(tmp, 0o644)
                    os.replace(tmp, args.output)
                    tmp = None
        finally:
            if tmp is not None:
                os.unlink(tmp)
        return status


if __name__ == "__main__":
    sys.exit(_main())
'''


# a model with costs: the vote's winner is the class of least expected cost (boosted.py; COST_TERMS
# as data/costs.vote_costs), in place of _BOOSTED_API's highest total (_HIGHEST)
_CHEAPEST = '''

def _expected_costs(totals):
    """What predicting each class costs: its terms cost * the true class's total, in order."""
    spent = {}
    for klass, terms in COST_TERMS:
        spent[klass] = 0.0
        for true, cost in terms:
            spent[klass] += cost * totals[true]
    return spent


def _winner(totals):
    """The class of least expected cost by the vote."""
    spent = _expected_costs(totals)
    best = CLASSES[0]
    for klass in CLASSES[1:]:   # strictly lower: a tie goes to the class listed first
        if spent[klass] < spent[best]:
            best = klass
    return best
'''

_HIGHEST = """    best = CLASSES[0]
    for klass in CLASSES[1:]:   # strictly higher: a tie goes to the class listed first
        if totals[klass] > totals[best]:
            best = klass
"""

_BOOSTED_API = '''

def _decide(record):
    """(each trial's rule id, the winning class, the class totals, the sum of all votes): each
    trial votes for the class it decides with that decision's confidence, in trial order."""
    fields = _fields(record)
    totals = dict.fromkeys(CLASSES, 0.0)
    everything = 0.0
    rules = []
    for decide, confidence in zip(TRIALS, CONFIDENCE):
        rule, klass = decide(fields)
        totals[klass] += confidence[rule]
        everything += confidence[rule]
        rules.append(rule)
    best = CLASSES[0]
    for klass in CLASSES[1:]:   # strictly higher: a tie goes to the class listed first
        if totals[klass] > totals[best]:
            best = klass
    return tuple(rules), best, totals, everything


def predict(record: Mapping[str, object]) -> str:
    """The predicted class of one record (a mapping from field name to value): the vote's winner."""
    return _decide(record)[1]


def predict_rules(record: Mapping[str, object]) -> tuple:
    """The id of the rule that decides the record in each trial; 0 where its default class applies."""
    return _decide(record)[0]


def predict_confidence(record: Mapping[str, object]) -> float:
    """The winner's total vote over the sum of all the votes."""
    _, best, totals, everything = _decide(record)
    return totals[best] / everything


def votes(record: Mapping[str, object]) -> dict:
    """Each class's total vote (classes in CLASSES order)."""
    return _decide(record)[2]


def _outputs(record, confidence):
    """The CSV columns added for a record: the class, the trials' rule ids (and the confidence)."""
    rules, best, totals, everything = _decide(record)
    return [best, " ".join(map(str, rules))] + ([repr(totals[best] / everything)] if confidence else [])
'''


def _spelled_values(ruleset: RuleSet) -> str:
    """Source of SPELLED: per tested discrete attribute, data.frame's spelling of a boolean or
    number ("bool:true", "num:1.0") -> the one value spelling it."""
    used = set(ruleset.used_attributes())
    fields = []
    for a in ruleset.schema.attributes:
        pairs = unique_spellings(a.values) if a.is_discrete and a.name in used else {}
        if pairs:
            fields.append(f"{_literal(a.name)}: {{{', '.join(f'{_literal(k)}: {_literal(v)}' for k, v in pairs.items())}}}")
    return f"{{{', '.join(fields)}}}"


def _header(model: RuleSet | BoostedRuleSet, describe: str, constants: list[str]) -> list[str]:
    """The module up to its runtime: the docstring, imports, the model's constants and the fields."""
    s = model.schema
    used = set(model.used_attributes())
    return [
        _docstring(describe),
        "from __future__ import annotations",
        "",
        *(f"# {line}" for line in note_lines(model)),
        *IMPORTS,
        f"TARGET = {_literal(s.target)}",
        f"CLASSES = {_literal(s.classes)}",
        *constants,
        "# every continuous / discrete field of the model, and those the rules test (a CSV to",
        "# score must have those columns; a record may leave any field out: it is unknown)",
        f"CONTINUOUS = {_literal(a.name for a in s.attributes if a.is_continuous)}",
        f"DISCRETE = {_literal(a.name for a in s.attributes if a.is_discrete)}",
        f"REQUIRED = {_literal(n for n in s.names if n in used and s.attribute(n).kind != 'ignore')}",
        "# per tested discrete field: what a bool or number may spell -> the one value spelling it",
        f"SPELLED = {_spelled_values(model)}",
        "# texts a continuous field reads as unknown, as the library reads tables (pandas' tokens)",
        f"NA_TOKENS = frozenset({_literal(sorted(PANDAS_NA_TOKENS))})",
        "# classes a spreadsheet would run as a formula, and how the CSV scorer writes them",
        "# (--csv-safe, the default), as `c45rules predict` does",
        f"CSV_SAFE = {{{', '.join(f'{_literal(k)}: {_literal(v)}' for k, v in escapes(s.classes).items())}}}",
        _RUNTIME,
    ]


def _confidences(ruleset: RuleSet) -> str:
    """{rule id: the confidence of its decision} (0: the default class), as decision_confidences."""
    pairs = zip(ruleset.rule_ids().tolist(), ruleset.decision_confidences().tolist())
    return f"{{{', '.join(f'{i}: {c!r}' for i, c in pairs)}}}"


def _decide_lines(ruleset: RuleSet, where: str) -> list[str]:
    """The body of a function of the cleaned `record`: `return <rule id>, <class>` of the first rule
    whose conditions all hold (`where` prefixes the error path of a bad condition)."""
    s = ruleset.schema
    out = []
    for i, r in enumerate(ruleset.rules):
        tests = [_test(c, ruleset, f"{where}rules[{i}].conditions[{j}]") for j, c in enumerate(r.conditions)]
        if r.prediction not in s.classes:
            raise ModelError(f"{where}rules[{i}].prediction: {r.prediction!r} is not a class")
        if not r.fires:
            out.append(f"    # rule {int(r.id)} never fires (pessimistic error"
                       f" {float(r.error_rate):.3f} > 0.7): left out")
            continue
        out.append(f"    # rule {int(r.id)}: covers {int(r.covered)}, {int(r.errors)} errors,"
                   f" confidence {float(r.confidence):.3f}, lift {float(r.lift):.2f}")
        if r.note:
            out.append(f"    # note: {comment_text(r.note)}")
        decision = f"return {int(r.id)}, {_literal(r.prediction)}"
        if not tests:
            out.append(f"    {decision}")
            break
        if len(tests) == 1:
            out.append(f"    if {tests[0]}:")
        else:
            out.append(f"    if ({tests[0]}")
            out += [f"            and {t}" for t in tests[1:-1]]
            out.append(f"            and {tests[-1]}):")
        out.append(f"        {decision}")
    return out


def to_python(ruleset: RuleSet | BoostedRuleSet) -> str:
    """The source of a standalone module that predicts exactly as `ruleset` does (a boosted model:
    a function per trial and the vote, as BoostedRuleSet.predict).

    Parameters
    ----------
    ruleset : RuleSet or BoostedRuleSet
        The model.

    Returns
    -------
    str
        The module's source (standard library only): ``predict(record)``,
        ``predict_rule(record)`` (``predict_rules`` and ``votes`` for a boosted model),
        ``predict_confidence(record)`` and a CSV scorer.

    Raises
    ------
    ModelError
        A condition that does not fit the model's schema.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import to_python
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> namespace = {}
    >>> exec(to_python(rs), namespace)
    >>> namespace["predict"]({"a": 3}), namespace["predict_rule"]({"a": 3}), namespace["predict_rule"]({})
    ('y', 2, 0)
    """
    if isinstance(ruleset, RegressionModel):
        raise InputError(REGRESSION_HINT.format(what="module", where="regression_python.to_regression_python"))
    if isinstance(ruleset, BoostedRuleSet):
        return _boosted_python(ruleset)
    out = _header(ruleset, _describe(ruleset), [
        f"DEFAULT_CLASS = {_literal(ruleset.default_class)}",
        f"FINGERPRINT = {_literal(ruleset.fingerprint)}",
        "# the confidence of each decision by rule id (0: the default class), to 6 significant digits",
        f"CONFIDENCE = {_confidences(ruleset)}"])
    out += [
        "",
        "def _decide(record):",
        '    """(rule id, class) for one record: the first rule whose conditions all hold."""',
        "    record = _fields(record)",
        *_decide_lines(ruleset, ""),
        "    return 0, DEFAULT_CLASS",
        _API + _MAIN,
    ]
    return "\n".join(out)


def _cost_terms(model: BoostedRuleSet) -> str:
    """Source of COST_TERMS: per class, ((true class, cost), ...), the terms vote_costs adds for it."""
    costs, classes = model.costs, model.schema.classes
    terms: dict[str, list[str]] = {c: [] for c in classes}
    for k, c in vote_cost_terms(costs):
        terms[classes[k]].append(f"({_literal(classes[c])}, {float(costs[k, c])!r})")
    return "(" + "".join(f"\n    ({_literal(k)}, ({''.join(t + ', ' for t in v).rstrip()})),"
                         for k, v in terms.items()) + "\n)"


def _boosted_python(model: BoostedRuleSet) -> str:
    """The module of a boosted model: each trial's first-hit function, then the vote."""
    costed = model.costs is not None
    out = _header(model, _describe_boosted(model), [
        f"FINGERPRINT = {_literal(model.fingerprint)}",
        "# per trial: the confidence of each decision (its vote) by rule id (0: the trial's default",
        "# class), to 6 significant digits",
        "CONFIDENCE = (" + "".join(f"\n    {_confidences(rs)}," for rs in model.trials) + "\n)",
        *(["# misclassification costs: per predicted class, (true class, cost) of each error it can",
           "# make that costs something (the others cost 0); the class of least expected cost wins",
           f"COST_TERMS = {_cost_terms(model)}"] if costed else [])])
    for t, rs in enumerate(model.trials, 1):
        out += [
            "",
            f"def _trial_{t}(record):",
            f'    """(rule id, class) of trial {t} for a cleaned record: its first rule whose conditions all hold."""',
            *_decide_lines(rs, f"trials[{t - 1}]."),
            f"    return 0, {_literal(rs.default_class)}",
            "",
        ]
    out += ["", f"TRIALS = ({', '.join(f'_trial_{t}' for t in range(1, len(model.trials) + 1))},)",
            (_CHEAPEST + _BOOSTED_API.replace(_HIGHEST, "    best = _winner(totals)\n") if costed
             else _BOOSTED_API) + _MAIN]
    return "\n".join(out)


def write_python(ruleset: RuleSet | BoostedRuleSet, path: str | os.PathLike) -> Path:
    """Write the standalone module to `path` atomically.

    Parameters
    ----------
    ruleset : RuleSet or BoostedRuleSet
        The model.
    path : str or path
        The file to write (replaced whole, or left as it was on an error).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ModelError
        As `to_python`; nothing is written then.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import write_python
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> import os, runpy, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_python(rs, os.path.join(d, "model.py"))
    ...     runpy.run_path(str(path))["predict"]({"a": 1.5})
    'n'
    """
    return atomic_write_text(path, to_python(ruleset))
