"""The shapes of the SQL export's CASE, kept apart from sql.py (which loads sqlglot) so that
the command line can offer them without importing it."""

FORMS = ("flat", "nested")   # flat: one CASE, a WHEN per rule; nested: a CASE in each ELSE
