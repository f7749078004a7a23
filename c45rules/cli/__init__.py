"""The `c45rules` command: learn, print, score, explain and export C4.5 trees and rules.

Results go to stdout (so pipes work), progress to stderr only when stderr is a terminal and
`--quiet` is not given. Exit status: 0 success, 2 bad usage or bad input (a one-line
`c45rules: error: ...` naming the file, row or column), 1 an unexpected failure. `--debug`
adds the traceback. Every file the command writes is written atomically: a failure leaves
the previous file, if any, untouched and no partial file behind.

One module per command (HELP, EXAMPLE, PARENTS: the shared option groups of options.py,
configure(parser) for its own arguments, run(args) -> exit status); options.py holds what
the commands share on the command line, io.py what they share in reading and writing.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
from collections.abc import Callable

from .. import __version__
from ..errors import DataWarning, InputError, ModelError
from . import (audit, cv, demo, diff, evaluate, explain, export, fit, import_, predict, report, rescore, rules,
               serve, tree, tune)
from . import options
from .options import Parser, common
from .progress import reporting

_MODULES = {"tree": tree, "rules": rules, "fit": fit, "predict": predict, "evaluate": evaluate,
            "explain": explain, "export": export, "report": report, "rescore": rescore, "diff": diff,
            "cv": cv, "tune": tune, "demo": demo, "import": import_, "serve": serve, "audit": audit}
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    name: module.run for name, module in _MODULES.items()}


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option that takes a value shows its default, when its help does not say it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.option_strings and action.nargs != 0 and "default" not in text
                and action.default not in (None, [], argparse.SUPPRESS)):
            text += " (default: %(default)s)"
        return text


def build_parser(only: str | None = None, help_grower: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the `c45rules` command (one sub-command per job); with `only`,
    that command's options alone are set up (the others are listed, not configured). With
    `help_grower` (a help request), a learning command's help shows that grower's options alone."""
    top = Parser(prog="c45rules", description=__doc__.split("\n\n")[0],
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 epilog="Run 'c45rules COMMAND --help' for a command's options and an example.")
    top.add_argument("--version", action="version", version=f"c45rules {__version__}")
    top.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    top.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    shared = common()
    for name, module in _MODULES.items():
        if only is not None and name != only:
            sub.add_parser(name, help=module.HELP)
            continue
        options.HELP_GROWER = help_grower
        try:
            parents = [shared, *(make() for make in module.PARENTS)]
        finally:
            options.HELP_GROWER = None
        epilog = f"example:\n  {module.EXAMPLE}"
        if help_grower is not None and any(a.dest == "grower" for p in parents for a in p._actions):
            epilog = options.grower_epilog(name, help_grower, module.EXAMPLE)
        p = sub.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP),
                           parents=parents, formatter_class=_HelpFormatter, epilog=epilog)
        module.configure(p)
    return top


def _command(argv: list[str]) -> str | None:
    """The command named on the line, if any: only its options need setting up (setting up
    all sixteen commands' was a tenth of `c45rules rules golf`)."""
    for word in argv:
        if not word.startswith("-"):    # the top-level options take no value
            return word if word in _MODULES else None
    return None


def _help_grower(argv: list[str]) -> str | None:
    """The grower a help request is about (`--grower G --help`; c45 without --grower), or None
    when no help is asked."""
    if "-h" not in argv and "--help" not in argv:
        return None
    for i, word in enumerate(argv):
        if word.startswith("--grower="):
            return word.split("=", 1)[1]
        if word == "--grower" and i + 1 < len(argv):
            return argv[i + 1]
    return "c45"


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


_PYTHON_SHOWWARNING = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A DataWarning as one `c45rules: warning:` line; any other warning as Python shows it."""
    if issubclass(category, DataWarning):
        text = getattr(message, "cli", None) or message
        print(f"c45rules: warning: {_one_line(text)}", file=sys.stderr)
    else:
        _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)


# commands whose work is all done when they return (printed, or written to files closed
# atomically; no server, store or engine open): as a process of their own they leave at once
_QUICK_EXIT = frozenset({"tree", "rules", "fit"})


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `c45rules` console script; returns the exit status."""
    words = sys.argv[1:] if argv is None else argv
    grower = _help_grower(words)
    if grower not in (None, *options.GROWERS):
        grower = "c45"    # argparse names the bad choice when it parses
    args = build_parser(_command(words), grower).parse_args(argv)
    status = _run(args)
    if argv is None and args.command in _QUICK_EXIT:
        _leave(status)
    return status


def _leave(status: int) -> None:
    """End the process now, what was printed flushed: freeing the model, the data and every
    module object by object at exit took a sixth of a small run (income: 0.15 s of 0.8)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):    # `| head` closed the pipe; a closed stream
            pass
    os._exit(status)


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; the exit status, errors reported in one line."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", DataWarning)
            warnings.showwarning = _show_warning
            with reporting(args) as args.reporter:
                return COMMANDS[args.command](args)
    except (InputError, ModelError) as e:
        if args.debug:
            traceback.print_exc()
        from .vocabulary import cli_message
        text = getattr(e, "cli", None) or cli_message(str(e), e.params)
        print(f"c45rules: error: {_one_line(text)}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, FileExistsError, PermissionError) as e:
        if args.debug:
            traceback.print_exc()
        where = f"{e.filename}: " if e.filename else ""
        print(f"c45rules: error: {where}{_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `c45rules rules ... | head`: not an error of ours
        try:
            sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        print("c45rules: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the last line of defence, reported in one line
        if args.debug:
            traceback.print_exc()
        print(f"c45rules: error: unexpected {type(e).__name__}: {_one_line(e)}"
              " (run with --debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
