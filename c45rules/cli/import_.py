"""`c45rules import`: a PMML RuleSetModel or TreeModel, or a scikit-learn tree saved with joblib,
as a c45rules model file."""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .io import MODEL_SUFFIXES, check_output, write_text

if TYPE_CHECKING:
    from ..model.ruleset import RuleSet

HELP = ("read a PMML RuleSetModel or TreeModel, or a fitted scikit-learn tree saved with joblib, into a"
        " model file that decides as it does; or explain a tree ensemble (scikit-learn, XGBoost, LightGBM)"
        " by rules (--data)")
EXAMPLE = ("c45rules import tree.pmml -o model.yaml\n"
           "  c45rules import tree.joblib -o model.yaml   (joblib.dump(DecisionTreeClassifier().fit(X, y), ...))\n"
           "  c45rules rescore model.yaml --data train.csv --target y -o measured.yaml\n"
           "  c45rules import forest.pkl --data train.csv --target y -o rules.yaml --max-rules 15\n"
           "  c45rules import xgb.json --data train.csv --target y -o rules.yaml   (booster.save_model('xgb.json'))\n"
           "  Loading a joblib or pickle file runs code stored in it: import only files you trust.")
PARENTS = ()
JOBLIB_SUFFIXES = (".joblib", ".pkl", ".pickle")
XGBOOST_SUFFIXES = (".json", ".ubj")
# how a joblib file starts: a pickle (protocol 2 and up) or joblib's compressors' magic numbers
_PICKLE_STARTS = (b"\x80", b"\x78", b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"\x5d\x00\x00", b"\x04\x22\x4d\x18")


def configure(p: argparse.ArgumentParser) -> None:
    """The import command's arguments."""
    p.add_argument("model", metavar="MODEL",
                   help="a PMML file, or a fitted scikit-learn DecisionTreeClassifier/ExtraTreeClassifier"
                        " saved with joblib.dump (.joblib, .pkl, .pickle; loading one RUNS CODE stored in"
                        " it, so import only files you trust); with --data, a tree ensemble: joblib, or an"
                        " XGBoost .json/.ubj or LightGBM .txt model file")
    p.add_argument("-o", "--output", required=True, metavar="MODEL.yaml",
                   help="the model file to write ('-': the YAML on stdout)")
    p.add_argument("--data", metavar="TRAIN",
                   help="a tree ensemble's training table (CSV/Parquet or C4.5 stem, the model's columns"
                        " numeric): the rules explain the ensemble's decisions on it. Ensembles: scikit-learn"
                        " RandomForest/ExtraTrees/GradientBoosting/HistGradientBoosting classifiers (joblib),"
                        " XGBoost XGBClassifier (joblib) or Booster (joblib, or a .json/.ubj model file), LightGBM"
                        " LGBMClassifier (joblib) or Booster (joblib, or a .txt model file)")
    p.add_argument("--target", metavar="COL", help="--data: the table's class column (left out of the features)")
    p.add_argument("--max-rules", type=int, metavar="N",
                   help="--data: keep at most N rules (a budget the pruning meets by deleting the rules that"
                        " lose least agreement; with --validate 0 the first N); the default class is then the"
                        " forest's most frequent decision on the rows none of them covers (default: all for two"
                        " classes, half the leaves of c4.5's tree on the ensemble's decisions for more)")
    p.add_argument("--synthetic", type=int, default=None, metavar="N",
                   help="--data: also judge the rules on N times as many rows near the table's (each a row"
                        " with about half its features from another row, seeded), labelled by the ensemble"
                        " (default: 4 for two classes, 0 for more)")
    p.add_argument("--validate", type=int, default=None, metavar="N",
                   help="--data: then prune the rules against N times as many other such rows: a rule is"
                        " deleted where that loses no agreement with the ensemble, a condition dropped where"
                        " that gains some; with two classes a tree's path also inserted where it gains on 1 in"
                        " 200 of them (default: 8 for two classes; 4 for more, mixed within one class, with a"
                        " boosted ensemble's training rows too; 0: off)")


def _is_joblib(path: str, raw: bytes) -> bool:
    """A joblib/pickle file by its suffix or, whatever its name, by how it starts."""
    return Path(path).suffix.lower() in JOBLIB_SUFFIXES or raw.startswith(_PICKLE_STARTS)


def load_object(path: str, raw: bytes) -> Any:
    """The object in a joblib/pickle file's bytes, or InputError."""
    try:
        import joblib
    except ImportError:
        raise InputError(f"{path}: reading a joblib file needs scikit-learn (pip install 'c45rules[sklearn]')") from None
    try:
        return joblib.load(io.BytesIO(raw))
    except Exception as e:   # a broken or foreign pickle can raise anything while loading
        raise InputError(f"{path}: cannot be read as a joblib file ({type(e).__name__}: {e})") from None


