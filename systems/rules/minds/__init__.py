"""Minds: creatures that act on their own (SPEC section 16, R-MIND-1..7).

A mind chooses the next action of a free creature (alive, standing or fighting, not
stunned, no wait, nothing queued), as the source's NPC update does pulse by pulse. The
Pulse system's action step runs the queued actions and the minds together, in spawn
order, each seeing the world as the creatures before it left it (R-MIND-1): the action
a mind returns is checked as `World.submit` checks one and carried out at once.

A mind is a function `mind(view, actor) -> action | None` (`view`: a read-only
`MindView` of what the actor sees; `actor`: its id). The built-in one (`traits.decide`)
reads the traits of a content mind (`content/minds.toml`); a game registers its own
with `register_mind(name, fn)`, which then wins over a content mind of the same name. A
creature names its mind (`mind = "pack"`, or its template's); a save keeps the name and
the mind's memory (`Mind`), and a registered mind must be registered again before the
load (a SaveError names it otherwise).

Time (R-MIND-7): a mind that found nothing to do is not asked again until something
happens or a time it named comes (`Mind.wake`: the next round's wimpy check, the next
cast): `next_pulse` tells `World.run` the first pulse a mind may act, so idle pulses are
still jumped and a world whose minds have nothing left to do settles. "Something
happens" is the event log growing, or a game adding a creature (`World.add_creature`
logs no event: it calls `stir`). The `settled` event is no happening (`after_settled`).
The built-in mind is not even asked while nothing changed within its reach since its
last "nothing" (`rest.py`): the same answer, at no cost, in a sleeping dungeon.
Minds draw only from the world's generator, in spawn order (R-MIND-7).

Reads every minded creature's sheet and `Mind`, `World.lag`, `World.events` (its
length), the grid (sight, paths), `World.stirs`; writes `Mind` (memory, idle marks),
`World.stirs` (rest records) and, through the actions it runs, whatever those write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from affray.core.errors import UsageError
from affray.systems.rules.minds import crowd, march, rest
from affray.systems.rules.minds.traits import decide

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

MindFunction = Callable[[Any, str], Any]

_REGISTERED: dict[str, MindFunction] = {}
ABLE_POSITIONS = ("standing", "fighting")


def register_mind(name: str, mind: MindFunction) -> None:
    """Register a game's own mind under `name` (process-wide: minds are code, like
    hooks). `mind(view, actor_id)` returns an action (Attack, Cast, Move, Flee) or None.
    Register it before loading a scenario or save that names it."""
    if not isinstance(name, str) or not name or not name.isprintable():
        raise UsageError(f"register_mind: name must be a non-empty printable str, got "
                         f"{name!r}")
    if not callable(mind):
        raise UsageError(f"register_mind: the mind {name!r} must be callable, got {mind!r}")
    _REGISTERED[name] = mind


def unregister_mind(name: str) -> None:
    """Forget a registered mind (nothing happens if it is not registered)."""
    _REGISTERED.pop(name, None)


def registered_minds() -> Mapping[str, MindFunction]:
    """The minds games registered, by name (read-only)."""
    return MappingProxyType(_REGISTERED)


def mind_function(world: World, name: str) -> MindFunction | None:
    """The function a mind name runs: a registered one, else the built-in traits for a
    content mind; None for a name neither knows (a save's, not registered again)."""
    registered = _REGISTERED.get(name)
    if registered is not None:
        return registered
    if name in world.content.minds:
        return decide
    return None


def remember(world: World, victim: Sheet, attacker: Sheet) -> None:
    """R-ACT-1: attacked from afar, a creature with a mind takes its attacker as its
    target (when it is after no one) and closes in on the cell the attack came from."""
    mind = victim.mind
    if mind.name is None or mind.target is not None:
        return
    if attacker.creature.side == victim.creature.side:
        return  # R-SIDE-1: never its own side (a fireball of its own mage)
    mind.target = attacker.id
    mind.last_seen = (attacker.position.x, attacker.position.y)


def able(world: World, sheet: Sheet) -> bool:
    """Can act at all now (not the wait or the queue: the caller checks those)."""
    return (sheet.vitals.alive and sheet.vitals.position in ABLE_POSITIONS
            and not sheet.has("stun") and not sheet.has("paralysis"))


def act(world: World) -> None:
    """The Pulse system's action step: queued actions and minds, in spawn order; each
    mind is looked at when its turn comes, so it sees what the creatures before it did
    this pulse (R-MIND-1)."""
    from affray.systems.rules.actions import run_queued

    minded = world.minded
    if not minded:
        if world.ready:
            run_queued(world, sorted(world.ready, key=_spawn_of(world)))
        return
    wait = world.lag.wait
    sheets = world.sheets
    pulse = world.pulse
    events = world.events
    resting = rest.stirs_of(world) if rest.ENABLED else None
    # The log's length, read again after each creature that may have logged something
    # (a queued action, a mind asked): skipping and resting log nothing, and an army
    # has thousands of those a pulse.
    now = len(events)
    for entity in free_to_act(world):
        sheet = sheets[entity]
        if entity in world.ready:
            run_queued(world, (entity,))
            now = len(events)
            continue
        if (wait[sheet.creature.slot] > 0 or not sheet.vitals.alive
                or _idle(sheet, now, pulse)):
            continue  # waiting (a creature before it may have changed that), or idle
        quiet = resting is not None and nothing_near(world, sheet)  # (rest.ENABLED too)
        mind = sheet.mind
        if quiet and mind.wake < 0:
            # what `think` does with the built-in mind's None (and what a rest that holds
            # does when no wake is set): `_rest(world, sheet, -1)`
            mind.idle_since, mind.wake = now, -1
            continue
        if resting is not None and _unwoken(sheet, pulse) and rest.still(world, sheet):
            mind.idle_since = now  # what asking would do (rest.py)
            continue
        if quiet:
            mind.idle_since, mind.wake = now, -1  # think's rest on the built-in mind's None
            continue
        think(world, sheet)
        now = len(events)


def free_to_act(world: World) -> list[int]:
    """The creatures with a queued action or a mind and no wait, in spawn order: read
    from the roster's columns (a row is a creature's lag slot, and rows come in spawn
    order, roster.py), not creature by creature (an army has 10,000 minds a pulse to
    look at, and a sixth of them free)."""
    roster = world.roster
    minded = world.minded
    rows = roster.rows_of(np.fromiter(minded, np.int64, len(minded)))
    rows = rows[world.lag.wait[rows] == 0]
    if world.ready:
        ready = roster.rows_of(np.fromiter(world.ready, np.int64, len(world.ready)))
        rows = np.union1d(rows, ready)  # (sorted)
    else:
        rows.sort()
    return roster.entity[rows].tolist()  # type: ignore[no-any-return]


def stir(world: World, newest: int | None = None) -> None:
    """Something happened that logged no event (a game added a creature): every resting
    mind is asked again at its next free pulse, as if the log had grown. Before the
    first pulse no mind has rested yet (a scenario's build adds its creatures then).
    `newest`, a creature added since that is among the minded already, is left as it
    is: a batch of creatures (`World.add_creatures`) stirs once, after the last, what
    one stir per creature, each before that creature's mind joins, would have."""
    rest.forget_all(world)
    if world.pulse == 0:
        return
    sheets = world.sheets
    for entity in world.minded:
        if entity != newest:
            sheets[entity].mind.idle_since = -1


def after_settled(world: World) -> None:
    """`World.run(until="settled")` just logged `settled`: a mind that rested before it
    rests on (nothing happened), so the world stays settled and `next_pulse` stays None."""
    now = len(world.events)
    sheets = world.sheets
    for entity in world.minded:
        mind = sheets[entity].mind
        if mind.idle_since == now - 1:
            mind.idle_since = now


def _spawn_of(world: World) -> Callable[[int], int]:
    sheets = world.sheets
    return lambda entity: sheets[entity].spawn.number


def _idle(sheet: Sheet, now: int, pulse: int) -> bool:
    return sheet.mind.idle_since == now and _unwoken(sheet, pulse)


def _unwoken(sheet: Sheet, pulse: int) -> bool:
    """No time it named has come (`Mind.wake`)."""
    wake = sheet.mind.wake
    return wake < 0 or wake > pulse


def nothing_near(world: World, sheet: Sheet) -> bool:
    """Whether the built-in mind is sure to answer "nothing" without being asked: it
    is after no one and not fleeing, and no creature of another side stands within
    its sight + 1 (the roster's block counts). Read in `traits.decide`'s order, every
    trait then finds nothing and draws nothing: wimpy sees no foe beside it, a caster no
    foe in sight, a fighter does not walk, keep range has no foe, aggressive no foe,
    assist no fight of its side it could see (a fight it sees has a creature of another
    side in it, one it sees or one beside an ally it sees, R-ACT-3), and its memory is
    empty. So what `think` would do is done: no view, no field of view (a soldier in
    the rear of a marching army). The side's look (crowd.py) answers it when it has
    one, else the block counts, which may send to `think` one that had nothing near."""
    mind = sheet.mind
    if mind.target is not None or mind.fleeing or mind.name in _REGISTERED:
        return False
    traits = world.content.minds.get(mind.name)  # type: ignore[arg-type]
    if traits is None:
        return False
    position = sheet.position
    return not crowd.others_near(world, sheet.creature.side, (position.x, position.y),
                           traits.sight + 1)


def think(world: World, sheet: Sheet) -> None:
    """Ask one free creature's mind and carry out what it chose (R-MIND-1)."""
    from affray.systems.rules.minds.view import MindView

    mind = sheet.mind
    if not able(world, sheet):
        _rest(world, sheet, -1)
        return
    function = mind_function(world, mind.name)  # type: ignore[arg-type]
    if function is None:
        _rest(world, sheet, -1)
        return
    look: object = march.UNASKED
    if function is decide and march.ENABLED:  # the march case, without a view (march.py)
        look = march.advance(world, sheet, world.content.minds[mind.name])  # type: ignore[index]
        if look is march.DONE:
            return
    view = MindView(world, sheet, side_look=look)
    mind.wake = -1
    before = rest.own_state(world, sheet) if function is decide else None
    action = function(view, sheet.id)
    if action is None:
        _rest(world, sheet, mind.wake)
        if before is not None and world.stirs is not None:
            rest.record(world, sheet, before, view.extent, view.look_reads())
        return
    if world.stirs is not None:
        world.stirs.rests.pop(sheet.entity, None)
    mind.idle_since = -1
    carry_out(world, sheet, action)


def _rest(world: World, sheet: Sheet, wake: int) -> None:
    """Nothing to do: not asked again before the log grows (or `stir`) or `wake`
    comes."""
    sheet.mind.idle_since = len(world.events)
    sheet.mind.wake = wake


def carry_out(world: World, sheet: Sheet, action: Any) -> None:
    """Check a mind's action as `submit` does and run it now; a bad one is a `refused`
    event (a game's mind asked for something the rules do not allow)."""
    from affray.core.actions import Action, action_name
    from affray.core.errors import ActionError
    from affray.core.events import Refused
    from affray.core.validate import check_action
    from affray.systems.rules.actions import run_action

    if not isinstance(action, Action) or action.actor != sheet.id:
        world.emit(Refused(world.pulse, sheet.id, type(action).__name__.lower(),
                           "a mind must return an action of its own creature, or None"))
        _rest(world, sheet, -1)
        return
    try:
        check_action(world, action)
    except ActionError as error:
        world.emit(Refused(world.pulse, sheet.id, action_name(action), str(error)))
        _rest(world, sheet, -1)
        return
    run_action(world, sheet, action)


def next_pulse(world: World) -> int | None:
    """The first pulse from now at which a mind may act (module docstring), or None."""
    minded = world.minded
    if not minded:
        return None
    now = world.pulse
    wait = world.lag.wait
    sheets = world.sheets
    length = len(world.events)
    best: int | None = None
    for entity in minded:
        sheet = sheets[entity]
        if entity in world.ready:
            continue  # its queued action comes first (the Pulse system's own pulse)
        lag = int(wait[sheet.creature.slot])
        free = now + max(lag - 1, 0)  # as a queued action (pulse.next_action_pulse)
        mind = sheet.mind
        if mind.idle_since == length:
            if mind.wake < 0:
                continue
            free = max(free, mind.wake)
        if best is None or free < best:
            best = free
            if best <= now:
                return now
    return best


def rebuild_minded(world: World) -> None:
    """`World.minded`: the living creatures with a mind (after a load)."""
    world.minded = {entity for entity, sheet in world.sheets.items()
                    if sheet.mind.name is not None and sheet.vitals.alive}
