"""MkDocs hook: the CLI reference page is rendered at build time from the argparse parsers
that `c45rules` itself runs (c45rules.cli.build_parser), so the page cannot drift from the
command. A page holding the marker line `<!-- cli-reference -->` gets, in its place, the top
parser's help and then one section per sub-command with that command's full `--help`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

# the checkout the site is built from, whether or not the package is installed
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

MARKER = "<!-- cli-reference -->"


def render() -> str:
    """Every sub-command's help as Markdown: a heading and a text block per command."""
    from c45rules.cli import _MODULES, build_parser

    # argparse wraps help at the terminal's width: fix it so the page is the same everywhere
    os.environ["COLUMNS"] = "100"
    parts = ["```text", build_parser().format_help().rstrip(), "```", ""]
    for name in _MODULES:
        top = build_parser(only=name)
        sub = next(a for a in top._subparsers._group_actions if a.dest == "command")
        parts += [f"## c45rules {name}", "", "```text", sub.choices[name].format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace the marker with the rendered reference (other pages pass through)."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())
