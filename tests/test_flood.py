"""Striking a flooded lake at once gives what striking it one by one gives (R-ELEC-3).

`affray.systems.rules.flood` strikes the creatures a flood queued together in numpy; the
only difference the module allows is the order of the saves' draws. With every draw
pinned to one value the two paths must write the same log and leave the same world,
event for event, over a pond of creatures that between them meet every step: saves
(both models, resistant, vulnerable, immune, berserk, cursed), the protections
(sanctuary, shroud, resistance, alignment, liturgy, conductor, armor, flat trim),
deaths, a player's position ladder, an immortal, and statuses from the type rules.
"""

from __future__ import annotations

import pytest
from conftest import world_from_text

import affray
from affray.systems.rules import flood

KINDS = [
    "",
    'affects = ["sanctuary"]',
    'affects = ["dark_shroud"]',
    'affects = ["resistance"]',
    'affects = ["protection_evil"]',
    'affects = ["conductor"]',
    'affects = ["berserk"]',
    'affects = ["liturgy"]\nlevel = 55',
    "skills = { liturgy = 80 }\nlevel = 55",  # R-PROT-4 from the skill: 30 x 55 >= 1,200
    "skills = { liturgy = 80 }\nlevel = 30",  # and a hit too small for it to cut
    'res = ["lightning"]',
    'vuln = ["lightning"]',
    'res = ["lightning"]\nvuln = ["lightning"]',
    'imm = ["lightning"]',
    'imm = ["spell"]',
    "armor = { exotic = 40 }\nlevel = 30",
    "saving_throw = -30\nlevel = 40",
    "saving_throw = 12",
    "hp = 5",
    "player = true\nhp = 9",
    "immortal = true\nhp = 3",
    "level = 7",
    # R-ACT-1 in the water: asleep (it wakes), a mind that remembers the caster, one
    # already fighting (it keeps its fight), and a sleeper with a mind
    'position = "sleeping"',
    'mind = "brute"',
    'mind = "sentry"\nposition = "sleeping"',
    # `rouse` in the water: resting or sitting, it tries to stand (R-STUN-5)
    'position = "resting"',
    'position = "sitting"',
]


MAGE = '[[creatures]]\nid = "mage"\nat = [0, 0]\nlevel = 25\nside = "players"\n'


def storm(spell: str, shape: str, range_: int, bulk: bool, extra: str) -> str:
    """The `storm` spell (30 damage of `spell`'s type), struck at once or one by one."""
    return (f"\n[content.world]\nbulk_strike_min = {1 if bulk else 1_000_000}\n"
            f'[content.spells.storm]\ntype = "{spell}"\nshape = "{shape}"\n'
            f'range = {range_}\ndamage = "30"\n{extra}\n')


def pond(spell: str, extra: str = "", bulk: bool = True) -> str:
    side = 6
    rows = ["." * side] + ["~" * side for _ in range(side)]
    text = f"seed = 4\n[map]\nrows = {rows!r}\n".replace("'", '"')
    text += storm(spell, "bolt", 6, bulk, extra) + MAGE + "alignment = -800\n"
    for i in range(side * side):
        kind = KINDS[i % len(KINDS)]
        hp = "" if "hp =" in kind else "hp = 60\n"
        text += f'[[creatures]]\nid = "c{i}"\nat = [{i % side}, {1 + i // side}]\n{hp}{kind}\n'
    return text


def run(text: str, draw: int) -> tuple[list[dict], dict]:
    world = world_from_text(text)
    world.rng.percent = lambda: draw  # type: ignore[method-assign]
    world.rng.number_range = lambda low, high: low + (draw * 10 - low) % (high - low + 1)  # type: ignore[method-assign]
    world.submit(affray.Cast(actor="mage", spell="storm", target="c0"))
    world.tick()
    lag = (world.lag.wait.tolist(), world.lag.daze.tolist())  # a spell's daze (R-LAG-6)
    world.run(59)
    log = [event.to_dict() for event in world.events]
    state = world.snapshot()
    state["lag after the cast"] = lag
    world.close()
    return log, state


@pytest.mark.parametrize("draw", [1, 30, 55, 80, 100])
@pytest.mark.parametrize("extra", ["", 'save = "none"', "daze = 6"])
def test_r_elec_3_a_flood_struck_at_once_matches_one_by_one(draw, extra, monkeypatch):
    """R-ELEC-3 / R-SAVE-10 / R-PROT-1..7: same draws, same log, same world."""
    import affray.systems.arc as arc

    calls = []
    real = arc.strike_many
    monkeypatch.setattr(arc, "strike_many",
                        lambda *args: calls.append(len(args[2])) or real(*args))
    bulk_log, bulk_state = run(pond("lightning", extra, bulk=True), draw)
    assert calls and calls[0] >= 30  # the flood really went through the bulk path
    monkeypatch.setattr(arc, "strike_many", real)
    one_log, one_state = run(pond("lightning", extra, bulk=False), draw)
    assert sum(e["cause"] == "water" for e in bulk_log if e["kind"] == "damage") > 20
    assert bulk_log == one_log
    assert bulk_state == one_state


@pytest.mark.parametrize("draw", [20, 70])
def test_the_bulk_saves_match_model_1_too(draw):
    """R-SAVE-3 in bulk: model 1's curve and permille roll, creature for creature."""
    extra = ""
    model1 = ("\n[content.saves]\nmodel = 1\n[content.saves.model1]\nbase = 40\nspan = 50\n"
              "per_level = 3\nfloor = 5\nceiling = 90\ntau = 0.45\nlevel_floor = 45\n")
    bulk_log, bulk_state = run(pond("lightning", extra, bulk=True) + model1, draw)
    one_log, one_state = run(pond("lightning", extra, bulk=False) + model1, draw)
    assert bulk_log == one_log
    assert bulk_state == one_state


