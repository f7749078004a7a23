"""Exports generated from a RuleSet alone: YAML, SQL, standalone Python, tree graphs."""
