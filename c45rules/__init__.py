"""c45rules: Quinlan's C4.5 Release 8 trees and C4.5-rules, exported where decisions run."""
__version__ = "0.1.0"

from ._lazy import lazy_exports
from .errors import C45RulesError, InputError, ModelError

# the rest on first use: importing the package (and `c45rules --help`) stays light
_WHERE = {**dict.fromkeys(("Attribute", "Dataset", "Schema"), ".data.schema"),
          **dict.fromkeys(("Condition", "Explanation", "Rule", "RuleSet"), ".ruleset"),
          **dict.fromkeys(("fit", "fit_dataset", "learn_rules", "learn_tree"), ".pipeline"),
          **dict.fromkeys(("C45", "CART", "ID3", "J48", "CHAID", "QUEST"), ".growers"),
          **dict.fromkeys(("export_text", "rules_frame"), ".views"),
          "C45Rules": ".classifier", "BoostedRuleSet": ".boosted", "from_sklearn": ".imports.sklearn"}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = ["C45RulesError", "InputError", "ModelError", "Attribute", "Dataset", "Schema",
           "Condition", "Explanation", "Rule", "RuleSet", "BoostedRuleSet", "C45Rules",
           "C45", "CART", "ID3", "J48", "CHAID", "QUEST", "export_text", "rules_frame", "fit", "fit_dataset",
           "learn_rules", "learn_tree", "from_sklearn", "__version__"]
