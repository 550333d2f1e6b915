"""Bad input is rejected at load, naming the file, the entry and the field (R-ENG-1)."""

from __future__ import annotations

import pytest

import affray
from affray.data.content_loader import check_file

HEAD = 'name = "bad"\n[map]\nrows = ["#####", "#...#", "#####"]\n'
MAGE = '[[creatures]]\nid = "mage"\nat = [1, 1]\n'


def _load(tmp_path, text: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return affray.load_scenario(path), str(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an unknown spell in an action
        (HEAD + MAGE + '[[actions]]\nactor = "mage"\ncast = "fireblast"\ntarget = [2, 1]\n',
         ["action of 'mage' (actions[0])", "field 'cast'", "unknown spell 'fireblast'"]),
        # an unknown item
        (HEAD + '[[items]]\nat = [1, 1]\nitem = "excalibur"\n',
         ["item 'excalibur' (items[0])", "field 'item'", "unknown item"]),
        # an unknown material in inline content
        (HEAD + '[content.items.rag]\nclass = "trash"\nmaterial = "unobtainium"\n',
         ["content.items.rag", "field 'material'", "unknown material 'unobtainium'"]),
        # an unknown damage type in an inline spell
        (HEAD + '[content.spells.zap]\ntype = "plasma"\nshape = "bolt"\n',
         ["spells.zap", "field 'type'", "unknown damage type 'plasma'"]),
        # an unknown shape
        (HEAD + '[content.spells.zap]\ntype = "fire"\nshape = "spiral"\n',
         ["content.spells.zap", "field 'shape'"]),
        # a wrong type
        (HEAD + '[[creatures]]\nid = "mage"\nat = [1, 1]\nlevel = "high"\n',
         ["creature 'mage' (creatures[0])", "field 'level'", "Expected `int`"]),
        # a creature off the map
        (HEAD + '[[creatures]]\nid = "mage"\nat = [9, 1]\n',
         ["creature 'mage' (creatures[0])", "field 'at'", "off the map"]),
        # a creature on a wall
        (HEAD + '[[creatures]]\nid = "mage"\nat = [0, 0]\n',
         ["creature 'mage' (creatures[0])", "field 'at'", "wall"]),
        # a duplicate id
        (HEAD + MAGE + '[[creatures]]\nid = "mage"\nat = [2, 1]\n',
         ["creature 'mage'", "field 'id'", "duplicate id"]),
        # an unknown field
        (HEAD + '[[creatures]]\nid = "mage"\nat = [1, 1]\nstamina = 5\n',
         ["creature 'mage' (creatures[0])", "unknown field `stamina`"]),
        # an unknown damage type in imm
        (HEAD + '[[creatures]]\nid = "mage"\nat = [1, 1]\nimm = ["plasma"]\n',
         ["field 'imm'", "'plasma'"]),
        # an unknown template
        (HEAD + '[[creatures]]\nid = "mage"\nat = [1, 1]\ntemplate = "dragon"\n',
         ["field 'template'", "'dragon'"]),
        # an action target out of bounds
        (HEAD + MAGE + '[[actions]]\nactor = "mage"\ncast = "spark"\ntarget = [40, 1]\n',
         ["actions[0]", "field 'target'", "out of bounds"]),
        # an unknown map symbol
        (HEAD.replace("#...#", "#.?.#"), ["map.rows[1]", "'?'"]),
        # ragged rows
        (HEAD.replace("#...#", "#..#"), ["map.rows[1]", "length 4"]),
        # an unknown content kind
        (HEAD + '[content.wizards.merlin]\nlevel = 3\n', ["content.wizards", "unknown"]),
        # a status degree in the wrong form
        (HEAD + '[[creatures]]\nid = "mage"\nat = [1, 1]\nstatuses = { frozen = 1 }\n',
         ["field 'statuses'", "unknown status 'frozen'"]),
        # not TOML at all
        ("name = \n", ["not valid TOML"]),
        # fighting someone who is not there
        (HEAD + MAGE.replace('at = [1, 1]', 'at = [1, 1]\nfighting = "ghost"'),
         ["field 'fighting'", "'ghost'"]),
    ],
)
def test_r_eng_1_bad_scenarios_name_file_entry_and_field(tmp_path, text, expected):
    """R-ENG-1: a bad scenario raises before anything runs; the message names the file,
    the entry and the field."""
    with pytest.raises((affray.ScenarioError, affray.ContentError)) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert str(tmp_path / "bad.toml") in message
    for part in expected:
        assert part in message, message


