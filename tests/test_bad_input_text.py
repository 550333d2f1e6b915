"""Player text read as a player would (issue 10): no word said twice, no terse codes, who
struck named, and cause before consequence in the log (R-ENG-4: text is rendered from
events by engine/display/text.py)."""

from __future__ import annotations

from conftest import duel_text

from affray.display.text import render_log


def lines(world) -> list[str]:
    return [line.split("] ", 1)[1] for line in render_log(world.events)]


def test_a_refused_attack_does_not_say_attack_twice_r_eng_4(make_world):
    """R-ENG-4: a scenario attack on a creature that is not beside the attacker is refused
    when submitted; its line names the action once."""
    world = make_world('[map]\nrows = ["....."]\n[[creatures]]\nid = "demon"\nat = [0, 0]\n'
                       '[[creatures]]\nid = "pal"\nat = [3, 0]\n'
                       '[[actions]]\nactor = "demon"\nattack = "pal"\n')
    world.tick()
    assert lines(world) == ["demon cannot attack: target 'pal' is out of range (melee needs "
                            "the attacker beside it)."]


def test_a_refused_step_says_why_in_words_r_eng_4(make_world):
    """R-ENG-4: two creatures stepping into the same cell on one pulse: the second is
    refused, and the line says the cell is taken rather than `occupied`."""
    world = make_world('[map]\nrows = ["...", "..."]\n[[creatures]]\nid = "a"\nat = [0, 0]\n'
                       '[[creatures]]\nid = "b"\nat = [2, 0]\n'
                       '[[actions]]\nactor = "a"\nmove = [1, 0]\n'
                       '[[actions]]\nactor = "b"\nmove = [1, 0]\n')
    world.tick()
    assert lines(world) == ["a steps to [1, 0].",
                            "b cannot move: someone is already standing there."]


def test_an_immune_blow_names_who_struck_r_eng_4(duel):
    """R-ENG-4: a golem immune to bashing takes a fist: "golem is unharmed by a's bash"."""
    world = duel('hitroll = 100\nlevel = 50\ndamage = "2d4"', 'imm = ["bash"]\nhp = 500')
    world.start_fight("a", "v")
    world.run(pulses=60)
    immune = [line for line in lines(world) if "unharmed" in line]
    assert immune and set(immune) == {"v is unharmed by a's bash."}


def test_a_lost_round_comes_before_the_stun_eases_r_stun_2(make_world):
    """R-STUN-2 in the log: "loses the round (stun)" first, then "is left dazed"."""
    world = make_world(duel_text('affects = ["stun"]\nhp = 500', "hp = 500"))
    world.start_fight("a", "v")
    world.run(pulses=13)
    said = [line for line in lines(world)  # not its `fight` event: "a attacks v."
            if line.startswith("a ") and line != "a attacks v."]
    assert said[:2] == ["a loses the round (stun).", "a is left dazed (weak stun)."]
    assert said[2:4] == ["a loses the round (weak stun).", "a shakes off the stun."]


def test_the_summary_of_a_fight_with_no_one_in_it(make_world):
    """`affray run` on a map with no creatures: an empty table and a plain sentence."""
    import io

    from affray.display.summary import print_summary, summarize

    world = make_world('[map]\nrows = ["..."]\n')
    world.run()
    out = io.StringIO()
    summary = summarize(world)
    print_summary(summary, out)
    assert summary.to_dict() == {"creatures": [], "sides": [], "winner": None}
    assert out.getvalue().splitlines()[-1] == "No winner: the scenario has no creatures."
