"""The decision models as values: `RuleSet` (ruleset.py), `BoostedRuleSet` (boosted.py), records
decided one at a time (records.py) and the scikit-learn style views of a model (views.py): what
every export, explain, rescore and diff accepts. Nothing here learns, reads files or prints."""
