"""Melee: combat rounds every 12 pulses (R-TIME-2, R-TIME-3).

Reads the World's `fighting` set, `sheets` (Vitals, Combat, Affects, Skills, Position of
each fighter and its target), `lag`, `rng` and `rules` (blows, hooks); writes Vitals,
Combat and Affects through the blow pipeline and the stun rules, and `fighting`. A round
big enough for `volley.wanted` (`vectorise`, `fight.vectorise_min_fighters`) is handed
whole to `volley.volley_round`, which also keeps `volley_cache`; a fight ended here with
no event (its target gone) marks the fighter in `volley_cache` for reading again.

On the pulse a round falls due (pulse divisible by the round length), the fighters are
snapshot in spawn order; each living one gets one round, in the source's order
(source_notes section 3, `multi_hit` then the round's end):

1. asleep or worse, no blows; else its stun check (R-STUN-2): a stunned or weak-stunned
   fighter loses its blows (the check turns stun into weak stun, removes weak stun);
2. else it stands up if prone (R-STUN-5, R-LAG-3), then deals its blows: one, a quick
   creature's extra one, then each attack skill rolled just before its own blow, so a
   weak stun taken during the round halves the rolls still to come (R-STUN-6);
3. its on-fight hooks (its own, then its worn items'): after a lost round too, and after
   a blow that killed its target (R-TIME-3);
4. its target, if alive and prone, tries to stand up (the source's
   stand_up_after_round): a stunned target never does, a weak-stunned one half the time
   (R-STUN-5).

A creature that died earlier in the round is skipped; a death inside a blow or a hook
ends that fighter's round (R-DMG-2), except for the hooks of a fighter that killed.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from affray.core.errors import HookError
from affray.systems.base import System
from affray.systems.rules import volley
from affray.systems.rules.blow import one_hit
from affray.systems.rules.engagement import beside, end_fight
from affray.systems.rules.hit import VictimDeath
from affray.systems.rules.registry import hook_failed
from affray.systems.rules.skills import effective_skill
from affray.systems.rules.stun import attack_chance_value, check_stun, try_stand
from affray.systems.rules.tohit import POSITION_RANK, RESTING
from affray.systems.stun import next_round

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

# Extra attacks: (skill, divisor) - the source's next_attack coefficients.
PLAYER_EXTRA = (("second_attack", 2), ("third_attack", 3), ("fourth_attack", 3),
                ("fifth_attack", 3))
NPC_EXTRA = (("second_attack", 2), ("third_attack", 4), ("fourth_attack", 6))


# The formula through a memo (its arguments take few values): a C-level look-up per roll.
_attack_chance = functools.lru_cache(maxsize=1024)(attack_chance_value)


def extra_attack(world: World, attacker: Sheet, skill: str, divisor: int) -> bool:
    """One attack skill's roll (the source's next_attack): number_percent() <
    effective / divisor, x3/4 when slowed; weak stun halves the skills the fight config
    marks (R-STUN-6). A skill the fighter never learned gives nothing and rolls nothing."""
    if skill not in attacker.skills.learned:
        return False
    effective = effective_skill(world, attacker, skill)
    if effective <= 0:
        return False
    weak = skill in world.content.fight.stun.weak_stun_halves and attacker.has("weak_stun")
    chance = _attack_chance(effective, divisor, weak, attacker.has("slow"))
    return world.rng.percent() < chance


def extra_blows(world: World, attacker: Sheet) -> int:
    """How many extra blows the attack skills give, rolled all at once in their order
    (each roll as `extra_attack`): for callers outside a round."""
    table = NPC_EXTRA if attacker.npc else PLAYER_EXTRA
    return sum(extra_attack(world, attacker, skill, divisor) for skill, divisor in table)


def fight_round(world: World, attacker: Sheet, victim: Sheet) -> None:
    """One fighter's blows this round: the first, a quick creature's extra one, then each
    attack skill's roll followed by its blow. Stops when either dies; raises
    VictimDeath from the blow that kills."""
    if not one_blow(world, attacker, victim):
        return
    if attacker.has("haste") and not attacker.has("slow") and not one_blow(
            world, attacker, victim):
        return
    for skill, divisor in NPC_EXTRA if attacker.npc else PLAYER_EXTRA:
        if extra_attack(world, attacker, skill, divisor) and not one_blow(
                world, attacker, victim):
            return


def one_blow(world: World, attacker: Sheet, victim: Sheet) -> bool:
    """A blow if both live; False when one is dead (the chain stops)."""
    if not (attacker.vitals.alive and victim.vitals.alive):
        return False
    one_hit(world, attacker, victim)
    return True


def on_fight_hooks(world: World, fighter: Sheet) -> None:
    """R-TIME-3: the creature's own on-fight hooks, then those of its worn items."""
    if not world.rules.hooks["on_fight"]:
        return
    owners = [("all", ""), ("creature", fighter.id)]
    if fighter.creature.template:
        owners.append(("template", fighter.creature.template))
    owners.extend(("item", piece.item) for piece in fighter.equipment.worn)
    for hook in world.rules.hooks_for("on_fight", owners):
        try:
            hook(fighter, world)
        except HookError:
            raise
        except Exception as error:  # a game's hook: name it (VictimDeath passes)
            raise hook_failed(world, hook, error) from error


