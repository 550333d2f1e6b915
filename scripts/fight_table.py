"""Print the armor model's numbers for a game designer: docs/fight-tuning.md's table.

Equal-level fights between two warriors at levels 10, 50 and 100, the attacker with a
typical hitroll for its level (about 1.65 x level, the source's pc_baseline medians:
82 at level 50) and a 100% weapon, the victim with DEX 18 and light, medium or heavy
armor (1, 3 or 6 armor points per level in every column). For each: the hit chance P
(R-HIT-4), the armor reduction of a physical blow (R-HIT-7/8: pierced by the attacker's
effective hitroll) and of a fire spell from an equal-level caster (exotic column at
spell_factor, pierced by level * spell_pierce_level). Reads the default content's knobs,
so rerun it after retuning content/fight.toml.

    python scripts/fight_table.py
"""

from __future__ import annotations

import affray
from affray.data.scenario import build_world, parse_scenario
from affray.systems.rules import tohit
from affray.systems.rules.protections import armor_reduction

ARMOR_PER_LEVEL = {"light": 1, "medium": 3, "heavy": 6}


def row(level: int, armor_name: str) -> str:
    points = ARMOR_PER_LEVEL[armor_name] * level
    hitroll = round(1.65 * level)
    text = (
        '[map]\nrows = ["..."]\n'
        f'[[creatures]]\nid = "a"\nat = [0, 0]\nlevel = {level}\nprofession = "warrior"\n'
        f'hitroll = {hitroll}\nstats = {{ str = 18, dex = 18 }}\n'
        f'[[creatures]]\nid = "v"\nat = [1, 0]\nlevel = {level}\nprofession = "warrior"\n'
        f'stats = {{ dex = 18 }}\n'
        f'armor = {{ bash = {points}, pierce = {points}, slash = {points}, exotic = {points} }}\n'
    )
    spec, raw = parse_scenario(text, "table")
    world = build_world(spec, raw, "table")
    try:
        content = world.content
        attacker, victim = world.sheet("a"), world.sheet("v")
        skill = 120  # 20 + a 100% weapon
        acc = tohit.accuracy(attacker, skill, content)
        ev = tohit.evasion(victim, content, False)
        chance = tohit.hit_chance(acc, ev, content)
        knobs = content.fight.armor
        pierce = tohit.effective_hitroll(attacker, skill, content)
        physical = armor_reduction(points, level, pierce, knobs)
        spell = armor_reduction(points * knobs.spell_factor, level,
                                level * knobs.spell_pierce_level, knobs)
        return (f"| {level} | {armor_name} ({points}) | {hitroll} | {acc:.0f} | {ev:.0f} | "
                f"{chance:.0%} | {physical:.0%} | {spell:.0%} |")
    finally:
        world.close()


def main() -> None:
    affray.default_content()
    print("| level | armor (points) | hitroll | accuracy | evasion | P(hit) | "
          "melee cut | fire spell cut |")
    print("|---|---|---|---|---|---|---|---|")
    for level in (10, 50, 100):
        for armor_name in ARMOR_PER_LEVEL:
            print(row(level, armor_name))


if __name__ == "__main__":
    main()
