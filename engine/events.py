"""Typed event records: every state change emits one (R-ENG-4).

Each kind of SCENARIO.md is a dataclass with the fields the contract names; `to_dict()`
gives the JSON-ready form (`pulse`, `kind`, then the fields; cells as [x, y]). Player
text is rendered from these by `affray.text`, never written by the systems.

Events are records: nothing changes one after it is logged. They are not `frozen`
dataclasses only because a frozen dataclass's `__init__` costs several times more, and
a blow makes one (measured: 2.6 us frozen against well under 1 us plain).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

Cell = tuple[int, int]

EVENT_TYPES: dict[str, type[Event]] = {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


@dataclass(slots=True)
class Event:
    """Base of every event: the pulse it happened on; `kind` names the class."""

    pulse: int
    kind: ClassVar[str] = "event"
    _names: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: pulse, kind, then the fields in declaration order."""
        out: dict[str, Any] = {"pulse": self.pulse, "kind": self.kind}
        for name in self._names:
            out[name] = _jsonable(getattr(self, name))
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Event:
        """Rebuild an event from `to_dict()` output (saves)."""
        cls = EVENT_TYPES[data["kind"]]
        values: dict[str, Any] = {}
        for name in ("pulse", *cls._names):
            value = data[name]
            values[name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)  # type: ignore[arg-type]


def event(kind: str):  # type: ignore[no-untyped-def]
    """Class decorator: name the kind, register it, fix the field order."""

    def register(cls: type[Event]) -> type[Event]:
        cls.kind = kind
        cls._names = tuple(f.name for f in fields(cls) if f.name != "pulse")
        EVENT_TYPES[kind] = cls
        return cls

    return register


@event("damage")
@dataclass(slots=True)
class Damage(Event):
    source: str | None
    target: str
    amount: int
    raw: int
    damage_type: str
    cause: str
    spell: str | None = None
    critical: bool = False
    saved: bool = False


@event("miss")
@dataclass(slots=True)
class Miss(Event):
    source: str
    target: str
    cause: str


@event("defended")
@dataclass(slots=True)
class Defended(Event):
    source: str
    target: str
    defence: str


@event("immune")
@dataclass(slots=True)
class Immune(Event):
    source: str | None
    target: str
    damage_type: str


@event("status")
@dataclass(slots=True)
class StatusChanged(Event):
    target: str
    status: str
    degree: int
    change: str


@event("stun")
@dataclass(slots=True)
class Stun(Event):
    target: str
    state: str


@event("lost_round")
@dataclass(slots=True)
class LostRound(Event):
    target: str
    why: str


@event("pushed")
@dataclass(slots=True)
class Pushed(Event):
    target: str
    from_: Cell
    to: Cell

    def to_dict(self) -> dict[str, Any]:
        return {"pulse": self.pulse, "kind": self.kind, "target": self.target,
                "from": list(self.from_), "to": list(self.to)}


@event("terrain")
@dataclass(slots=True)
class TerrainChanged(Event):
    cell: Cell
    before: str
    after: str


@event("fell_in")
@dataclass(slots=True)
class FellIn(Event):
    target: str
    cell: Cell


@event("fire")
@dataclass(slots=True)
class FireChanged(Event):
    cell: Cell
    change: str


@event("door_broken")
@dataclass(slots=True)
class DoorBroken(Event):
    cell: Cell
    trap_destroyed: bool


@event("chest_broken")
@dataclass(slots=True)
class ChestBroken(Event):
    cell: Cell
    item: str


@event("item_lost")
@dataclass(slots=True)
class ItemLost(Event):
    cell: Cell
    item: str
    count: int
    damage_type: str
    message: str


@event("gear_damaged")
@dataclass(slots=True)
class GearDamaged(Event):
    target: str
    item: str
    change: str


@event("death")
@dataclass(slots=True)
class Death(Event):
    target: str
    killer: str | None


@event("cast")
@dataclass(slots=True)
class Cast(Event):
    actor: str
    spell: str
    level: int
    via: str
    target: str | Cell


@event("refused")
@dataclass(slots=True)
class Refused(Event):
    actor: str
    action: str
    reason: str


@event("position")
@dataclass(slots=True)
class Position(Event):
    """A creature's position changed (stood up...): an addition to SCENARIO.md's kinds."""

    target: str
    before: str
    after: str


@event("moved")
@dataclass(slots=True)
class Moved(Event):
    """A creature stepped to a neighbouring cell (an addition to SCENARIO.md's kinds)."""

    target: str
    from_: Cell
    to: Cell

    def to_dict(self) -> dict[str, Any]:
        return {"pulse": self.pulse, "kind": self.kind, "target": self.target,
                "from": list(self.from_), "to": list(self.to)}


def _from_dict_with_from(cls: type[Event], data: dict[str, Any]) -> Event:
    return cls(pulse=data["pulse"], target=data["target"],  # type: ignore[call-arg]
               from_=tuple(data["from"]), to=tuple(data["to"]))


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild any event from its `to_dict()` form."""
    cls = EVENT_TYPES[data["kind"]]
    if "from" in data:
        return _from_dict_with_from(cls, data)
    return Event.from_dict(data)
