"""Exports generated from a RuleSet alone: YAML, SQL, standalone Python, PMML, DMN, tree and rule-list graphs."""
from .._lazy import lazy_exports

_WHERE = {"atomic_write_text": "._atomic",
          **dict.fromkeys(("to_dmn", "write_dmn"), ".dmn"),
          **dict.fromkeys(("rules_to_networkx", "to_dot", "tree_to_networkx", "write_graphml"), ".graph"),
          **dict.fromkeys(("to_pmml", "write_pmml"), ".pmml"),
          **dict.fromkeys(("to_python", "write_python"), ".python"),
          **dict.fromkeys(("SQL_DIALECTS", "sql_case_expression", "to_sql_case", "to_sql_select"), ".sql"),
          **dict.fromkeys(("dump_yaml", "load_yaml", "write_yaml"), ".yaml")}
# regression models (a number) have their own SQL, module and PMML in export.regression_sql,
# regression_python and regression_pmml (not listed here until their docstrings carry examples)
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = ["atomic_write_text", "dump_yaml", "load_yaml", "write_yaml", "to_sql_case",
           "to_sql_select", "sql_case_expression", "SQL_DIALECTS", "to_python", "write_python",
           "tree_to_networkx", "rules_to_networkx", "write_graphml", "to_dot", "to_pmml", "write_pmml",
           "to_dmn", "write_dmn"]
