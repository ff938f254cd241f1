"""Numbers and lists in messages, so that they read as English ("1 seat", "2 seats";
"alice, bob and carol"). Messages reach people through every door, so these live
below the apps."""

from __future__ import annotations

from collections.abc import Sequence


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number ``n`` needs: "1 seat", "0 seats", "2 tries"."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def listed(items: Sequence[str], conjunction: str = "and") -> str:
    """Items as an English list: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"
