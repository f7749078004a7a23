"""The library's own exceptions: every failure a user can cause is one of these."""
from __future__ import annotations


class C45RulesError(Exception):
    """Base class of every error the library raises on purpose.

    `params`: the library parameters the message names, in Python's words (`target=COLUMN`,
    `sep`); the command line says them as its options (cli/vocabulary.cli_message).

    Parameters
    ----------
    *args
        The message, as for any exception.
    params : tuple of str, default=()
        The library parameters the message names.

    Attributes
    ----------
    params : tuple of str

    Examples
    --------
    >>> from c45rules import C45RulesError, InputError, ModelError
    >>> issubclass(InputError, C45RulesError), issubclass(ModelError, ValueError)
    (True, True)
    >>> C45RulesError("give target=COLUMN", params=("target",)).params
    ('target',)
    """

    def __init__(self, *args: object, params: tuple[str, ...] = (), cli: str | None = None) -> None:
        super().__init__(*args)
        self.params = tuple(params)
        self.cli = cli   # the whole message in the command line's words, where translating is not enough


class InputError(C45RulesError, ValueError):
    """Bad training or scoring data: the message names the file, line or column.

    Also a ValueError; the command line prints its message on one line and exits with 2.

    Parameters
    ----------
    *args
        The message.
    params : tuple of str, default=()
        The library parameters the message names (see C45RulesError).

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import InputError, fit
    >>> try:
    ...     fit(pd.DataFrame({"a": [1.0, 2.0], "class": ["n", "n"]}), target="class")
    ... except InputError as e:
    ...     print(e)
    <DataFrame>: all 2 cases are of class 'n'; learning needs at least two classes, not one class
    """


class ModelError(C45RulesError, ValueError):
    """An invalid or unreadable model file: the message names the field path.

    Also a ValueError; the command line prints its message on one line and exits with 2.

    Parameters
    ----------
    *args
        The message.
    params : tuple of str, default=()
        The library parameters the message names (see C45RulesError).

    Examples
    --------
    >>> from c45rules import ModelError
    >>> from c45rules.export import load_yaml
    >>> try:
    ...     load_yaml(b"format: c45rules-ruleset")
    ... except ModelError as e:
    ...     print(e)
    format_version: this library reads version 1, found None
    """


class DataWarning(UserWarning):
    """Data read, but perhaps not as meant (a numeric column with a few stray strings).

    Its message speaks Python (`continuous=['x']`); `cli`, when given, is the same warning in
    the command line's words (`--continuous x`), which the command line prints instead.
    """

    def __init__(self, message: str, cli: str | None = None) -> None:
        super().__init__(message)
        self.cli = cli


def shown(value: object) -> str:
    """A value for a message: its repr, or only its size for an integer past 128 bits (Python
    refuses the repr past 4300 digits, and it would drown the message long before)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    return repr(value)
