"""Free text (a reviewer's note) made safe for a one-line comment in generated code."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.ruleset import visible

if TYPE_CHECKING:
    from ..model.boosted import BoostedRuleSet
    from ..model.ruleset import RuleSet


def comment_text(text: str) -> str:
    """`text` on one line: printable characters as they are, every other character (line
    breaks of any kind, NUL, control and format characters such as bidi controls) as its
    Python escape (ruleset.visible), so that a note can never end the comment it sits in (SQL
    `--`, Python `#`) and start code, nor reorder what a reader sees."""
    return visible(text)


def note_lines(ruleset: RuleSet | BoostedRuleSet) -> list[str]:
    """The model's and the rules' notes as comment texts: 'notes: ...', 'rule 7: ...' (of a
    boosted model: 'trial 2 rule 7: ...')."""
    out = [f"notes: {comment_text(ruleset.notes)}"] if ruleset.notes else []
    trials = getattr(ruleset, "trials", None)
    if trials is None:
        return out + [f"rule {int(r.id)}: {comment_text(r.note)}" for r in ruleset.rules if r.note]
    for t, rs in enumerate(trials, 1):
        out += [f"trial {t} notes: {comment_text(rs.notes)}"] if rs.notes else []
        out += [f"trial {t} rule {int(r.id)}: {comment_text(r.note)}" for r in rs.rules if r.note]
    return out