def fighter_round(world: World, fighter: Sheet, victim: Sheet) -> None:
    """One fighter's whole round, steps 1-4 of the module docstring."""
    try:
        # R-STUN-2: a stunned fighter loses its blows; asleep or worse, none at all.
        if POSITION_RANK[fighter.vitals.position] >= RESTING and check_stun(world, fighter):
            try_stand(world, fighter)
            fight_round(world, fighter, victim)
    except VictimDeath:
        pass  # the round ends for whoever died; the death is already logged
    if not fighter.vitals.alive:
        return
    try:
        on_fight_hooks(world, fighter)  # R-TIME-3: after the round, lost, won or not
    except VictimDeath:
        return
    if victim.vitals.alive:
        try_stand(world, victim)  # R-STUN-5: the source's stand_up_after_round


def fighter_turn(world: World, fighter: Sheet) -> None:
    """One snapshot fighter's turn of the round on the scalar path: skipped if it died
    earlier this round; its fight ends if its target is gone (R-MELEE-2); else its
    round (`fighter_round`)."""
    if not fighter.vitals.alive:
        return  # died earlier this round
    target_id = fighter.combat.fighting
    victim = world.sheets[world.by_id[target_id]] if target_id else None
    if victim is None or not victim.vitals.alive or not beside(fighter, victim):
        # R-MELEE-2: a target gone ends the fight. The engine ends it the moment its
        # target dies (R-ACT-2) or steps away (R-ACT-3); this catches a game's hand edit.
        if victim is None:
            world.fighting.discard(fighter.entity)
        else:
            end_fight(world, fighter, "apart" if victim.vitals.alive else "foe_died")
        return
    fighter_round(world, fighter, victim)


class MeleeSystem(System):
    """Combat rounds every `round_pulses` pulses (R-TIME-2)."""

    name = "Melee"
    rules = "R-TIME-2, R-TIME-3, R-MELEE-1..8, R-STUN-2, R-STUN-5, R-STUN-6 (combat rounds)"

    def process(self, world: World) -> None:
        if world.pulse % world.content.fight.round_pulses or not world.fighting:
            return
        if volley.wanted(world, len(world.fighting)):  # a big battle: vectorised
            volley.volley_round(world)  # its own snapshot, and `world.fighting` after
            return
        fighters = sorted((world.sheets[e] for e in world.fighting),
                          key=lambda sheet: sheet.spawn.number)  # the round's snapshot
        for fighter in fighters:
            fighter_turn(world, fighter)
        world.fighting = {e for e in world.fighting
                          if world.sheets[e].vitals.alive and world.sheets[e].combat.fighting}

    def next_pulse(self, world: World) -> int | None:
        """The next round pulse while anyone fights (R-TIME-2), else None: rounds are
        the only work of this system (World.run's skipping)."""
        return next_round(world) if world.fighting else None
