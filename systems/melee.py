"""Melee: combat rounds every 12 pulses (R-TIME-2, R-TIME-3).

On the pulse a round falls due (pulse divisible by the round length), the fighters are
snapshot in spawn order; each living one gets one round: its stun check, standing up if
it sits, then its blows (one, plus a quick creature's extra one, plus the attack skills'
extra blows; none while asleep or worse), then its on-fight hooks (its own, then its
worn items'), which run even when a stun cost it the blows. A creature that died earlier
in the round is skipped; a death inside a blow or a hook ends that fighter's round
(R-DMG-2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System
from affray.systems.rules.blow import one_hit
from affray.systems.rules.hit import VictimDeath
from affray.systems.rules.skills import effective_skill
from affray.systems.rules.stun import attack_skill_chance, check_stun, try_stand
from affray.systems.rules.tohit import POSITION_RANK, RESTING

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

# Extra attacks: (skill, divisor) - the source's next_attack coefficients.
PLAYER_EXTRA = (("second_attack", 2), ("third_attack", 3), ("fourth_attack", 3),
                ("fifth_attack", 3))
NPC_EXTRA = (("second_attack", 2), ("third_attack", 4), ("fourth_attack", 6))


def start_fight(world: World, attacker: Sheet, victim: Sheet) -> None:
    """Both fight: the attacker its victim; the victim fights back unless busy."""
    attacker.combat.fighting = victim.id
    if attacker.vitals.position == "standing":
        attacker.vitals.position = "fighting"
    if victim.combat.fighting is None:
        victim.combat.fighting = attacker.id
        if victim.vitals.position == "standing":
            victim.vitals.position = "fighting"


def beside(a: Sheet, b: Sheet) -> bool:
    """R-MELEE-2 / R-GRID-2: Chebyshev distance 1."""
    return max(abs(a.position.x - b.position.x), abs(a.position.y - b.position.y)) == 1


def stop_fighting(sheet: Sheet) -> None:
    sheet.combat.fighting = None
    if sheet.vitals.position == "fighting":
        sheet.vitals.position = "standing"


def extra_blows(world: World, attacker: Sheet) -> int:
    """How many extra blows the attack skills give this round: each skill in turn rolls
    number_percent() < effective / divisor (x3/4 when slowed)."""
    table = NPC_EXTRA if attacker.npc else PLAYER_EXTRA
    halved = world.content.fight.stun.weak_stun_halves
    extra = 0
    slowed = attacker.has("slow")
    learned = attacker.skills.learned
    for skill, divisor in table:
        if skill not in learned:
            continue
        effective = effective_skill(world, attacker, skill)
        if effective <= 0:
            continue
        chance = attack_skill_chance(attacker, skill, effective // divisor, halved)
        if slowed:
            chance = chance * 3 // 4
        if world.rng.percent() < chance:
            extra += 1
    return extra


def fight_round(world: World, attacker: Sheet, victim: Sheet) -> None:
    """One fighter's blows this round; stops when the target dies or the fighter does."""
    blows = 1
    if attacker.has("haste") and not attacker.has("slow"):
        blows += 1
    blows += extra_blows(world, attacker)
    for _ in range(blows):
        if not (attacker.vitals.alive and victim.vitals.alive):
            return
        one_hit(world, attacker, victim)


def on_fight_hooks(world: World, fighter: Sheet) -> None:
    """R-TIME-3: the creature's own on-fight hooks, then those of its worn items."""
    if not world.rules.hooks["on_fight"]:
        return
    owners = [("all", ""), ("creature", fighter.id)]
    if fighter.creature.template:
        owners.append(("template", fighter.creature.template))
    owners.extend(("item", piece.item) for piece in fighter.equipment.worn)
    for hook in world.rules.hooks_for("on_fight", owners):
        hook(fighter, world)


class MeleeSystem(System):
    """Combat rounds every `round_pulses` pulses (R-TIME-2)."""

    name = "Melee"
    rules = "R-TIME-2, R-TIME-3, R-MELEE-1..8 (combat rounds and blows)"

    def process(self, world: World) -> None:
        if world.pulse % world.content.fight.round_pulses or not world.fighting:
            return
        fighters = sorted((world.sheets[e] for e in world.fighting),
                          key=lambda sheet: sheet.spawn.number)  # the round's snapshot
        for fighter in fighters:
            if not fighter.vitals.alive:
                continue  # died earlier this round
            target_id = fighter.combat.fighting
            victim = world.sheets[world.by_id[target_id]] if target_id else None
            if victim is None or not victim.vitals.alive or not beside(fighter, victim):
                # R-MELEE-2: a target gone (dead, or stepped away) ends the fight
                stop_fighting(fighter)
                world.fighting.discard(fighter.entity)
                continue
            try:
                # R-STUN-2: a stunned fighter loses its blows; asleep or worse, none.
                if check_stun(world, fighter):
                    try_stand(world, fighter)
                    if POSITION_RANK[fighter.vitals.position] >= RESTING:
                        fight_round(world, fighter, victim)
                on_fight_hooks(world, fighter)  # R-TIME-3: after the round, lost or not
            except VictimDeath:
                pass  # the round ends for whoever died; the death is already logged
        world.fighting = {e for e in world.fighting
                          if world.sheets[e].vitals.alive and world.sheets[e].combat.fighting}
