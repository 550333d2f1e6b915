"""Actions a game or scenario submits: Attack, Cast, Move (SCENARIO.md), Open, Close.

Actions are small frozen msgspec Structs: typed, keyword-constructed, and plain data in
saves. `World.submit` validates one at once (R-ENG-2) and queues it on its actor; the
queue is a component, so pending actions are saved with the world.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from msgspec import Struct

from affray.components import component

Cell = tuple[int, int]


class Action(Struct, frozen=True, kw_only=True, tag_field="action", tag=str.lower):
    """Base of the actions; `actor` is a creature id.

    `keeps_hiding` marks an action a stunned creature may still issue (R-STUN-1); none
    of the built-in actions does, a game's own subclass may.
    """

    keeps_hiding: ClassVar[bool] = False
    actor: str


class Attack(Action, frozen=True, kw_only=True):
    """Start fighting `target` (a creature id); rounds follow every 12 pulses. `why` is
    the `fight` event's reason (R-ACT-3): "scripted" for a script or a game; a mind's
    "aggressive", "assist", or "attacked" (going for one that attacked it, R-ACT-1)."""

    target: str
    why: Literal["scripted", "aggressive", "assist", "attacked"] = "scripted"


class Cast(Action, frozen=True, kw_only=True):
    """Cast `spell` at a creature id or an (x, y) cell, from mana, scroll, wand, trap, breath."""

    spell: str
    target: str | Cell
    via: str = "mana"


class Move(Action, frozen=True, kw_only=True):
    """Step to a neighbouring cell `to` (x, y)."""

    to: Cell


class Flee(Move, frozen=True, kw_only=True):
    """A wimpy step away from its foes (R-MIND-5): a `fled` event instead of `moved`,
    and the fights it leaves end with why "fled"."""


class Open(Action, frozen=True, kw_only=True):
    """Open the shut door `at` (x, y) beside the actor (R-GRID-1: a shut door blocks; an
    open one lets creatures, sight and spells through). A step's time (`world.move_wait`);
    a locked door stays shut. A `door` event."""

    at: Cell


class Close(Action, frozen=True, kw_only=True):
    """Close the open door `at` (x, y) beside the actor: refused while a creature or an
    item lies in the doorway. A step's time; a `door` event."""

    at: Cell


AnyAction = Attack | Cast | Move | Flee | Open | Close


def action_name(action: Action) -> str:
    """The action's kind as events name it: attack, cast, move, flee, open, close."""
    return type(action).__name__.lower()


@component
@dataclass(slots=True)
class ActionQueue:
    """Valid actions waiting for their actor's wait to reach 0, first in, first out."""

    pending: list[AnyAction] = field(default_factory=list)


@dataclass(slots=True)
class Casting:
    """A cast the Spell system resolves this pulse, handed over by the action step.

    Not a component: a cast is resolved in the pulse it is issued, so it never needs
    saving, and adding a component would clear esper's query cache mid-pulse.
    """

    actor: int

    spell: str
    target: str | Cell
    via: str = "mana"
