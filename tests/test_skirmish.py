"""The built-in "skirmish": a big battle of eighty fighters, end to end through `tick`
and the CLI (issue 12: the vectorised round is used by itself once a round has
`fight.vectorise_min_fighters` fighters)."""

from __future__ import annotations

import json
import subprocess
import sys

import affray
from affray.data.scenario import builtin_scenario
from affray.display.text import render_event
from affray.systems.rules import volley


def test_the_skirmish_rounds_are_vectorised_and_log_the_scalar_kinds_r_melee_1(
        monkeypatch) -> None:
    """R-MELEE-1, R-DMG-2: every round of the skirmish takes the vectorised path (80
    fighters, over the content's 64); its blows log the kinds and fields a blow by blow
    round logs (damage with cause melee, miss, defended), kept as columns until read;
    the fireball of pulse 24 strikes through the melee; the kills end their victims'
    fights and the players' side wins."""
    rounds: list[int] = []
    real = volley.volley_round

    def spy(world):  # type: ignore[no-untyped-def]
        rounds.append(world.pulse)
        return real(world)

    monkeypatch.setattr(volley, "volley_round", spy)
    world = affray.load_scenario(builtin_scenario("skirmish"))
    try:
        assert len(world.fighting) == 80
        assert world.content.fight.vectorise_min_fighters <= 80
        world.tick()
        assert rounds == [0] and world.events.pending  # the round's blows: columns
        first = [e for e in world.events if e.kind != "fight"]  # R-ACT-3: the fights begun
        assert {(e.source, e.target, e.change) for e in world.events if e.kind == "fight"} \
            == {(w.id, w.combat.fighting, "started")
                for w in (world.sheet(i) for i in world.creature_ids()) if w.combat.fighting}
        assert len(first) >= 80 and {e.kind for e in first} <= {"damage", "miss", "defended"}
        assert all(e.cause == "melee" for e in first if e.kind in ("damage", "miss"))
        assert {e.source for e in first} == {f"{side}{n}" for side in ("guard", "orc")
                                             for n in range(1, 41)}
        world.run()
        round_pulses = world.content.fight.round_pulses
        assert rounds[:3] == [0, round_pulses, 2 * round_pulses]
        cast = [e for e in world.events if e.kind == "cast"]
        assert [(e.pulse, e.actor, e.spell) for e in cast] == [(24, "mage", "fireball")]
        burnt = [e for e in world.events if e.kind == "damage" and e.cause == "spell"]
        assert burnt and all(e.pulse == 24 for e in burnt)
        deaths = [e for e in world.events if e.kind == "death"]
        final = world.snapshot()["creatures"]
        assert len(deaths) == 40 and all(not final[f"orc{n}"]["alive"] for n in range(1, 41))
        assert all(final[f"guard{n}"]["alive"] for n in range(1, 41))
        for event in world.events:  # every event renders, whichever path wrote it
            assert render_event(event)
    finally:
        world.close()


def test_the_skirmish_through_the_cli_prints_the_log_it_keeps() -> None:
    """`affray run --json` on the skirmish: exit 0, the events the world logs (built from
    the columns when printed), the final snapshot."""
    path = builtin_scenario("skirmish")
    done = subprocess.run([sys.executable, "-m", "affray", "run", "--json", str(path)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    world = affray.load_scenario(path)
    try:
        world.run()
        assert printed["events"] == [event.to_dict() for event in world.events]
        assert printed["final"] == world.snapshot()
    finally:
        world.close()
