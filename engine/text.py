"""Player-facing text, rendered from events (R-ENG-4): the one place messages live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from affray.events import Event


def _cell(cell: Any) -> str:
    return f"[{cell[0]}, {cell[1]}]"


# A refusal's reason in words: the short codes the action step logs, as sentences.
_REASONS = {
    "occupied": "someone is already standing there",
    "blocked": "the way is blocked",
    "not adjacent": "that cell is not beside it",
    "held": "it is held fast and cannot step away",
    "stunned": "it is stunned",
    "target dead": "its target is already dead",
    "out of range": "its target is no longer beside it",
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
                 "corroded": "loses {n} to the acid eating at it"}


def _status_damage(e: dict[str, Any]) -> str:
    verb = _STATUS_VERBS.get(e["status"], "suffers {n} from " + str(e["status"]))
    return f"{e['target']} {verb.format(n=e['amount'])}."


# A defence that stopped a blow, as the defender doing it (R-DEF-*); a game's own defence
# reads "stops ...'s blow with <its name>".
_DEFENCES = {
    "dodge": "{t} dodges {s}'s blow.",
    "parry": "{t} parries {s}'s blow.",
    "shield_block": "{t} blocks {s}'s blow with its shield.",
    "hand_block": "{t} blocks {s}'s blow with its hands.",
    "cross_block": "{t} blocks {s}'s blow with crossed weapons.",
    "blink": "{t} blinks out of the way of {s}'s blow.",
    "bat_swarm": "{s}'s blow is lost in the bats around {t}.",
}
_OTHER_DEFENCE = "{t} stops {s}'s blow with {d}."


def _damage_text(e: dict[str, Any]) -> str:
    """ "mage's spark hits orc for 7 through the water (saved)."; a caster caught by its
    own cast reads "mage is hit by its own spark ..." rather than naming itself twice."""
    what = _spell(e["spell"]) or e["damage_type"]
    if e["source"] is not None and e["source"] == e["target"]:
        text = f"{e['target']} is hit by its own {what} for {e['amount']}"
    else:
        text = f"{_name(e['source'])}'s {what} hits {e['target']} for {e['amount']}"
    return (text
            + (" through the water" if e["cause"] == "water" else
               " (arc)" if e["cause"] == "arc" else "")
            + (" (critical)" if e["critical"] else "")
            + (" (saved)" if e["saved"] else "") + ".")


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
    "chest_broken": lambda e: (f"The {e['item'].replace('_', ' ')} at {_cell(e['cell'])} "
                               "bursts open."),
    "item_lost": lambda e: e["message"],
    "gear_damaged": lambda e: (f"{e['target']}'s {_spell(e['item'])} is eaten away."
                               if e["change"] == "destroyed"
                               else f"{e['target']}'s {_spell(e['item'])} is damaged by "
                                    f"acid."),
    "death": lambda e: (f"{e['target']} dies." if not e["killer"]
                        else f"{e['target']} dies by its own hand." if e["killer"] == e["target"]
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


def render_log(events: list[Event]) -> list[str]:
    """Each event as "[pulse] text", in log order."""
    return [f"[{event.pulse:>4}] {render_event(event)}" for event in events]
