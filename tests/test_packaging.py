"""Packaging: the installed distribution is `affray` and only `affray`, with its content.

The source folders (engine/, systems/, components/, content/) are mapped onto the
`affray` package at install; a user's program must not be able to import them under
their folder names, and the TOML content must be reachable from the installed package.
The checks that import run in a fresh interpreter whose working directory is an empty
temporary folder, so the checkout is not on sys.path (as for a user of the package).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import affray

ROOT = Path(__file__).resolve().parent.parent

CONTENT_FILES = {"creatures.toml", "damage.toml", "fight.toml", "floor_loss.toml",
                 "gear.toml", "items.toml", "materials.toml", "professions.toml",
                 "saves.toml", "spells.toml", "stats.toml", "statuses.toml", "world.toml"}


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `python -c code` in `cwd`, with no PYTHONPATH, so only installed packages
    (and cwd itself) can be imported."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("name", ["engine", "systems", "components", "content"])
def test_source_folder_names_are_not_importable(tmp_path, name):
    """The folder names of the checkout are not packages of the install."""
    result = run_python(f"import {name}", tmp_path)
    assert result.returncode == 1
    assert f"ModuleNotFoundError: No module named '{name}'" in result.stderr


def test_affray_and_its_subpackages_import_from_the_install(tmp_path):
    """affray, affray.components, affray.systems and affray.content import outside the
    checkout, and the schedule is reachable through them."""
    code = """
import json, sys
import affray, affray.components, affray.systems, affray.content
print(json.dumps({
    "version": affray.__version__,
    "schedule": [s.name for s in affray.systems.SCHEDULE],
    "has_components": hasattr(affray.components, "COMPONENTS"),
    "cwd_empty": not any(__import__("os").scandir(".")),
    "leaked": sorted(m for m in ("engine", "systems", "components", "content")
                     if m in sys.modules),
}))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {
        "version": affray.__version__,
        "schedule": ["Pulse", "Stun", "Melee", "Spell", "Arc", "Burst", "FloorItemLoss",
                     "Terrain"],
        "has_components": True,
        "cwd_empty": True,
        "leaked": [],
    }


def test_content_is_reachable_through_importlib_resources(tmp_path):
    """The content TOML files (and the built-in scenarios) ship inside affray.content."""
    code = """
import json
from importlib import resources
root = resources.files("affray.content")
print(json.dumps({
    "files": sorted(p.name for p in root.iterdir() if p.name.endswith(".toml")),
    "scenarios": sorted(p.name for p in (root / "scenarios").iterdir()
                        if p.name.endswith(".toml")),
    "demo_has_map": "[map]" in (root / "scenarios" / "demo.toml").read_text("utf-8"),
}))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report["files"]) >= CONTENT_FILES
    assert "demo.toml" in report["scenarios"]
    assert report["demo_has_map"] is True


def test_every_content_file_of_the_checkout_is_shipped():
    """Every TOML in the checkout's content/ (and content/scenarios/) is in the package,
    byte for byte: none is left out of the package data."""
    root = resources.files("affray.content")
    for folder, package_folder in ((ROOT / "content", root),
                                   (ROOT / "content" / "scenarios", root / "scenarios")):
        names = {p.name for p in folder.glob("*.toml")}
        assert names, folder
        shipped = {p.name for p in package_folder.iterdir() if p.name.endswith(".toml")}
        assert shipped == names
        for name in names:
            assert (package_folder / name).read_bytes() == (folder / name).read_bytes()


def test_builtin_scenario_is_the_shipped_demo():
    """affray.builtin_scenario("demo") is the package's scenarios/demo.toml and loads."""
    path = affray.builtin_scenario("demo")
    shipped = resources.files("affray.content") / "scenarios" / "demo.toml"
    assert path.read_bytes() == shipped.read_bytes()
    world = affray.load_scenario(path)
    try:
        assert world.name == "pond skirmish"
    finally:
        world.close()
    with pytest.raises(affray.ScenarioError, match="no built-in scenario named 'nope'"):
        affray.builtin_scenario("nope")


PUBLIC_NAMES = ["load_scenario", "load_world", "batch", "Attack", "Cast", "Move", "World",
                "AffrayError", "ContentError", "ScenarioError", "ActionError", "SaveError"]


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_public_api_names_exist(name):
    """SCENARIO.md's Python API names are attributes of `affray` and in its __all__."""
    assert hasattr(affray, name)
    assert name in affray.__all__


@pytest.mark.parametrize("name", ["ContentError", "ScenarioError", "ActionError",
                                  "SaveError"])
def test_errors_subclass_affray_error(name):
    """Every error kind is an AffrayError, so `except affray.AffrayError` catches all."""
    error = getattr(affray, name)
    assert issubclass(error, affray.AffrayError)
    assert error is not affray.AffrayError
    assert issubclass(affray.AffrayError, Exception)
    with pytest.raises(affray.AffrayError, match="named thing"):
        raise error("named thing")


def test_actions_take_the_contract_keywords():
    """Attack(actor, target), Cast(actor, spell, target, via="mana"), Move(actor, to)."""
    attack = affray.Attack(actor="mage", target="kobold")
    cast = affray.Cast(actor="mage", spell="spark", target=(4, 2))
    move = affray.Move(actor="mage", to=(2, 1))
    assert (attack.actor, attack.target) == ("mage", "kobold")
    assert (cast.actor, cast.spell, cast.target, cast.via) == ("mage", "spark", (4, 2), "mana")
    assert affray.Cast(actor="m", spell="spark", target="k", via="wand").via == "wand"
    assert (move.actor, move.to) == ("mage", (2, 1))
    world_methods = ("run", "tick", "submit", "snapshot", "save")
    assert all(callable(getattr(affray.World, method)) for method in world_methods)