def load_joblib(path: str, raw: bytes) -> RuleSet:
    """The RuleSet of the scikit-learn tree in a joblib file's bytes (from_sklearn), or InputError."""
    from ..imports.sklearn import from_sklearn
    obj = load_object(path, raw)
    if type(obj).__name__ in ("RandomForestClassifier", "ExtraTreesClassifier", "GradientBoostingClassifier",
                              "HistGradientBoostingClassifier", "XGBClassifier", "LGBMClassifier", "Booster"):
        raise InputError(f"{path}: a {type(obj).__name__} is explained on its training table: add --data TRAIN"
                         " --target COL")
    try:
        return from_sklearn(obj)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None


def load_booster(path: str, library: str) -> Any:
    """The Booster in an XGBoost (.json/.ubj) or LightGBM (.txt) model file (`save_model`),
    `library` naming which, or InputError."""
    import importlib
    name = "an XGBoost" if library == "xgboost" else "a LightGBM"
    try:
        module = importlib.import_module(library)
    except ImportError:
        raise InputError(f"{path}: reading {name} model file needs {library} (pip install {library})") from None
    try:
        return module.Booster(model_file=path)
    except Exception as e:   # XGBoostError / LightGBMError: the libraries' word on a file they cannot read
        raise InputError(f"{path}: cannot be read as {name} model ({str(e).splitlines()[0]})") from None


def load_ensemble(path: str) -> Any:
    """The tree ensemble in a file: an XGBoost .json/.ubj or LightGBM .txt model file, else a
    joblib/pickle file (checked by `check_forest`), or InputError."""
    from ..export.yaml import read_model_bytes
    from ..imports.ensemble import check_forest
    suffix = Path(path).suffix.lower()
    if suffix in XGBOOST_SUFFIXES:
        model = load_booster(path, "xgboost")
    elif suffix == ".txt":
        model = load_booster(path, "lightgbm")
    else:
        raw = read_model_bytes(path, "a joblib file")
        if not _is_joblib(path, raw):
            raise InputError(f"{path}: expected a tree ensemble saved with joblib, an XGBoost .json/.ubj or a"
                             " LightGBM .txt model file")
        model = load_object(path, raw)
    try:
        check_forest(model)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    return model


def load_explained(path: str, ruleset: Any) -> Any:
    """The ensemble in `path` (load_ensemble), checked to be the one `ruleset` explains
    (its recorded fingerprint), or InputError naming the file."""
    from ..imports.fidelity import check_explains
    model = load_ensemble(path)
    try:
        check_explains(ruleset, model)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    return model


def _forest_rules(args: argparse.Namespace, model):
    """The rules explaining a tree ensemble on --data's table (from_ensemble), or InputError."""
    import pandas as pd

    from ..data.frame import load_data
    from ..imports.ensemble import check_forest, feature_names, from_ensemble
    check_forest(model)
    names = feature_names(model)
    try:
        train, _ = load_data(args.data, target=args.target, test=False, continuous=list(names))
    except InputError as e:
        if e.params != ("continuous",):
            raise
        # the table lacks some of the ensemble's features: read it as it is, to name them below
        # (the user gave no --continuous, so that option must not be named)
        train, _ = load_data(args.data, target=args.target, test=False)
    have = {a.name: c for a, c in zip(train.schema.attributes, train.columns)}
    missing = [n for n in names if n not in have]
    if missing:
        raise InputError(f"{args.data}: has no column {', '.join(map(repr, missing))}, which the ensemble was"
                         " fit on")
    return from_ensemble(model, pd.DataFrame({n: have[n] for n in names}), max_rules=args.max_rules,
                         synthetic=args.synthetic, validate=args.validate)


def run(args: argparse.Namespace) -> int:
    """Write the imported model and say what it holds."""
    from ..export.yaml import dump_yaml, read_model_bytes
    from ..imports.pmml import load_pmml
    if Path(args.model).suffix.lower() in MODEL_SUFFIXES:
        raise InputError(f"{args.model}: is a c45rules model file; import reads PMML or a joblib file (to write"
                         " PMML: c45rules export MODEL.yaml --to pmml)")
    check_output(args, args.output)
    raw = read_model_bytes(args.model, "a PMML or joblib file")
    if args.data is None and (args.target is not None or args.max_rules is not None or args.synthetic is not None
                              or args.validate is not None):
        raise InputError("--target, --max-rules, --synthetic and --validate go with --data (an ensemble's"
                         " training table)")
    if args.data is not None:
        if Path(args.model).suffix.lower() not in XGBOOST_SUFFIXES + (".txt",) and not _is_joblib(args.model, raw):
            raise InputError(f"{args.model}: --data explains an ensemble saved with joblib (or an XGBoost .json/.ubj"
                             " model file), not PMML")
        ruleset = _forest_rules(args, load_ensemble(args.model))
    else:
        ruleset = load_joblib(args.model, raw) if _is_joblib(args.model, raw) else load_pmml(args.model)
    write_text(args.output, dump_yaml(ruleset))
    if args.output not in (None, "-"):
        n = len(ruleset.rules)
        print(f"{n} rule{'' if n == 1 else 's'}, default class {ruleset.default_class}; written to {args.output}")
        if ruleset.notes:
            print(ruleset.notes)
        if not any(r.covered for r in ruleset.rules):
            print("The PMML holds no evidence for the rules: 'c45rules rescore MODEL --data DATA' measures it.",
                  file=sys.stderr)
    return 0
