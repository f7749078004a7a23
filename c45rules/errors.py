"""The library's own exceptions: every failure a user can cause is one of these."""
from __future__ import annotations


class C45RulesError(Exception):
    """Base class of every error the library raises on purpose."""


class InputError(C45RulesError, ValueError):
    """Bad training or scoring data: the message names the file, line or column."""


class ModelError(C45RulesError, ValueError):
    """An invalid or unreadable model file: the message names the field path."""
