"""Rule-module corners the formula tests leave open (mutation testing after the
one-definition rewrite, issue 12): defence, tohit, blow, protections and skills.
"""

from __future__ import annotations

from fixed_draws import fixed_percent

from affray.systems.rules import defence
from affray.systems.rules.hit import Hit

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")


def blind_dodger(blind_fighting: int) -> str:
    return ('player = true\nlevel = 20\nprofession = "mobile"\nhp = 1000\n'
            f"skills = {{ dodge = 100, blind_fighting = {blind_fighting} }}\n"
            'stats = { dex = 20 }\naffects = ["blind"]')


# -- defence -----------------------------------------------------------------------------
def test_r_def_3_blind_fighting_of_1_is_never_rolled(duel):
    """R-DEF-3 / R-DEF-8: blind fighting at effective 1 is "never practised": a blind
    defender with it draws no blind-fighting roll (the same number of percent draws in a
    round as with none at all) and divides by 4. Dodge 100: 100/2 = 50, /4 = 12: a
    draw of 11 dodges every blow, 12 none."""
    draws = []
    for blind_fighting in (0, 1):
        world = duel("level = 20\nhp = 1000", blind_dodger(blind_fighting), extra=SURE)
        pinned = fixed_percent(world, 11)
        world.start_fight("a", "v")
        world.tick()
        dodged = [e for e in world.events if e.kind == "defended" and e.target == "v"]
        assert dodged and all(e.defence == "dodge" for e in dodged)
        draws.append(pinned.draws)
    assert draws[0] == draws[1]
    world = duel("level = 20\nhp = 1000", blind_dodger(1), extra=SURE)
    fixed_percent(world, 12)
    world.start_fight("a", "v")
    world.tick()
    assert not [e for e in world.events if e.kind == "defended" and e.target == "v"]


def test_r_def_2_bat_swarm_against_a_hit_with_no_attacker(duel):
    """R-DEF-2: with no attacker (a status tick's hit has no source) the level gap is the
    defender's own modify level (level + remorts) minus nothing: a level 7 defender with
    2 remorts has 50 + 9 = 59; a draw of 59 is stopped, 60 is not."""
    world = duel("level = 20", 'level = 7\nremorts = 2\naffects = ["bat_swarm"]')
    victim = world.sheet("v")
    assert defence.level_gap(victim, None) == 9
    hit = Hit(source=None, victim=victim, dam=10, damage_type="pound", flags=0, melee=True,
              cause="test")
    fixed_percent(world, 59)
    assert defence.bat_swarm(world, hit)
    fixed_percent(world, 60)
    assert not defence.bat_swarm(world, hit)
