"""The README stands alone (issue 10): its links point into the repository, its examples
run, and its two set-up commands are the exact ones CI and a new user type."""

from __future__ import annotations

import re
from pathlib import Path

import affray

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

SETUP = ('python3 -m venv .venv && . .venv/bin/activate && pip install . && affray demo',
         '. .venv/bin/activate && pip install ".[test]" && python -m pytest')


def test_the_two_setup_commands_are_exact():
    blocks = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert list(blocks[:2]) == list(SETUP)


def test_every_link_and_named_path_is_inside_the_repository():
    """No `../shared/...`: a clone has nothing outside itself. Markdown links and images
    and backticked docs/ paths must exist."""
    assert "../" not in README
    targets = re.findall(r"\]\(([^)#]+)\)", README)
    targets += re.findall(r"`(docs/[\w./-]+)`", README)
    for target in targets:
        if target.startswith("http"):
            continue
        assert (ROOT / target).exists(), target


def test_the_readme_scenario_example_loads_and_runs(tmp_path):
    example = re.search(r"```toml\n(.*?)```", README, re.S)
    assert example is not None
    path = tmp_path / "readme.toml"
    path.write_text(example.group(1), encoding="utf-8")
    with affray.load_scenario(path) as world:
        world.run()
        assert {"hero", "kobold"} <= set(world.creature_ids())
        assert any(event.kind == "moved" for event in world.events)


def test_builtin_scenario_is_described_as_a_path():
    """The README must not show `builtin_scenario("demo")` where a World is expected."""
    assert "or affray.builtin_scenario" not in README
    assert isinstance(affray.builtin_scenario("demo"), Path)


def test_the_readme_points_to_the_rules_page():
    assert "docs/rules.md" in README
