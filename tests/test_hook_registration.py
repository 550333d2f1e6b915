"""Hooks, modifiers and steps a game registers (issue 19, "Embedding"; docs/hooks.md).

Registration is checked at once: an owner the world does not know (a typo such as
("template", "trol")), an unknown kind, or a hook that is not callable is a UsageError
then, not a hook that silently never fires or fails mid-fight. A hook that raises
inside a tick is a HookError naming the hook, its owner and the pulse, and the world,
left part-way through that pulse, refuses to tick, run or save until it is rebuilt or
loaded from a save.
"""

from __future__ import annotations

import pytest

import affray
from affray.core.errors import HookError, UsageError


@pytest.fixture
def duel():
    world = affray.load_scenario(affray.builtin_scenario("duel"), seed=3)
    yield world
    world.close()


@pytest.mark.parametrize(("kind", "owner", "hook", "message"), [
    ("on_fight", ("template", "trol"), lambda *a: None, "no template named 'trol'"),
    ("on_fight", ("creature", "worrior"), lambda *a: None, "no creature named 'worrior'"),
    ("on_immune", ("affect", "sancturay"), lambda *a: None, "no affect named 'sancturay'"),
    ("on_fight", ("item", "long_swrod"), lambda *a: None, "no item named 'long_swrod'"),
    ("on_fight", ("monster", "orc"), lambda *a: None, "unknown hook owner kind 'monster'"),
    ("on_fight", "orc", lambda *a: None, r"a \(kind, name\) pair"),
    ("on_fight", ("creature",), lambda *a: None, r"a \(kind, name\) pair"),
    ("on_fight", ("creature", 3), lambda *a: None, r"a \(kind, name\) pair"),
    ("on_fight", ("all", "orc"), lambda *a: None, "takes no name"),
    ("on_fight", ("creature", "orc"), "not a function", "must be callable"),
    ("on_fight", ("creature", "orc"), None, "must be callable"),
    ("on_fihgt", ("creature", "orc"), lambda *a: None, "hook kind must be one of"),
])
def test_a_bad_hook_is_refused_at_registration(duel, kind, owner, hook, message):
    """Each is refused with UsageError (also a ValueError and a TypeError) and nothing is
    registered."""
    with pytest.raises(UsageError, match=message):
        duel.rules.add_hook(kind, owner, hook)
    assert all(not table for table in duel.rules.hooks.values())


@pytest.mark.parametrize("owner", [("template", "orc_brute"), ("creature", "orc"),
                                   ("affect", "sanctuary"), ("item", "long_sword"),
                                   ("all", "")])
def test_every_kind_of_known_owner_is_accepted(duel, owner):
    duel.rules.add_hook("on_fight", owner, lambda fighter, world: None)
    assert duel.rules.hooks["on_fight"][owner]


def test_bad_modifiers_and_steps_are_refused(duel):
    with pytest.raises(UsageError, match="callable"):
        duel.rules.add_modifier("melee", 5)
    with pytest.raises(UsageError, match="'melee' or 'damage'"):
        duel.rules.add_modifier("spells", lambda hit, world: None)
    with pytest.raises(UsageError, match="callable"):
        duel.rules.protections.add("ward", "ward")
    with pytest.raises(UsageError, match="callable"):
        duel.rules.defences.replace("dodge", None)
    with pytest.raises(UsageError, match="already registered"):
        duel.rules.protections.add("sanctuary", lambda hit, world: None)
    assert duel.rules.all_melee == [] and "ward" not in duel.rules.protections.names


def _boom(*_args):
    raise RuntimeError("the game's bug")


def _register(world: affray.World, where: str) -> None:
    rules = world.rules
    if where == "on_fight":
        rules.add_hook("on_fight", ("creature", "warrior"), _boom)
    elif where == "post_damage":
        rules.add_hook("post_damage", ("creature", "orc"), _boom)
    elif where == "pre_damage":
        rules.add_hook("pre_damage", ("template", "orc_brute"), _boom)
    elif where == "on_immune":
        rules.add_hook("on_immune", ("all", ""), _boom)
    elif where == "modifier":
        rules.add_modifier("melee", _boom)
    elif where == "protection":
        rules.protections.add("ward", _boom, after="immunity")
    elif where == "defence":
        rules.defences.add("tumble", _boom)


@pytest.mark.parametrize(("where", "owner"), [
    ("on_fight", "on_fight hook of ('creature', 'warrior')"),
    ("post_damage", "post_damage hook of ('creature', 'orc')"),
    ("pre_damage", "pre_damage hook of ('template', 'orc_brute')"),
    ("on_immune", "on_immune hook of ('all', '')"),
    ("modifier", "'melee' modifier"),
    ("protection", "protection step 'ward'"),
    ("defence", "defence step 'tumble'"),
])
def test_a_hook_that_raises_is_a_hook_error_and_the_world_stops(duel, tmp_path, where, owner):
    """The HookError names the function, its owner and the pulse, keeps the hook's own
    exception as its cause; the world then refuses tick, run and save with a clear
    HookError, and a save made before the failure loads and runs on."""
    before = tmp_path / "before.save"
    duel.save(before)
    _register(duel, where)
    with pytest.raises(HookError) as caught:
        duel.run()
    message = str(caught.value)
    assert "_boom" in message and owner in message
    assert f"at pulse {duel.pulse}" in message
    assert isinstance(caught.value.__cause__, RuntimeError)
    for call in (duel.tick, duel.run, lambda: duel.save(tmp_path / "after.save")):
        with pytest.raises(HookError, match="part-way through a pulse"):
            call()
    assert not (tmp_path / "after.save").exists()
    with affray.load_world(before) as again:  # rules are code: the save has none
        again.run()
        assert any(e.kind == "death" for e in again.events)


def test_a_hook_error_is_an_affray_error(duel):
    """A game that catches AffrayError around its tick catches a failing hook too."""
    _register(duel, "on_fight")
    with pytest.raises(affray.AffrayError):
        duel.run()


def test_a_killing_hook_still_signals_the_death_not_a_hook_error(duel):
    """R-DMG-2: a hook that kills through `world.damage` lets VictimDeath propagate:
    that is the pipeline's signal, never a HookError."""
    def finisher(hit, world):
        if hit.victim.vitals.hp > 0:
            world.damage(None, hit.victim.id, 10_000, "bash")

    duel.rules.add_hook("post_damage", ("creature", "orc"), finisher)
    duel.run()
    assert duel.broken is None
    assert [e.to_dict()["target"] for e in duel.events if e.kind == "death"] == ["orc"]
