"""A game's own content pack: `affray.load_content(*paths)` layered over the defaults in
order, validated, errors naming the file, the entry and the field (R-ENG-1); a scenario
built on it with `load_scenario(path, content=...)`, its inline content on top; a save
keeps every layer."""

from __future__ import annotations

from pathlib import Path

import pytest

import affray
from affray.data.scenario import prepare_build

SPELLS = '''
[spells.ice_lance]
type = "cold"
shape = "bolt"
damage = "12"
save = "none"
range = 6

[world.casting]
mana = true
'''
MONSTERS = '''
[creatures.troll]
npc = true
level = 12
hp = 90
mind = "brute"
wield = "long_sword"

[world]
move_wait = 3
'''
SCENARIO = '''
name = "pack"
pulses = 30
[map]
rows = ["........"]
[[creatures]]
id = "mage"
at = [0, 0]
mana = 50
[[creatures]]
id = "troll"
template = "troll"
at = [5, 0]
[[actions]]
actor = "mage"
cast = "ice_lance"
target = "troll"
'''


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "1_spells.toml").write_text(SPELLS, encoding="utf-8")
    (folder / "2_monsters.toml").write_text(MONSTERS, encoding="utf-8")
    return folder


def test_files_layer_over_the_defaults_in_order(pack: Path):
    content = affray.load_content(pack / "1_spells.toml", pack / "2_monsters.toml")
    assert content.spells["ice_lance"].damage == "12"
    assert content.creatures["troll"].hp == 90
    assert "fireball" in content.spells  # the defaults are still there
    # the second file's [world] is merged over the first's: casting.mana stays on
    assert content.world.casting.mana is True
    assert content.world.move_wait == 3
    assert affray.default_content().world.move_wait != 3  # the defaults are untouched


def test_a_later_file_replaces_an_entry_and_a_folder_reads_its_files_by_name(
        pack: Path, tmp_path: Path):
    later = tmp_path / "later.toml"
    later.write_text('[spells.ice_lance]\ntype = "cold"\nshape = "ray"\ndamage = "5"\n'
                     '[world]\nmove_wait = 4\n', encoding="utf-8")
    content = affray.load_content(pack, later)
    lance = content.spells["ice_lance"]
    assert (lance.shape, lance.damage, lance.range) == ("ray", "5", 8)  # whole entry
    assert content.world.move_wait == 4 and content.world.casting.mana is True


def test_a_scenario_builds_on_the_pack_and_its_inline_content_layers_on_top(
        pack: Path, tmp_path: Path):
    content = affray.load_content(pack)
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO + '[content.creatures.troll]\nnpc = true\nhp = 40\n',
                    encoding="utf-8")
    world = affray.load_scenario(path, content=content)
    try:
        assert world.snapshot()["creatures"]["troll"]["hp"] == 40  # inline wins
        assert world.content.world.casting.mana is True  # the pack's
        world.run()
        damage = [e for e in world.events if e.kind == "damage" and e.spell == "ice_lance"]
        assert damage and damage[0].target == "troll"
    finally:
        world.close()


def test_without_the_pack_the_scenario_names_the_missing_template(tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    with pytest.raises(affray.ScenarioError, match="unknown creature template 'troll'"):
        affray.load_scenario(path)


def test_a_save_keeps_every_layer_and_continues_the_same(pack: Path, tmp_path: Path):
    content = affray.load_content(pack)
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    world = affray.load_scenario(path, seed=4, content=content)
    other = affray.load_scenario(path, seed=4, content=content)
    try:
        world.run(pulses=3)
        world.save(str(tmp_path / "w.save"))
        loaded = affray.load_world(str(tmp_path / "w.save"))
        assert loaded.content.world.move_wait == 3
        assert loaded.content.spells["ice_lance"] == content.spells["ice_lance"]
        loaded.run()
        other.run()
        assert loaded.events == other.events
        loaded.close()
    finally:
        world.close()
        other.close()


def test_a_blueprint_builds_on_the_pack(pack: Path):
    from affray.data.scenario import parse_scenario

    content = affray.load_content(pack)
    spec, raw = parse_scenario(SCENARIO, "s.toml")
    blueprint = prepare_build(spec, raw, "s.toml", content)
    world = blueprint.build(seed=2)
    try:
        assert world.content.creatures["troll"].hp == 90
    finally:
        world.close()


@pytest.mark.parametrize("text, message", [
    ('[spells.bad]\ntype = "cold"\nshape = "blob"\n',
     r"bad\.toml: spells\.bad, field 'shape': Invalid enum value 'blob'"),
    ('[spells.bad]\ntype = "cold"\nshape = "bolt"\nrange = "far"\n',
     r"bad\.toml: spells\.bad, field 'range': Expected `int`"),
    ('[creatures.ghoul]\nwield = "no_such_sword"\n',
     r"bad\.toml: creatures\.ghoul, field 'wield': unknown item 'no_such_sword'"),
    ('[monsters.troll]\nhp = 3\n', r"bad\.toml: \[monsters\]: unknown content kind"),
    ('[map]\nrows = ["."]\n', r"bad\.toml: a scenario \(\[map\]\), not a content file"),
    ('[spells\n', r"bad\.toml: not valid TOML"),
])
def test_bad_content_names_the_file_the_entry_and_the_field(tmp_path: Path, text, message):
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(affray.ContentError, match=message):
        affray.load_content(bad)


def test_a_file_may_use_what_the_files_before_it_define(pack: Path, tmp_path: Path):
    uses = tmp_path / "uses.toml"
    uses.write_text('[minds.lancer]\nspells = ["ice_lance"]\ncast_chance = 50\n',
                    encoding="utf-8")
    assert affray.load_content(pack / "1_spells.toml", uses).minds["lancer"].spells == (
        "ice_lance",)
    with pytest.raises(affray.ContentError, match=r"uses\.toml: minds\.lancer, field "
                                                  r"'spells': unknown spell 'ice_lance'"):
        affray.load_content(uses, pack / "1_spells.toml")


def test_missing_files_and_wrong_arguments(tmp_path: Path):
    with pytest.raises(affray.ContentError, match=r"nothing\.toml: cannot read"):
        affray.load_content(tmp_path / "nothing.toml")
    with pytest.raises(affray.ContentError, match=r"a folder with no \.toml file"):
        affray.load_content(tmp_path)
    with pytest.raises(affray.UsageError, match="a path must be a str or Path"):
        affray.load_content(3)  # type: ignore[arg-type]
    with pytest.raises(affray.UsageError, match="content must be a Content"):
        affray.load_scenario(tmp_path / "x.toml", content={"spells": {}})  # type: ignore
    assert affray.load_content() is affray.default_content()
