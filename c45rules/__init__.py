"""c45rules: Quinlan's C4.5 Release 8 trees and C4.5-rules, exported where decisions run."""
__version__ = "0.1.0"

import sys

from ._lazy import MovedModules, lazy_exports
from .errors import C45RulesError, InputError, ModelError

# the rest on first use: importing the package (and `c45rules --help`) stays light
_WHERE = {**dict.fromkeys(("Attribute", "Dataset", "Schema"), ".data.schema"),
          **dict.fromkeys(("Condition", "Explanation", "Rule", "RuleSet"), ".model.ruleset"),
          **dict.fromkeys(("fit", "fit_dataset", "learn_rules", "learn_tree"), ".learn.pipeline"),
          **dict.fromkeys(("C45", "CART", "ID3", "J48", "CHAID", "QUEST"), ".learn.growers"),
          **dict.fromkeys(("export_text", "rules_frame"), ".model.views"),
          "C45Rules": ".learn.classifier", "CubistRules": ".learn.regressor",
          "RegressionModel": ".model.regression", "BoostedRuleSet": ".model.boosted", "from_sklearn": ".imports.sklearn",
          "from_ensemble": ".imports.ensemble"}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = ["C45RulesError", "InputError", "ModelError", "Attribute", "Dataset", "Schema",
           "Condition", "Explanation", "Rule", "RuleSet", "BoostedRuleSet", "C45Rules", "CubistRules", "RegressionModel",
           "C45", "CART", "ID3", "J48", "CHAID", "QUEST", "export_text", "rules_frame", "fit", "fit_dataset",
           "learn_rules", "learn_tree", "from_sklearn", "from_ensemble", "__version__"]

# the modules that moved into model/, learn/, export/ and data/ (docs/layout.md), importable
# at their old paths with a DeprecationWarning for one release
_MOVED = {**{f"{__name__}.{m}": f"{__name__}.model.{m}" for m in ("ruleset", "boosted", "records", "views")},
          **{f"{__name__}.{m}": f"{__name__}.learn.{m}" for m in ("pipeline", "crossval", "winnow", "classifier", "growers")},
          f"{__name__}.report": f"{__name__}.export.report", f"{__name__}.nesting": f"{__name__}.data.nesting"}
if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, MovedModules(_MOVED))   # before any finder that could see stale files