def test_r_eng_1_errors_are_affray_errors(tmp_path):
    """R-ENG-1: both kinds subclass AffrayError, so a game can catch one base class."""
    with pytest.raises(affray.AffrayError):
        _load(tmp_path, HEAD + '[[items]]\nat = [1, 1]\nitem = "excalibur"\n')
    with pytest.raises(affray.ScenarioError, match="cannot read"):
        affray.load_scenario(tmp_path / "missing.toml")


def test_r_eng_1_bad_content_file_names_file_entry_and_field(tmp_path):
    """R-ENG-1: a content file (affray check) is validated the same way."""
    path = tmp_path / "extra.toml"
    path.write_text('[materials.goo]\nfamily = "organic"\nhardness = "soft"\n')
    with pytest.raises(affray.ContentError) as caught:
        check_file(path)
    assert str(path) in str(caught.value)
    assert "materials.goo" in str(caught.value)
    assert "field 'hardness'" in str(caught.value)
    path.write_text('[materials.goo]\nfamily = "organic"\nvuln = ["jelly"]\n')
    with pytest.raises(affray.ContentError, match=r"materials.goo, field 'vuln'.*'jelly'"):
        check_file(path)
    path.write_text('[items.blob]\nclass = "trash"\nmaterial = "goo"\n')
    with pytest.raises(affray.ContentError, match=r"items.blob, field 'material'"):
        check_file(path)


def test_r_eng_1_a_failed_load_leaves_no_world_behind(tmp_path):
    """R-ENG-1: nothing runs and nothing is left: the half-built esper context is gone."""
    import esper

    before = set(esper.list_worlds())
    with pytest.raises(affray.ScenarioError):
        _load(tmp_path, HEAD + MAGE + '[[creatures]]\nid = "x"\nat = [0, 0]\n')
    import gc

    gc.collect()
    assert set(esper.list_worlds()) <= before | {"default"}


def test_inline_content_layers_over_the_defaults(make_world):
    """Inline [content.<kind>.<name>] adds definitions and overrides config knobs."""
    world = make_world(HEAD + MAGE + """
[content.spells.test_bolt]
type = "electricity"
shape = "bolt"
range = 3
damage = "20"
beats = 5

[content.world]
move_wait = 3
""")
    assert world.content.spells["test_bolt"].range == 3
    assert world.content.damage_type(world.content.spells["test_bolt"].type) == "lightning"
    assert world.content.world.move_wait == 3
    assert world.content.world.ice_cm == 10  # untouched knobs keep their defaults
    assert "spark" in world.content.spells
    assert "test_bolt" not in affray.default_content().spells  # defaults are not mutated


@pytest.mark.parametrize(
    ("line", "field"),
    [("seed = -3", "field 'seed'"), ("pulses = -5", "field 'pulses'")],
)
def test_r_eng_1_out_of_range_scenario_numbers(tmp_path, line, field):
    """R-ENG-1: a negative seed or run length is rejected, naming the field."""
    with pytest.raises(affray.ScenarioError, match=field):
        _load(tmp_path, line + "\n" + HEAD)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [('stats = { str = 999 }', "str must be 0..50"), ("level = -1", "field 'level'"),
     ("npc_tier = 4", "field 'npc_tier'"), ("alignment = 2000", "field 'alignment'"),
     ('skills = { dodge = 150 }', "field 'skills'")],
)
def test_r_eng_1_out_of_range_creature_values(tmp_path, fields, expected):
    """R-ENG-1: out-of-range creature values are rejected at load."""
    with pytest.raises(affray.ScenarioError, match=expected):
        _load(tmp_path, HEAD + f'[[creatures]]\nid = "mage"\nat = [1, 1]\n{fields}\n')
