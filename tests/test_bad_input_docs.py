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


def _documented_calls(text: str) -> list[tuple[str, str, str]]:
    """(owner, name, arguments) of every backticked call in a table row's first cell:
    `World.damage(...)`, `affray.display.replay.record(...)`, and bare `name(...)` after an
    owner in the same cell (`World.add_affect(...)`, `remove_affect(...)`)."""
    calls = []
    for row in re.findall(r"^\| (.+?) \| ", text, re.M):
        owner = None
        for call in re.findall(r"`([\w.]+)\((.*?)\)(?: -> [^`]*)?`", row):
            dotted, args = call
            head, _, name = dotted.rpartition(".")
            if head:
                owner = head
            if owner is not None:
                calls.append((owner, name, args))
    return calls


def _resolve(owner: str, name: str):
    import importlib

    import affray.components
    import affray.core.grid
    import affray.display.replay

    owners = {"World": affray.World, "Grid": affray.core.grid.Grid,
              "Recorder": affray.display.replay.Recorder, "WaterBody": affray.components.WaterBody}
    if owner in owners:
        return getattr(owners[owner], name)
    return getattr(importlib.import_module(owner), name)


def test_every_documented_call_matches_its_signature():
    """docs/api.md's tables show calls as a game writes them: each documented argument
    exists, a positional one is positional in the code (the audit found `World.damage`
    documented with `cause` and `spell` positional while they are keyword-only, so the
    documented call raised a bare TypeError), and one written after `*` is keyword-only."""
    import ast
    import inspect

    checked = 0
    for doc in ("docs/api.md",):
        for owner, name, args in _documented_calls((ROOT / doc).read_text(encoding="utf-8")):
            target = _resolve(owner, name)
            parameters = [p for p in inspect.signature(target).parameters.values()
                          if p.name != "self"]
            documented = ast.parse(f"def f({args}): pass").body[0].args  # type: ignore[attr-defined]
            positional = [p for p in parameters
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            where = f"{doc}: {owner}.{name}({args})"
            for index, arg in enumerate(documented.args):
                assert index < len(positional), f"{where}: {arg.arg} is not positional"
                assert positional[index].name == arg.arg, f"{where}: {arg.arg} out of place"
            keyword = {p.name for p in parameters if p.kind != p.POSITIONAL_ONLY}
            for arg in documented.kwonlyargs:
                assert arg.arg in keyword, f"{where}: no keyword {arg.arg}"
            checked += 1
    assert checked >= 20
