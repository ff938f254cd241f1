"""Domain errors: what a service refuses, and why, with no HTTP in it.

Every service of every app raises a subclass of ``DomainError``. Each class has
a stable ``code`` (snake_case, the same word clients branch on), a ``kind`` that
says what sort of refusal it is, a ``title``, and each instance a ``message`` in
words and ``fields`` (the rule id, the legal choices, the current version, ...).

Words are translated (docs/i18n.md): a class's ``title`` and ``default_message``
are marked with ``gettext_noop`` and translated when used (``title_of``, and the
message when the error is made), and a message given when raising is written
with ``gettext``/``ngettext``, so that both speak the language active where the
error is made: the request's (Accept-Language) in the API, the recipient's in an
email reply. ``code`` and ``fields`` never change with the language.

The doors decide what a refusal looks like to their caller: the REST API maps
``kind`` to a status code (``api.problems``), an email reply quotes the message
and the rule, an admin action shows it as a message. None of that is known here.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, ClassVar

from django.utils.translation import gettext, gettext_noop


class ErrorKind(enum.StrEnum):
    """What sort of refusal an error is; each door maps these in one table."""

    INVALID = "invalid"  # the input cannot be read or breaks a field's rules
    UNAUTHENTICATED = "unauthenticated"  # who is asking is unknown
    FORBIDDEN = "forbidden"  # known, but not allowed to do this
    NOT_FOUND = "not_found"  # the thing does not exist (or may not be seen)
    CONFLICT = "conflict"  # the thing is not in a state that allows it
    NOT_ALLOWED = "not_allowed"  # well formed, but the rules forbid it (an illegal move)
    PRECONDITION_FAILED = "precondition_failed"  # the caller's condition on the state is false
    PRECONDITION_REQUIRED = "precondition_required"  # the caller must say what state it saw
    TOO_MANY = "too_many"  # a limit on attempts or requests was reached


class DomainError(Exception):
    """Base of every error a service raises on purpose.

    Subclass with class attributes and raise with a message and fields::

        class IllegalMove(DomainError):
            kind = ErrorKind.NOT_ALLOWED
            code = "illegal_move"
            title = "That move is not allowed"

        raise IllegalMove("Red has 3 tokens; taking two needs 4.", rule="B-TAKE-2")

    ``fields`` must be JSON values: they reach clients as they are.
    ``retry_after`` (seconds) says when trying again can succeed.
    """

    kind: ClassVar[ErrorKind] = ErrorKind.INVALID
    code: ClassVar[str] = "invalid"
    title: ClassVar[str] = gettext_noop("The request cannot be carried out")
    default_message: ClassVar[str] = gettext_noop("The request cannot be carried out.")

    def __init__(self, message: str | None = None, *, retry_after: int | None = None, **fields: Any) -> None:
        self.message = message or gettext(self.default_message)
        self.retry_after = max(1, retry_after) if retry_after is not None else None
        self.fields: dict[str, Any] = fields
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, fields={self.fields!r})"


class InvalidInput(DomainError):
    """Input a service checks itself and refuses field by field.

    ``errors`` maps each field to its messages, as the API's validation errors do.
    """

    kind = ErrorKind.INVALID
    code = "validation_error"
    title = gettext_noop("Invalid input")

    def __init__(self, errors: dict[str, list[str]], message: str | None = None) -> None:
        self.errors = {field: list(messages) for field, messages in errors.items()}
        super().__init__(message or field_errors_sentence(self.errors))


def field_errors_sentence(errors: Mapping[str, Any]) -> str:
    """One sentence for a set of field errors: the message itself when one field
    has a plain message, else the names of the fields to look at."""
    fields = [name for name in errors if name != "non_field_errors"]
    general = errors.get("non_field_errors")
    if not fields and isinstance(general, list) and general:
        return str(general[0])
    if len(fields) == 1:
        first = errors[fields[0]]
        if isinstance(first, list) and first and isinstance(first[0], str):
            return f"{fields[0]}: {first[0]}"
    return gettext("Some fields are invalid: %(fields)s. See `errors` for each one.") % {"fields": ", ".join(fields)}


def title_of(error: DomainError | type[DomainError]) -> str:
    """The error's ``title`` in the active language."""
    return gettext(error.title)
