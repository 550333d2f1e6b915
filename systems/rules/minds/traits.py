"""The built-in mind: a content mind's traits, read in this order (SPEC section 16).

1. Wimpy (R-MIND-5): below `wimpy` percent of its maximum hit points, it flees when a foe
   is beside it: a fighter rolls `wimpy_chance` at each round's check (a round pulse,
   before the blows: the source checks at the start of the mob's round); once fleeing,
   it steps away every free pulse while a foe is beside it, to the neighbouring free cell
   farthest from its foes by walking distance. One that cannot step fights on. Below the
   threshold it starts no fight of its own (the source's wimpy mobs only attack sleepers).
2. Caster (R-MIND-6): with a foe in sight, at most once every `cast_every` pulses, it
   casts with `cast_chance` percent: the spell of its list and the target (a foe it
   sees) whose preview, water included, strikes the most foes, never one that strikes as
   many allies as foes (itself included); ties to the earlier spell, then the foe that
   came first into the world.
3. A fighter does not walk (R-MIND-3); it fights on.
4. Keep range: closer than `keep_range` cells (Chebyshev) to its nearest foe, it steps
   away; at the range, it holds.
5. Aggressive (R-MIND-3): the nearest foe it sees by walking distance (ties to spawn
   order); else assist (R-MIND-4): the nearest foe in a fight of its side that it sees;
   else its memory: the foe that attacked it from afar (R-ACT-1) or the one it was after,
   followed to where it was last seen and forgotten there. Beside its target it attacks
   (`fight` why aggressive or assist); else it steps along a shortest path.

A decision that draws nothing and returns None lets the creature rest until something
happens (`minds.think`); one that waits for a time says when in `view.memory.wake`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.actions import Attack, Cast, Flee, Move

if TYPE_CHECKING:
    from affray.core.actions import AnyAction
    from affray.data.defs import MindDef
    from affray.systems.rules.minds.view import MindView, Seen


def decide(view: MindView, actor: str) -> AnyAction | None:
    """The built-in mind (module docstring)."""
    traits = view.traits
    if traits is None:
        return None
    me = view.me
    memory = view.memory
    if traits.wimpy and me.hp * 100 < traits.wimpy * me.max_hp:
        return _wimpy(view, actor, traits)
    memory.fleeing = False
    cast = _cast(view, actor, traits)
    if cast is not None:
        return cast
    if me.fighting is not None:
        return None  # R-MIND-3: a fighter does not walk
    if not view.can_move():
        return _attack_beside(view, actor, traits)
    if traits.keep_range and view.sees_a_foe():
        keep = _keep_range(view, actor, traits)
        if keep is not False:
            return keep  # type: ignore[return-value]
    return _pursue(view, actor, traits)


def _wimpy(view: MindView, actor: str, traits: MindDef) -> AnyAction | None:
    memory = view.memory
    beside = view.foes_beside()
    if not beside:
        memory.fleeing = False
        return None
    if not memory.fleeing:
        if view.me.fighting is None:
            return None
        if not view.round_pulse:
            memory.wake = view.next_round
            return None
        if not view.chance(traits.wimpy_chance):
            return None
    cell = view.away_cell() if view.can_move() else None
    if cell is None:
        memory.fleeing = False
        return None  # it cannot step anywhere: it fights on
    memory.fleeing = True
    memory.target = None
    return Flee(actor=actor, to=cell)


def _cast(view: MindView, actor: str, traits: MindDef) -> Cast | None:
    memory = view.memory
    if not view.spells or not view.sees_a_foe():
        return None
    if view.pulse < memory.next_cast:
        memory.wake = memory.next_cast
        return None
    memory.next_cast = view.pulse + traits.cast_every
    memory.wake = memory.next_cast  # a foe in sight: it tries again then, whatever else
    if not view.chance(traits.cast_chance):
        return None
    choice = best_cast(view)
    if choice is None:
        return None
    spell, target = choice
    return Cast(actor=actor, spell=spell, target=target)


def best_cast(view: MindView) -> tuple[str, str] | None:
    """R-MIND-6: the (spell, foe) whose preview strikes the most foes, with fewer allies
    than foes struck (itself included); ties: the earlier spell, then the earlier foe.

    Only foes within the spell's reach are previewed (a preview of one farther is
    refused anyway), and a spell that can strike one creature only (a bolt, ray or
    touch that no water carries: not lightning) stops at its first foe it may strike:
    no later candidate can do better or come earlier in the order. A ray or bolt whose
    line meets one of its own side first is passed over unpreviewed (that ally is what
    it would strike: `MindView.ally_first_on_line`)."""
    side = view.me.side
    content = view.content
    best: tuple[int, int, int, str, str] | None = None
    for index, spell in enumerate(view.spells):
        if not view.can_cast(spell):
            continue
        definition = content.spells[spell]
        reach_cells = 1 if definition.shape == "touch" else definition.range
        single = (definition.shape in ("bolt", "ray", "touch")
                  and content.damage_type(definition.type) != "lightning")
        if single and best is not None:
            continue  # it strikes one at most: the earlier spell's one foe stands
        for foe in view.foes_within(reach_cells):
            if single and definition.shape != "touch" and view.ally_first_on_line(foe):
                continue  # the bolt would strike that ally: no foe struck (no preview)
            reach = view.preview(spell, foe.id)
            if reach is None:
                continue
            struck = list(dict.fromkeys([*reach["struck"], *reach["water"]]))
            sides = view.sides_of(struck)
            foes = sum(1 for s in sides if s != side)
            allies = len(sides) - foes
            if foes == 0 or allies >= foes:
                continue
            key = (-foes, index, foe.spawn, spell, foe.id)
            if best is None or key < best:
                best = key
            if single:
                break  # one foe at most: the first that it may strike is the best
    return None if best is None else (best[3], best[4])


def _keep_range(view: MindView, actor: str, traits: MindDef) -> AnyAction | bool | None:
    """Closer than keep_range to its nearest foe: a step away; at the range: hold (None).
    Farther: False, so its other traits decide."""
    nearest = view.nearest_foe_cells()
    assert nearest is not None  # it sees a foe (decide's guard)
    if nearest < traits.keep_range:
        cell = view.away_cell()
        if cell is not None:
            return Move(actor=actor, to=cell)
        return _attack_beside(view, actor, traits)  # cornered: it fights
    if nearest == traits.keep_range:
        return None
    return False


def _attack_beside(view: MindView, actor: str, traits: MindDef) -> Attack | None:
    """Held, or cornered: a foe beside it that its traits would go for if it could walk,
    in `_pursue`'s order: any foe when aggressive (R-MIND-3), a foe in a fight of its
    side when it assists (R-MIND-4), the foe it is after (its attacker, R-ACT-1). Being
    held makes no guard go for a foe that fights no one."""
    candidates: list[tuple[tuple[Seen, ...], str]] = []
    if traits.aggressive:
        candidates.append((view.foes, "aggressive"))
    if traits.assist:
        candidates.append((view.fights_of_allies(), "assist"))
    remembered = view.creature(view.memory.target) if view.memory.target else None
    if remembered is not None and remembered.side != view.me.side:
        candidates.append(((remembered,), "attacked"))
    for foes, why in candidates:
        for foe in foes:
            if view.is_beside(foe):
                return Attack(actor=actor, target=foe.id, why=why)  # type: ignore[arg-type]
    return None


def _pursue(view: MindView, actor: str, traits: MindDef) -> AnyAction | None:
    """R-MIND-3, R-MIND-4 and memory: of the foes it goes for, the nearest by walking
    distance, ties to the earlier spawn, is its target: attacked when beside it, else
    stepped toward (`MindView.step_toward`), and remembered with its cell."""
    memory = view.memory
    why = "aggressive"
    target = view.nearest_foe() if traits.aggressive else None
    if target is None and traits.assist:
        target, why = view.nearest(view.fights_of_allies()), "assist"
    if target is None and memory.target is not None:
        remembered = view.creature(memory.target)
        if remembered is not None and remembered.side != view.me.side:
            # its attacker from afar (R-ACT-1), or a foe it chased
            target, why = remembered, "aggressive" if traits.aggressive else "attacked"
    if target is not None:
        memory.target, memory.last_seen = target.id, target.at
        if view.is_beside(target):
            return Attack(actor=actor, target=target.id, why=why)  # type: ignore[arg-type]
        step = view.step_toward(target)
        return Move(actor=actor, to=step) if step is not None else None
    if memory.target is not None and memory.last_seen is not None:
        # R-MIND-3: a target out of sight is followed to where it was last seen.
        step = view.step_toward(memory.last_seen)
        if step is not None:
            return Move(actor=actor, to=step)
        left = view.distance(memory.last_seen)
        taken = view.occupied(memory.last_seen)
        if left is None or left == 0 or (taken and left <= 1):
            memory.target = memory.last_seen = None  # there, or no way there: forgotten
    return None  # (a crowd in the way: it waits, remembering)
