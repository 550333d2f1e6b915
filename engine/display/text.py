"""Player-facing text, rendered from events (R-ENG-4): the one place messages live.

Creatures are named by id and, where a pronoun is needed, are "they" ("their shield",
"their own spark"): the engine does not know who is a person and who a beast, and
"its" is wrong for a person while "their" is right for anyone (docs/decisions.md).
A log is read as lines (`render_events`, `render_log`): a cast's cell effects of one kind
(the water it froze, the fires it put out, the doors it broke) are one line, not one a
cell; `render_event` still gives any one event its own line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from affray.core.events import Event


def _cell(cell: Any) -> str:
    return f"[{cell[0]}, {cell[1]}]"


# A refusal's reason in words: the short codes the action step logs, as sentences.
_REASONS = {
    "occupied": "someone is already standing there",
    "blocked": "the way is blocked",
    "not adjacent": "that cell is not beside them",
    "held": "they are held fast and cannot step away",
    "locked": "the door is locked",
    "no door": "there is no door there",
    "not shut": "the door is not shut",
    "not open": "the door is not open",
    "doorway taken": "someone is standing in the doorway",
    "doorway cluttered": "something lies in the doorway",
    "stunned": "they are stunned",
    "target dead": "their target is already dead",
    "out of range": "their target is no longer beside them",
}


def _reason(event: dict[str, Any]) -> str:
    """The reason without the action's name said twice ("attack: attack: ...")."""
    reason = str(event["reason"]).removeprefix(f"{event['action']}: ")
    return _REASONS.get(reason, reason)


# R-ENG-4: what a player reads when a position changes (the source's update_pos ladder).
_POSITION_WORDS = {
    "stunned": "is stunned, but will probably recover",
    "incap": "is incapacitated and will slowly die if not aided",
    "mortal": "is mortally wounded and will die soon if not aided",
    "sleeping": "falls asleep",
    "resting": "rests",
    "sitting": "sits down",
}


def _position_text(e: dict[str, Any]) -> str:
    who, before, after = e["target"], e["before"], e["after"]
    if after in ("standing", "fighting"):
        if before == "sleeping":
            return f"{who} wakes up and fights." if after == "fighting" else f"{who} wakes up."
        return f"{who} stands up."
    return f"{who} {_POSITION_WORDS.get(after, 'is now ' + after)}."


def _name(who: Any) -> str:
    return "Someone" if who is None else str(who)


def _spell(name: Any) -> str:
    return str(name).replace("_", " ") if name else ""


# A status tick in words: "kobold burns for 2.", "kobold suffers 1 from the poison."
_STATUS_VERBS = {"burning": "burns for {n}", "poisoned": "suffers {n} from the poison",
                 "corroded": "loses {n} to the acid eating at them"}


def _status_damage(e: dict[str, Any]) -> str:
    verb = _STATUS_VERBS.get(e["status"], "suffers {n} from " + str(e["status"]))
    return f"{e['target']} {verb.format(n=e['amount'])}."


# A defence that stopped a blow, as the defender doing it (R-DEF-*); a game's own defence
# reads "stops ...'s blow with <the defence's name>".
_DEFENCES = {
    "dodge": "{t} dodges {s}'s blow.",
    "parry": "{t} parries {s}'s blow.",
    "shield_block": "{t} blocks {s}'s blow with their shield.",
    "hand_block": "{t} blocks {s}'s blow with their hands.",
    "cross_block": "{t} blocks {s}'s blow with crossed weapons.",
    "blink": "{t} blinks out of the way of {s}'s blow.",
    "bat_swarm": "{s}'s blow is lost in the bats around {t}.",
}
_OTHER_DEFENCE = "{t} stops {s}'s blow with {d}."


# Causes whose damage is a blow or a cast striking: "mage's spark hits orc for 7".
# Any other cause (World.damage's "script" and "raw", a game's own) is not a blow and
# never reads as one.
_STRIKE_CAUSES = frozenset({"melee", "spell", "arc", "water"})


def _damage_text(e: dict[str, Any]) -> str:
    """ "mage's spark hits orc for 7 through the water (saved)."; a caster caught by their
    own cast reads "mage is hit by their own spark ..." rather than naming them twice."""
    if e["cause"] not in _STRIKE_CAUSES:
        return _scripted_damage(e)
    what = _spell(e["spell"]) or e["damage_type"]
    if e["source"] is not None and e["source"] == e["target"]:
        text = f"{e['target']} is hit by their own {what} for {e['amount']}"
    else:
        text = f"{_name(e['source'])}'s {what} hits {e['target']} for {e['amount']}"
    return (text
            + (" through the water" if e["cause"] == "water" else
               " (arc)" if e["cause"] == "arc" else "")
            + _flags(e) + ".")


