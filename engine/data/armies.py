"""Two armies on an open field: the built-in `battle`, and any size for benchmarks.

`army(per_side, seed=0)` gives the text of a scenario (TOML, the scenario format of
SCENARIO.md): a field with a river down the middle and a bridge across it, and on each
side an army in ranks: warriors in front (a pack: they go for the nearest foe they see
and pile into their side's fights), levies behind them (they run when badly hurt),
archers behind those (they keep four cells from the foe and shoot a bolt), and a few
mages at the back (they keep their distance and throw fireballs, never one whose preview
strikes as many of their own side as of the foe, R-MIND-6). Nobody is scripted: every creature acts
on its mind (SPEC section 16). The armies begin out of reach and in sight of each other,
so they march, meet at the river, and fight along the front.

`affray.builtin_scenario("battle")` is `army(BATTLE_PER_SIDE)` written out
(`python scripts/make_battle.py` writes it again; a test checks that it is the same).
Other sizes need no file: write `affray.army(n)` to one and `load_scenario` it.
"""

from __future__ import annotations

import math

from affray.core.errors import UsageError
from affray.data.scenario import MAX_SEED

# Of each hundred soldiers: warriors, levies, archers, mages.
MIX = (("warrior", 50), ("levy", 25), ("archer", 20), ("mage", 5))
SIDES = ("red", "blue")
GAP = 24  # cells of field between the two armies' front ranks (the river in the middle)
MAX_PER_SIDE = 100_000
# The built-in battle's size: a whole battle that plays to the end in a few seconds
# (docs/decisions.md, "The built-in battle"), not the 1,000 of issue 21.
BATTLE_PER_SIDE = 100

CONTENT = '''
[content.creatures.soldier]
npc = true
level = 12
hp = 80
damage = "2d6+2"
hitroll = 10
damroll = 3
defences = ["parry", "dodge"]
glyph = "w"

[content.creatures.levy]
npc = true
level = 6
hp = 40
damage = "1d8"
hitroll = 4
glyph = "l"

[content.creatures.bowman]
npc = true
level = 10
hp = 50
damage = "1d6"
hitroll = 6
glyph = "a"

[content.creatures.battle_mage]
npc = true
level = 20
hp = 60
damage = "1d4"
glyph = "m"

[content.spells.arrow]
description = "A shot from a bow: one creature, the first on the line."
type = "pierce"
shape = "bolt"
range = 8
damage = "2d6"
save = "none"
beats = 12

[content.minds.warrior]
description = "A soldier of the line: goes for the nearest foe, helps its side."
aggressive = true
assist = true
sight = 30

[content.minds.levy]
description = "A levy: fights, but runs when badly hurt."
aggressive = true
assist = true
wimpy = 50
sight = 30

[content.minds.archer]
description = "An archer: keeps four cells from the foe and shoots."
aggressive = true
sight = 30
spells = ["arrow"]
keep_range = 4
cast_chance = 60

[content.minds.battle_mage]
description = "A mage: keeps its distance and throws fireballs, never into its own ranks."
aggressive = true
sight = 30
spells = ["fireball"]
keep_range = 5
cast_chance = 60
'''

TEMPLATE = {"warrior": "soldier", "levy": "levy", "archer": "bowman", "mage": "battle_mage"}


def ranks(per_side: int) -> list[str]:
    """Each soldier's kind, front rank first, by MIX."""
    out: list[str] = []
    for kind, share in MIX:
        out += [kind] * round(per_side * share / 100)
    out = out[:per_side]
    while len(out) < per_side:
        out.append("warrior")
    return out


def army(per_side: int, seed: int = 0, name: str = "battle",
         pulses: int = 100_000) -> str:
    """The scenario text of two armies of `per_side` each (module docstring), with
    the scenario's `seed` and `pulses` (its end) and `name`."""
    if isinstance(per_side, bool) or not isinstance(per_side, int) \
            or not 1 <= per_side <= MAX_PER_SIDE:
        raise UsageError(f"army: per_side must be a whole number 1..{MAX_PER_SIDE}, got "
                         f"{per_side!r}")
    for field, value in (("seed", seed), ("pulses", pulses)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
            raise UsageError(f"army: {field} must be a whole number 0..{MAX_SEED}, got "
                             f"{value!r}")
    if not isinstance(name, str) or not name.isprintable() or '"' in name or "\\" in name:
        raise UsageError(f"army: name must be printable text without quotes or "
                         f"backslashes, got {name!r}")
    width = max(40, math.ceil(math.sqrt(per_side * 4)))  # ranks about as wide as deep x4
    depth = math.ceil(per_side / width)
    height = width + 4
    field_width = 2 * (depth + 2) + GAP
    river = field_width // 2
    rows = []
    for y in range(height):
        row = ["."] * field_width
        if not height // 2 - 2 <= y <= height // 2 + 1:  # a bridge four cells wide
            row[river - 1] = row[river] = "~"
        rows.append("".join(row))
    lines = [f"# Two armies of {per_side} on an open field with a river and a bridge, written "
             f"by affray.army({per_side}).",
             "# Warriors in front, levies, archers, mages at the back: every soldier acts",
             "# on its mind (SPEC section 16); nothing is scripted.",
             f'name = "{name}"', f"seed = {seed}", f"pulses = {pulses}", "",
             "[map]", "rows = ["]
    lines += [f'  "{row}",' for row in rows]
    lines.append("]")
    kinds = ranks(per_side)
    for side_index, side in enumerate(SIDES):
        for index, kind in enumerate(kinds):
            rank, file = divmod(index, width)
            x = (depth + 1 - rank) if side_index == 0 else (field_width - depth - 2 + rank)
            y = 2 + file
            lines += ["", "[[creatures]]", f'id = "{side}{index}"',
                      f'template = "{TEMPLATE[kind]}"', f'side = "{side}"',
                      f'mind = "{kind if kind != "mage" else "battle_mage"}"',
                      f"at = [{x}, {y}]"]
    return "\n".join(lines) + "\n" + CONTENT