def test_a_flood_takes_the_one_by_one_path_when_a_hook_is_registered():
    """`bulk_ready`: a pre-damage hook (or custom protection) sends the cast one by one."""
    world = world_from_text(pond("lightning"))
    seen = []
    world.rules.add_hook("pre_damage", ("all", ""), lambda hit, w: seen.append(hit.victim.id))
    world.submit(affray.Cast(actor="mage", spell="storm", target="c0"))
    world.tick()
    struck = [e.target for e in world.events if e.kind in ("damage", "immune")]
    assert seen and set(seen) <= set(struck)
    assert not flood.bulk_ready(world, world.cast_records[0], [world.sheet("c1")])


def shore(shape: str, chain: bool, bulk: bool) -> str:
    """A 6x5 pond full of creatures, ringed by creatures on dry land: a strike in the
    water may arc to the shore (R-ELEC-1), so the walk after a bulk strike must still
    visit the pond's edge in queue order."""
    rows = ["." * 8] + [".~~~~~~." for _ in range(5)] + ["." * 8]
    text = f"seed = 9\n[map]\nrows = {rows!r}\n".replace("'", '"')
    radius = "radius = 1\n" if shape == "burst" else ""
    text += storm("lightning", shape, 8, bulk, f"chain = {str(chain).lower()}\n{radius}") + MAGE
    cells = [(x, y) for y in range(7) for x in range(8) if (x, y) != (0, 0)]
    for i, (x, y) in enumerate(cells):
        text += f'[[creatures]]\nid = "c{i}"\nat = [{x}, {y}]\nhp = 60\n'
    return text


@pytest.mark.parametrize("draw", [1, 20, 80])
@pytest.mark.parametrize(("shape", "chain"), [("bolt", False), ("bolt", True),
                                              ("burst", False)])
def test_r_elec_1_arcs_from_a_lake_struck_at_once_match_one_by_one(draw, shape, chain,
                                                                    monkeypatch):
    """R-ELEC-1 / R-ELEC-3 / R-ELEC-5 / R-ELEC-8: after a pond is struck at once, the
    walk skips only the creatures whose turn could do nothing; the arcs to the shore
    come out as striking one by one gives them (a bolt arcs one time in four, chain
    lightning jumps for certain and reaches two cells), and a burst never arcs."""
    import affray.systems.arc as arc

    calls = []
    real = arc.strike_many
    monkeypatch.setattr(arc, "strike_many",
                        lambda *args: calls.append(len(args[2])) or real(*args))
    target = "c8" if shape == "bolt" else "c16"  # in the water, at (1, 1) / (1, 2)

    def cast(bulk: bool) -> tuple[list[dict], dict]:
        world = world_from_text(shore(shape, chain, bulk))
        world.rng.percent = lambda: draw  # type: ignore[method-assign]
        world.rng.number_range = lambda low, high: low + (draw * 10 - low) % (high - low + 1)  # type: ignore[method-assign]
        world.submit(affray.Cast(actor="mage", spell="storm", target=target))
        world.tick()
        log = [event.to_dict() for event in world.events]
        state = world.snapshot()
        world.close()
        return log, state

    bulk_log, bulk_state = cast(True)
    assert calls and calls[0] >= 20  # the pond went through the bulk path
    monkeypatch.setattr(arc, "strike_many", real)
    one_log, one_state = cast(False)
    assert bulk_log == one_log
    assert bulk_state == one_state
    causes = [e["cause"] for e in bulk_log if e["kind"] == "damage"]
    assert causes.count("water") >= 20
    if shape == "burst":
        assert "arc" not in causes  # R-ELEC-1: a burst floods and never arcs
    elif chain or draw <= 25:
        assert "arc" in causes  # certain jumps, or the one-in-four roll met
    else:
        assert "arc" not in causes  # a roll of 80 never arcs (R-ELEC-1: 25%)


def test_the_gathered_columns_are_each_victims_own_values():
    """R-SAVE-5 / R-PROT-1..7 read per victim: the one pass over the sheets
    (`flood._victim_table`) gives each victim's modify level, saving throw, masks with
    gear, hit points, affect bits, berserk, position and liturgy, as its sheet says."""
    from affray.systems.rules.volley_protect import affect_mask

    world = world_from_text(pond("lightning"))
    try:
        world.enter()
        victims = [s for s in world.sheets.values() if s.id != "mage"]
        record = type("Record", (), {"definition": type("Def", (), {"save": "half"})(),
                                     "damage_type": "negative", "roll": 900})()
        table = flood._victim_table(world, record, world.sheet("mage"), victims, 3)
        assert table.level.tolist() == [s.modify_level for s in victims]
        assert table.saving.tolist() == [s.defense.saving_throw for s in victims]
        assert table.imm.tolist() == [s.imm_mask() for s in victims]
        assert table.vuln.tolist() == [s.vuln_mask() for s in victims]
        assert table.hp.tolist() == [s.vitals.hp for s in victims]
        assert table.max_hp.tolist() == [s.vitals.max_hp for s in victims]
        assert table.affects.tolist() == [affect_mask(s.affects.levels) for s in victims]
        assert table.berserk.tolist() == [s.has("berserk") for s in victims]
        assert table.armor.tolist() == [s.armor("exotic") for s in victims]
        assert table.liturgy.tolist() == [s.skills.learned.get("liturgy", 0) > 0
                                          for s in victims]
        assert any(table.berserk) and any(table.liturgy) and any(table.affects)
    finally:
        world.close()