def _flags(e: dict[str, Any]) -> str:
    return (" (critical)" if e["critical"] else "") + (" (saved)" if e["saved"] else "")


def _scripted_damage(e: dict[str, Any]) -> str:
    """Damage dealt by a script or a game (`World.damage`, R-DMG-1), not a blow:
    "orc takes 5 fire damage from mage.", and for raw damage, which no protection
    cuts, "orc loses 5 hit points to fire from mage." """
    kind = "" if e["damage_type"] in (None, "none") else str(e["damage_type"])
    source, spell = e["source"], _spell(e["spell"])
    if source is not None and source == e["target"]:
        origin = f" from their own {spell}" if spell else " by their own hand"
    elif source is not None:
        origin = f" from {source}'s {spell}" if spell else f" from {source}"
    else:
        origin = f" from the {spell}" if spell else ""
    if e["cause"] == "raw":
        text = f"{e['target']} loses {e['amount']} hit points{' to ' + kind if kind else ''}"
    else:
        text = f"{e['target']} takes {e['amount']} {kind + ' ' if kind else ''}damage"
    text += origin
    return text + _flags(e) + "."


def _fight_text(e: dict[str, Any]) -> str:
    """A fight begun or ended (R-ACT-1..3), by its reason."""
    who, whom, why = e["source"], e["target"], e["why"]
    if e["change"] == "started":
        return {"attacked": f"{who} fights back against {whom}.",
                "assist": f"{who} joins the fight against {whom}."}.get(
                    why, f"{who} attacks {whom}.")
    return {"foe_died": f"{who} stops fighting: {whom} is dead.",
            "apart": f"{who} and {whom} are no longer side by side; {who} stops fighting.",
            "fled": f"{who} and {whom} part as one flees."}.get(
                why, f"{who} stops fighting {whom}.")


_TEMPLATES: dict[str, Callable[[dict[str, Any]], str]] = {
    "damage": lambda e: _status_damage(e) if e.get("status") else _damage_text(e),
    "miss": lambda e: f"{e['source']} misses {e['target']}.",
    "defended": lambda e: _DEFENCES.get(e["defence"], _OTHER_DEFENCE).format(
        t=e["target"], s=e["source"], d=str(e["defence"]).replace("_", " ")),
    "immune": lambda e: (f"{e['target']} is unharmed by {e['source']}'s {e['damage_type']}."
                         if e["source"] else
                         f"{e['target']} is unharmed by the {e['damage_type']}."),
    "status": lambda e: (f"{e['target']} is no longer {e['status']}." if e["change"] == "ended"
                         else f"{e['target']} is {e['status']} ({e['degree']})."),
    "stun": lambda e: (f"{e['target']} shakes off the stun." if e["state"] == "none"
                       else f"{e['target']} is stunned." if e["state"] == "stun"
                       else f"{e['target']} is left dazed (weak stun)."),
    "lost_round": lambda e: f"{e['target']} loses the round ({e['why'].replace('_', ' ')}).",
    "pushed": lambda e: f"{e['target']} is knocked from {_cell(e['from'])} to {_cell(e['to'])}.",
    "terrain": lambda e: f"The {e['before']} at {_cell(e['cell'])} turns to {e['after']}.",
    "fell_in": lambda e: f"{e['target']} falls into the water at {_cell(e['cell'])}.",
    "fire": lambda e: {"lit": "A fire flares up", "out": "The fire goes out",
                       "expired": "The fire dies down"}[e["change"]] + f" at {_cell(e['cell'])}.",
    "door_broken": lambda e: (f"The door at {_cell(e['cell'])} is blasted apart"
                              + (", and its trap with it." if e["trap_destroyed"] else ".")),
    "door": lambda e: (f"{_name(e['cause'])} "
                       f"{ {'opened': 'opens', 'closed': 'closes'}.get(e['change'], e['change'])}"
                       f" the door at {_cell(e['cell'])}"
                       + (", and its trap goes off." if e["trap_sprung"] else ".")),
    "chest_broken": lambda e: (f"The {e['item'].replace('_', ' ')} at {_cell(e['cell'])} "
                               "bursts open."),
    "item_lost": lambda e: e["message"],
    "gear_damaged": lambda e: (f"{e['target']}'s {_spell(e['item'])} is eaten away."
                               if e["change"] == "destroyed"
                               else f"{e['target']}'s {_spell(e['item'])} is damaged by "
                                    f"acid."),
    "death": lambda e: (f"{e['target']} dies." if not e["killer"]
                        else f"{e['target']} dies by their own hand." if e["killer"] == e["target"]
                        else f"{e['target']} is killed by {e['killer']}."),
    "cast": lambda e: (f"{e['actor']} casts {e['spell'].replace('_', ' ')} at "
                       f"{e['target'] if isinstance(e['target'], str) else _cell(e['target'])}."),
    "cast_failed": lambda e: (f"{e['actor']}'s {_spell(e['spell'])} fizzles: "
                              f"{e['reason']}."),
    "dispelled": lambda e: (f"{e['target']}'s {_spell(e['affect'])} is dispelled."
                            if e["removed"] else
                            f"{e['target']}'s {_spell(e['affect'])} resists the dispel and "
                            f"weakens."),
    "refused": lambda e: f"{e['actor']} cannot {e['action']}: {_reason(e)}.",
    "moved": lambda e: f"{e['target']} steps to {_cell(e['to'])}.",
    "fight": lambda e: _fight_text(e),
    "fled": lambda e: f"{e['target']} flees to {_cell(e['to'])}.",
    "position": lambda e: _position_text(e),
    "too_tired": lambda e: f"{e['source']} is too tired to strike {e['target']}.",
    "settled": lambda e: "All is still: nothing is left to happen.",
}


