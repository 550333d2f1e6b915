"""Typed event records: every state change emits one (R-ENG-4).

Each kind of SCENARIO.md is a NamedTuple with the fields the contract names; `to_dict()`
gives the JSON-ready form (`pulse`, `kind`, then the fields; cells as [x, y]). Player
text is rendered from these by `affray.display.text`, never written by the systems.

Why tuples: an event is an immutable record, and a long fight logs many thousands.
A tuple of plain values is small and cheap to build (`tuple.__new__(Kind, fields)` skips
even the generated `__new__`), and costs the collector little: a dataclass log cost
about 15% of a blow's time in collections. The collector does keep tracking a NamedTuple
(only exact tuples are untracked), so each full collection still walks the log; CPython
runs those rarely (when the objects that survived since the last one are a quarter of
all long-lived ones), which keeps the cost per event constant as the log grows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, Protocol

Cell = tuple[int, int]

EVENT_TYPES: dict[str, type] = {}
# Field names that are Python keywords: stored with a trailing underscore.
_RENAMED = {"from_": "from"}


class Event(Protocol):
    """What every event offers: the pulse, the kind, and its JSON-ready dict."""

    pulse: int
    kind: str

    def to_dict(self) -> dict[str, Any]: ...


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _to_dict(self: Any) -> dict[str, Any]:
    """JSON-ready dict: pulse, kind, then the fields in declaration order."""
    out: dict[str, Any] = {"pulse": self.pulse, "kind": self.kind}
    for name, key in self._keys:
        out[key] = _jsonable(getattr(self, name))
    return out


def event(kind: str):  # type: ignore[no-untyped-def]
    """Class decorator: name the kind, register it, give it `to_dict`."""

    def register(cls: type) -> type:
        cls.kind = kind  # type: ignore[attr-defined]
        cls._keys = tuple((name, _RENAMED.get(name, name))  # type: ignore[attr-defined]
                          for name in cls._fields if name != "pulse")  # type: ignore[attr-defined]
        cls.to_dict = _to_dict  # type: ignore[attr-defined]
        EVENT_TYPES[kind] = cls
        return cls

    return register


@event("damage")
class Damage(NamedTuple):
    pulse: int
    source: str | None
    target: str
    amount: int
    raw: int
    damage_type: str
    cause: str
    spell: str | None = None
    critical: bool = False
    saved: bool = False
    # The status whose tick this is (cause "status"): burning, poisoned, corroded.
    status: str | None = None


@event("miss")
class Miss(NamedTuple):
    pulse: int
    source: str
    target: str
    cause: str


@event("defended")
class Defended(NamedTuple):
    pulse: int
    source: str
    target: str
    defence: str


@event("immune")
class Immune(NamedTuple):
    pulse: int
    source: str | None
    target: str
    damage_type: str


@event("status")
class StatusChanged(NamedTuple):
    pulse: int
    target: str
    status: str
    degree: int
    change: str


@event("stun")
class Stun(NamedTuple):
    pulse: int
    target: str
    state: str


@event("lost_round")
class LostRound(NamedTuple):
    pulse: int
    target: str
    why: str


@event("pushed")
class Pushed(NamedTuple):
    pulse: int
    target: str
    from_: Cell
    to: Cell
    cause: str | None = None  # the creature whose cast pushed it (an addition)



@event("terrain")
class TerrainChanged(NamedTuple):
    pulse: int
    cell: Cell
    before: str
    after: str
    cause: str | None = None  # the creature whose cast changed it (an addition)


@event("fell_in")
class FellIn(NamedTuple):
    pulse: int
    target: str
    cell: Cell
    cause: str | None = None  # the creature whose cast melted or shattered the ice


@event("fire")
class FireChanged(NamedTuple):
    pulse: int
    cell: Cell
    change: str
    cause: str | None = None  # the creature whose cast lit or put out the fire


@event("door_broken")
class DoorBroken(NamedTuple):
    pulse: int
    cell: Cell
    trap_destroyed: bool
    cause: str | None = None  # the creature whose blast broke it


@event("door")
class DoorChanged(NamedTuple):
    """A creature opened or closed a door (`affray.Open`, `affray.Close`; an addition to
    SCENARIO.md's kinds). `change`: opened, closed; `cause`: who did it; `trap_sprung`:
    the door was trapped and opening it set the trap off (what a trap does is the
    game's: it listens for this event)."""

    pulse: int
    cell: Cell
    change: str
    cause: str | None = None
    trap_sprung: bool = False


@event("chest_broken")
class ChestBroken(NamedTuple):
    pulse: int
    cell: Cell
    item: str
    cause: str | None = None  # the creature whose blast broke it


@event("item_lost")
class ItemLost(NamedTuple):
    pulse: int
    cell: Cell
    item: str
    count: int  # type: ignore[assignment]  # the contract's name; shadows tuple.count
    damage_type: str
    message: str
    cause: str | None = None  # the creature whose cast destroyed the items


@event("gear_damaged")
class GearDamaged(NamedTuple):
    pulse: int
    target: str
    item: str
    change: str


@event("death")
class Death(NamedTuple):
    pulse: int
    target: str
    killer: str | None


@event("cast")
class Cast(NamedTuple):
    pulse: int
    actor: str
    spell: str
    level: int
    via: str
    target: str | Cell


@event("cast_failed")
class CastFailed(NamedTuple):
    """A cast whose spell level came to 0 or below (R-LVL-4): it fails, costing its beats.
    An addition to SCENARIO.md's kinds."""

    pulse: int
    actor: str
    spell: str
    level: int
    reason: str


@event("dispelled")
class Dispelled(NamedTuple):
    """A dispel tried an affect (R-SAVE-9): `removed`, or it resisted and lost a level.
    An addition to SCENARIO.md's kinds."""

    pulse: int
    target: str
    affect: str
    removed: bool


@event("refused")
class Refused(NamedTuple):
    pulse: int
    actor: str
    action: str
    reason: str


@event("position")
class Position(NamedTuple):
    """A creature's position changed (stood up...): an addition to SCENARIO.md's kinds."""

    pulse: int
    target: str
    before: str
    after: str


@event("too_tired")
class TooTired(NamedTuple):
    """A player's blow skipped for want of movement points (an addition to SCENARIO.md's
    kinds)."""

    pulse: int
    source: str
    target: str


@event("moved")
class Moved(NamedTuple):
    """A creature stepped to a neighbouring cell (an addition to SCENARIO.md's kinds)."""

    pulse: int
    target: str
    from_: Cell
    to: Cell


@event("fight")
class Fight(NamedTuple):
    """`source` starts or stops fighting `target` (R-ACT-1..3). `why`: attacked (it was
    attacked), aggressive and assist (a mind's choice), scripted (a scenario, a game's
    Attack or `start_fight`), foe_died, apart (no longer beside), fled."""

    pulse: int
    source: str
    target: str
    change: str
    why: str


@event("fled")
class Fled(NamedTuple):
    """A wimpy creature's step away from its foes (R-MIND-5)."""

    pulse: int
    target: str
    from_: Cell
    to: Cell


@event("settled")
class Settled(NamedTuple):
    """Nothing is left to happen from this pulse on: no fight, no queued or scenario
    action, nothing ticking (logged by `World.run(until="settled")`; an addition)."""

    pulse: int



def event_from_dict(data: dict[str, Any]) -> Any:
    """Rebuild any event from its `to_dict()` form (saves)."""
    cls = EVENT_TYPES[data["kind"]]
    values = [data["pulse"]]
    defaults = cls._field_defaults  # type: ignore[attr-defined]
    for name, key in cls._keys:  # type: ignore[attr-defined]
        # A field added later with a default (e.g. `cause`) may be missing from an old log.
        value = data[key] if key in data or name not in defaults else defaults[name]
        values.append(tuple(value) if isinstance(value, list) else value)
    return cls(*values)


# -- the creatures an event names (caches that must look again at them) ------------------
# The event fields that name a creature: a creature an event names may have changed in
# any way (the vectorised round's kept columns and `World.view` read it so).
CREATURE_FIELDS = ("source", "target", "actor", "killer", "cause")
_NAMING: dict[type, tuple[str, ...]] = {}


def naming_fields(kind: type) -> tuple[str, ...]:
    """The fields of an event kind that may name a creature (all of `CREATURE_FIELDS`
    for an event that is not a NamedTuple)."""
    fields = _NAMING.get(kind)
    if fields is None:
        names = getattr(kind, "_fields", CREATURE_FIELDS)
        fields = _NAMING[kind] = tuple(name for name in CREATURE_FIELDS if name in names)
    return fields


def mark_named(events: Iterable[Any], by_id: Mapping[str, int], marked: set[int]) -> None:
    """Add to `marked` the entity of every creature these events name."""
    for event in events:
        for field in naming_fields(type(event)):
            name = getattr(event, field, None)
            if type(name) is str:
                entity = by_id.get(name)
                if entity is not None:
                    marked.add(entity)
