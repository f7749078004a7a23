"""c45rules: Quinlan's C4.5 Release 8 trees and C4.5-rules, exported where decisions run."""
__version__ = "0.1.0"

from .errors import C45RulesError, InputError, ModelError
from .data import Attribute, Dataset, Schema
from .ruleset import Condition, Explanation, Rule, RuleSet
from .pipeline import fit, fit_dataset, learn_rules, learn_tree
from .imports.sklearn import from_sklearn


__all__ = ["C45RulesError", "InputError", "ModelError", "Attribute", "Dataset", "Schema",
           "Condition", "Explanation", "Rule", "RuleSet", "C45Rules", "fit", "fit_dataset",
           "learn_rules", "learn_tree", "from_sklearn", "__version__"]


def __getattr__(name: str):
    # the estimator class imports scikit-learn when it is installed: load it on first use
    if name == "C45Rules":
        from .classifier import C45Rules
        return C45Rules
    raise AttributeError(f"module 'c45rules' has no attribute {name!r}")
