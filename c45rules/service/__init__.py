"""The decision service: models of a folder over HTTP, every decision in an audit store.

app.py holds the routes (FastAPI; imported only by `c45rules serve`), models.py the folder
and its live swap, audit.py the stores. The single-record decision path is c45rules/model/records.py.
"""