def render_event(event: Event | dict[str, Any]) -> str:
    """One line of player text for an event (or its dict form)."""
    data = event if isinstance(event, dict) else event.to_dict()
    template = _TEMPLATES.get(data["kind"])
    if template is None:
        return f"({data['kind']})"
    return template(data)


# -- a cast's cell effects, one line per kind -------------------------------------------
def _fold_key(e: dict[str, Any]) -> tuple[Any, ...] | None:
    """Events that fold into one line share this key: the same pulse, the same cause
    (the caster, SCENARIO.md's additions), the same kind of cell effect."""
    kind = e["kind"]
    if kind == "terrain":
        return (e["pulse"], kind, e.get("cause"), e["before"], e["after"])
    if kind == "fire":
        return (e["pulse"], kind, e.get("cause"), e["change"])
    if kind == "door_broken":
        return (e["pulse"], kind, e.get("cause"))
    return None


def _cells(cells: list[Any]) -> str:
    """"[1, 2], [3, 4] and [5, 6]"."""
    named = [_cell(cell) for cell in cells]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


_FIRE_FOLDS = {"lit": "Fires flare up on {n} cells.", "out": "The fires go out on {n} cells.",
               "expired": "The fires die down on {n} cells."}


def _folded_text(group: list[dict[str, Any]]) -> str:
    """One line for two or more cell effects of one kind: "The water freezes over on 7
    cells.", "The fires go out on 2 cells.", "The doors at [5, 1] and [6, 1] are blasted
    apart, and the trap at [6, 1] with them." """
    first, count = group[0], len(group)
    if first["kind"] == "terrain":
        before, after = first["before"], first["after"]
        if (before, after) == ("water", "ice"):
            return f"The water freezes over on {count} cells."
        return f"The {before} turns to {after} on {count} cells."
    if first["kind"] == "fire":
        return _FIRE_FOLDS.get(first["change"], "The fires change on {n} cells.").format(n=count)
    trapped = [e["cell"] for e in group if e["trap_destroyed"]]
    traps = ("" if not trapped else
             f", and the trap at {_cells(trapped)} with them" if len(trapped) == 1 else
             f", and the traps at {_cells(trapped)} with them")
    return f"The doors at {_cells([e['cell'] for e in group])} are blasted apart{traps}."


def render_events(events: Iterable[Event | dict[str, Any]]) -> list[str | None]:
    """Each event's line of player text, in log order; None for an event folded into
    the line of an earlier one: a cast's cell effects of one kind make one line, where
    the first of them stood ("The water freezes over on 7 cells.", not seven lines).
    Every other event has its own line, as `render_event` gives it."""
    data = [event if isinstance(event, dict) else event.to_dict() for event in events]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, event in enumerate(data):
        key = _fold_key(event)
        if key is not None:
            groups.setdefault(key, []).append(index)
    lines: list[str | None] = []
    for index, event in enumerate(data):
        key = _fold_key(event)
        members = groups[key] if key is not None else [index]
        if len(members) == 1:
            lines.append(render_event(event))
        elif members[0] == index:
            lines.append(_folded_text([data[i] for i in members]))
        else:
            lines.append(None)
    return lines


def render_log(events: Iterable[Event]) -> list[str]:
    """The log as a player reads it, "[pulse] text" a line, in log order (a cast's cell
    effects of one kind folded into one line: `render_events`)."""
    events = list(events)
    return [f"[{event.pulse:>4}] {line}"
            for event, line in zip(events, render_events(events), strict=True)
            if line is not None]
