"""The default content: the source game's data, the seeds' tables, our documented knobs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import affray
from affray.data.content_loader import default_content

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "dreamland"


def _reference_json(name: str):
    text = (REFERENCE / name).read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return json.loads(text)


@pytest.fixture(scope="module")
def content():
    return default_content()


def test_content_is_parsed_once_per_process(content):
    """Worlds share one parsed Content (ARCHITECTURE: parse once per process)."""
    assert default_content() is content
    with affray.load_scenario(affray.builtin_scenario("demo")) as world:
        assert world.content is content


def test_r_imm_1_damage_types_and_aliases(content):
    """R-IMM-1: the twenty types; electricity, necrotic and force are aliases."""
    assert len(content.damage.types) == 20
    assert content.damage_type("electricity") == "lightning"
    assert content.damage_type("necrotic") == "negative"
    assert content.damage_type("force") == "energy"
    assert content.damage_type("plasma") is None
    assert content.bit_of("none") is None and content.bit_of("harm") is None
    assert content.bit_of("electricity") == content.bit_of("lightning")
    assert len(content.bits) == 26  # summon A .. iron Z


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="needs ../shared/reference")
def test_materials_are_all_119_of_the_source(content):
    """content/materials.toml holds every material of material.json with its numbers."""
    source = _reference_json("material.json")
    assert len(content.materials) == len(source) == 119
    for row in source:
        material = content.materials[row["name"]]
        assert material.hardness == row["hardness"]
        assert material.burns == row["burns"]
        assert list(material.vuln) == row["vuln"].split()
        assert list(material.types) == row["type"].split()
    assert content.materials["iron"].family == "metal"
    assert content.materials["paper"].family == "paper"
    assert content.materials["leather"].family == "hide"
    assert content.materials["platinum"].acid_resist == 100  # indestructible


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="needs ../shared/reference")
def test_stat_tables_are_the_sources(content):
    """The str/int/wis/dex tables equal the source's, index = stat value 0..28."""
    for name, table in (("str_app.json", content.stats.str_), ("int_app.json", content.stats.int_),
                        ("wis_app.json", content.stats.wis), ("dex_app.json", content.stats.dex)):
        rows = _reference_json(name)
        assert len(rows) == 29
        for column in rows[0]:
            assert list(getattr(table, column)) == [row[column] for row in rows], (name, column)
    assert content.stats.dex.defensive[20] == -50


def test_professions_carry_thac_and_the_spell_level_flag(content):
    """Professions: thac00/thac32 and the caster/hybrid/agile/other flag from the source."""
    warrior = content.professions["warrior"]
    assert (warrior.thac00, warrior.thac32, warrior.flag) == (18, -10, "other")
    assert content.professions["witch"].flag == "caster"
    assert content.professions["paladin"].flag == "hybrid"
    assert content.professions["thief"].flag == "agile"
    assert (content.professions["mobile"].thac00, content.professions["mobile"].thac32) == (20, -4)


def test_r_loss_3_the_loss_table_is_the_seeds(content):
    """R-LOSS-3: the floor-loss rows and verbs of the spell-types seed, in order."""
    def rows(kind):
        return [(r.item_class or r.family, r.chance) for r in content.floor_loss[kind].rows]

    assert rows("acid") == [("coins", 0), ("scroll", 40), ("paper", 40), ("food", 40),
                            ("cloth", 35), ("hide", 25), ("wood", 20), ("bone", 15),
                            ("metal", 5)]
    assert rows("fire") == [("scroll", 50), ("paper", 40), ("wax", 50), ("cloth", 30),
                            ("food", 25), ("wood", 15), ("potion", 10)]
    assert rows("cold") == [("potion", 35), ("glass", 20)]
    assert rows("electricity") == [("scroll", 20), ("paper", 15)]
    assert rows("force") == [("potion", 30), ("glass", 30)]
    assert rows("necrotic") == [("food", 30)]
    assert content.floor_loss["cold"].verb_many == "freeze and shatter"
    assert content.item_class_is("corpse", "food")  # a corpse is a food


def test_statuses_have_the_spec_defaults(content):
    """Section 12 defaults live in content: durations, periods, per-degree amounts."""
    burning, poisoned = content.statuses["burning"], content.statuses["poisoned"]
    assert (burning.duration, burning.period, burning.damage_type) == (48, 4, "fire")
    assert (poisoned.duration, poisoned.period) == (120, 12)
    assert content.statuses["corroded"].hp_per_degree == 2
    assert content.statuses["sluggish"].evasion_floor == 0.5


def test_fight_and_saves_configs_load_with_their_knobs(content):
    """The fight config (armor model on by default, R-HIT-10) and saves config (model 0)."""
    assert content.fight.model == "armor"
    assert content.fight.round_pulses == 12
    assert content.fight.critical_multiplier == (3, 2)
    assert content.fight.defence.order == ("bat_swarm", "shield_block", "blink", "cross_block",
                                           "parry", "hand_block", "dodge")
    assert content.saves.model == 0
    assert content.saves.model1.tau == 0.45


def test_a_creature_takes_its_templates_fields_and_overrides_them(make_world):
    """A scenario creature's own fields win over its template's."""
    from affray.components import Defense, Equipment, Level, Stats, Vitals

    world = make_world("[map]\nrows = ['...']\n[[creatures]]\nid = 'w'\nat = [0, 0]\n"
                       "template = 'human_warrior'\nlevel = 30\nstats = { str = 21 }\n")
    assert world.component("w", Level).level == 30
    # hp follows the level (content/levels.toml): 180 at 20 x 656/392 at 30 = 301.2
    assert world.component("w", Vitals).hp == 301
    assert world.component("w", Stats).strength == 21
    assert world.component("w", Stats).constitution == 18
    equipment = world.component("w", Equipment)
    assert equipment.wield == "long_sword"
    assert [piece.item for piece in equipment.worn] == ["chain_mail", "wooden_shield"]
    assert world.component("w", Defense).armor_bash == 0  # its own; worn pieces add at a blow


def test_the_limits_in_content_are_the_code_s_defaults_and_fit_their_arrays(content):
    """R-ENG-1: content/world.toml's [world.limits] restates LimitsConfig's defaults
    (a World built without the file gets the same bounds), and each is within what holds
    the numbers it bounds (defs.HARD_LIMITS, else 2**31 - 1)."""
    import msgspec

    from affray.data.defs import HARD_LIMITS, INT32_MAX, LimitsConfig

    assert content.world.limits == LimitsConfig()
    for field in msgspec.structs.fields(LimitsConfig):
        value = getattr(content.world.limits, field.name)
        assert 1 <= value <= HARD_LIMITS.get(field.name, (INT32_MAX, ""))[0], field.name
    assert content.world.limits.max_creatures >= 100_000  # the big battles of issue 12
