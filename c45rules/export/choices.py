"""What the export command offers on its command line (SQL forms, DMN versions), kept apart
from sql.py and dmn.py, which load sqlglot and pandas, so that building the parser stays light."""

FORMS = ("flat", "nested")   # flat: one CASE, a WHEN per rule; nested: a CASE in each ELSE
DMN_NAMESPACES = {"1.3": "https://www.omg.org/spec/DMN/20191111/MODEL/",
                  "1.1": "http://www.omg.org/spec/DMN/20151101/dmn.xsd"}
DMN_VERSIONS = tuple(DMN_NAMESPACES)
# a regression model (a number) has exports of their own, which import the class rules' ones
REGRESSION_HINT = ("a regression model gives a number, not a class: its {what} is"
                   " c45rules.export.{where} (`c45rules export` chooses it)")
