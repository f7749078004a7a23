"""Other tools' models read into a RuleSet that decides as they do."""
from .pmml import load_pmml, ruleset_from_pmml
from .sklearn import from_sklearn

__all__ = ["from_sklearn", "load_pmml", "ruleset_from_pmml"]
