"""Other tools' models read into a RuleSet that decides as they do."""
from .pmml import load_pmml, ruleset_from_pmml

__all__ = ["load_pmml", "ruleset_from_pmml"]
