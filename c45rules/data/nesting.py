"""How deeply a document given to c45rules may nest: the elements of a PMML file, the brackets
of a JSON text (a PMML Extension, `explain --row`).

Python's json decoder and the PMML reader's walks over trees and predicates recurse once a
level, so a few kilobytes of brackets or nested elements would end in a RecursionError; the
depth is checked before anything recurses. No model or case c45rules reads comes near the
limit: scikit-learn, R and KNIME trees are rarely 100 levels deep, and c45rules' own JSON 3.
"""
from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from ..errors import C45RulesError

MAX_NESTING = 500

# a JSON string, escapes included: its brackets are text, not nesting. One left open runs to
# the end (the decoder stops there too); so every match is found without backtracking, in
# linear time (requiring the closing quote made `"\"\"\"...` quadratic: 40,000 pairs, 31 s)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_STEP = np.zeros(256, dtype=np.int8)    # by byte: +1 opens a level, -1 closes one
_STEP[[ord("["), ord("{")]], _STEP[[ord("]"), ord("}")]] = 1, -1


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON `text` (0 for a scalar), counted
    without parsing: brackets outside strings, each opening one level and each closing
    one ending it."""
    code = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return int(np.cumsum(_STEP[code], dtype=np.int64).max(initial=0))


def load_json(text: str, where: str, error: type[C45RulesError]) -> Any:
    """`text` parsed as JSON; `error` naming `where` when it is not JSON or nests deeper than
    MAX_NESTING (refused before the recursive decoder sees it)."""
    depth = json_depth(text)
    if depth > MAX_NESTING:
        raise error(f"{where}: JSON nested {depth} levels deep, beyond the limit of {MAX_NESTING}")
    try:
        return json.loads(text)
    except ValueError as e:
        raise error(f"{where}: not valid JSON ({e})") from None
