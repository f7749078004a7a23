"""Exports generated from a RuleSet alone: YAML, SQL, standalone Python, PMML, DMN, tree and rule-list graphs."""
from ._atomic import atomic_write_text
from .dmn import to_dmn, write_dmn
from .graph import rules_to_networkx, to_dot, tree_to_networkx, write_graphml
from .pmml import to_pmml, write_pmml
from .python import to_python, write_python
from .sql import SQL_DIALECTS, sql_case_expression, to_sql_case, to_sql_select
from .yaml import dump_yaml, load_yaml, write_yaml

__all__ = ["atomic_write_text", "dump_yaml", "load_yaml", "write_yaml", "to_sql_case",
           "to_sql_select", "sql_case_expression", "SQL_DIALECTS", "to_python", "write_python",
           "tree_to_networkx", "rules_to_networkx", "write_graphml", "to_dot", "to_pmml", "write_pmml",
           "to_dmn", "write_dmn"]
