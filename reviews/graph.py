"""The review's graph as the server draws it (an inline SVG, no JavaScript): each
seat's chance of winning over the game, a line per seat in a colour and a dash
pattern of its own, and each position a link to the replay at that position.

``review_graph`` works out the geometry; ``reviews/_graph.html`` writes the SVG
from it. Position 0 is the deal (the chances before the first move), position k
the board after k moves (the chances after move k)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The drawing's own units; the SVG scales to the width of the page.
WIDTH = 480
HEIGHT = 250
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 40

# Told apart by colour and by dash (and by the name in the legend): dark enough on
# white for a line of the page (at least 4.5:1), unlike one another in hue.
COLOURS = ("#1f5fa8", "#b3261e", "#1e6b34", "#6a3d9a")
DASHES = ("", "8 4", "2 4", "10 4 2 4")


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    colour: str


@dataclass(frozen=True)
class GraphPoint:
    """One position: the link to it (a band as wide as the step, its dots in it)."""

    position: int
    href: str
    label: str
    band_x: float
    band_width: float
    dots: tuple[Dot, ...]


@dataclass(frozen=True)
class SeatLine:
    seat: int
    name: str
    colour: str
    dash: str
    points: str  # the polyline's "x,y x,y ..."


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Graph:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    lines: tuple[SeatLine, ...]
    points: tuple[GraphPoint, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    current_x: float | None

    @property
    def plot_height(self) -> int:
        return self.bottom - self.top

    @property
    def middle_y(self) -> float:
        return (self.top + self.bottom) / 2

    @property
    def tick_label_x(self) -> int:
        return self.left - 6

    @property
    def x_label_y(self) -> int:
        return self.bottom + 17

    @property
    def tick_end_y(self) -> int:
        return self.bottom + 4

    @property
    def axis_title_y(self) -> int:
        return self.height - 4


def _step(total: int) -> int:
    """Every how many moves a tick of the move axis goes: about eight ticks."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100):
        if total <= step * 8:
            return step
    return 200


@dataclass(frozen=True)
class Style:
    colour: str
    dash: str


def legend(seats: int) -> list[Style]:
    """Each seat's colour and dash, in seat order."""
    return [Style(COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]) for seat in range(seats)]


def percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def review_graph(
    chances: Sequence[Sequence[float]],
    *,
    total: int,
    names: dict[int, str],
    current: int | None,
    href: Callable[[int], str],
    label: Callable[[int, str], str],
) -> Graph:
    """The graph of ``chances[k]`` (each seat's chance at position k, for the
    positions reviewed so far) on an axis of ``total`` moves. ``href(k)`` is the
    replay's address at position k; ``label(k, chances)`` its words, given the
    chances as text ("Alice 62%, Bob 38%"); ``current`` the position the replay
    shows, marked by a vertical line."""
    plot_left, plot_right = LEFT, WIDTH - RIGHT
    plot_top, plot_bottom = TOP, HEIGHT - BOTTOM
    span = max(total, 1)
    step_width = (plot_right - plot_left) / span

    def x_of(position: int) -> float:
        return round(plot_left + position * step_width, 1)

    def y_of(chance: float) -> float:
        return round(plot_bottom - max(0.0, min(1.0, chance)) * (plot_bottom - plot_top), 1)

    seats = len(chances[0]) if chances else len(names)
    lines = tuple(
        SeatLine(
            seat=seat,
            name=names.get(seat, str(seat + 1)),
            colour=COLOURS[seat % len(COLOURS)],
            dash=DASHES[seat % len(DASHES)],
            points=" ".join(f"{x_of(k)},{y_of(row[seat])}" for k, row in enumerate(chances)),
        )
        for seat in range(seats)
    )
    points = []
    for position, row in enumerate(chances):
        words = ", ".join(f"{line.name} {percent(row[line.seat])}" for line in lines)
        points.append(
            GraphPoint(
                position=position,
                href=href(position),
                label=label(position, words),
                band_x=round(max(plot_left - step_width / 2, x_of(position) - step_width / 2, 0), 1),
                band_width=round(step_width, 1),
                dots=tuple(Dot(x_of(position), y_of(row[line.seat]), line.colour) for line in lines),
            )
        )
    step = _step(total)
    x_ticks = tuple(Tick(x_of(k), str(k)) for k in range(0, total + 1, step))
    y_ticks = tuple(Tick(y_of(share / 4), percent(share / 4)) for share in range(5))
    return Graph(
        width=WIDTH,
        height=HEIGHT,
        left=plot_left,
        right=plot_right,
        top=plot_top,
        bottom=plot_bottom,
        lines=lines,
        points=tuple(points),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        current_x=x_of(current) if current is not None and 0 <= current <= total else None,
    )
