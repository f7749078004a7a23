"""The library's own exceptions: every failure a user can cause is one of these."""
from __future__ import annotations


class C45RulesError(Exception):
    """Base class of every error the library raises on purpose.

    `params`: the library parameters the message names, in Python's words (`target=COLUMN`,
    `sep`); the command line says them as its options (cli/vocabulary.cli_message)."""

    def __init__(self, *args: object, params: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.params = tuple(params)


class InputError(C45RulesError, ValueError):
    """Bad training or scoring data: the message names the file, line or column."""


class ModelError(C45RulesError, ValueError):
    """An invalid or unreadable model file: the message names the field path."""


class DataWarning(UserWarning):
    """Data read, but perhaps not as meant (a numeric column with a few stray strings)."""


def shown(value: object) -> str:
    """A value for a message: its repr, or only its size for an integer past 128 bits (Python
    refuses the repr past 4300 digits, and it would drown the message long before)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    return repr(value)
