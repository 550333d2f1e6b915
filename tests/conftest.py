"""Shared fixtures: small worlds built from inline scenario text.

Tests run against the installed package (`import affray`), never the source folders.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

import affray
from affray.data.scenario import build_world, parse_scenario

ROOT = Path(__file__).resolve().parent.parent


def world_from_text(text: str, seed: int | None = None,
                    source: str = "test.toml") -> affray.World:
    """Build a World from scenario TOML text (validated like a file)."""
    spec, raw = parse_scenario(text, source)
    return build_world(spec, raw, source, seed=seed)


@pytest.fixture
def make_world() -> Iterator:
    """Factory fixture: build worlds from TOML text and close them after the test."""
    made: list[affray.World] = []

    def factory(text: str, seed: int | None = None) -> affray.World:
        world = world_from_text(text, seed=seed)
        made.append(world)
        return world

    yield factory
    for world in made:
        world.close()


def four_sigma(p: float, n: int) -> float:
    """Four binomial standard deviations of a rate measured over n trials: the
    tolerance of every statistical test (a fixed seed fails it about 1 time in 16,000)."""
    return 4.0 * math.sqrt(p * (1.0 - p) / n)


def duel_text(attacker: str = "", victim: str = "", extra: str = "") -> str:
    """A 5x3 room with creature "a" at [1, 1] and "v" at [2, 1] (beside it).

    `attacker` and `victim` are extra TOML lines for each creature's table.
    """
    return (
        'name = "duel"\n[map]\nrows = [".....", ".....", "....."]\n'
        f'[[creatures]]\nid = "a"\nat = [1, 1]\n{attacker}\n'
        f'[[creatures]]\nid = "v"\nat = [2, 1]\n{victim}\n{extra}'
    )


@pytest.fixture
def duel(make_world):
    """Factory: a world with attacker "a" beside victim "v" (see duel_text)."""

    def factory(attacker: str = "", victim: str = "", extra: str = "",
                seed: int | None = None) -> affray.World:
        return make_world(duel_text(attacker, victim, extra), seed=seed)

    return factory


def standoff_text(attacker: str = "", victim: str = "", extra: str = "") -> str:
    """A 6x3 room with caster "a" at [0, 1] and "v" at [3, 1]: in range of every ranged
    spell, too far apart for melee (R-MELEE-2), so a victim a spell rouses never fights
    back and a test's pinned draws meet no blow."""
    return (
        'name = "standoff"\n[map]\nrows = ["......", "......", "......"]\n'
        f'[[creatures]]\nid = "a"\nat = [0, 1]\n{attacker}\n'
        f'[[creatures]]\nid = "v"\nat = [3, 1]\n{victim}\n{extra}'
    )


@pytest.fixture
def standoff(make_world):
    """Factory: a world with caster "a" two cells clear of victim "v" (standoff_text)."""

    def factory(attacker: str = "", victim: str = "", extra: str = "",
                seed: int | None = None) -> affray.World:
        return make_world(standoff_text(attacker, victim, extra), seed=seed)

    return factory


def make_hit(world: affray.World, dam: int, damage_type: str = "fire", *,
             flags: tuple[str, ...] = ("spell", "magic"), melee: bool = False,
             source: str | None = "a", victim: str = "v"):
    """A Hit from creature `source` on `victim`, ready for protection steps."""
    from affray.systems.rules.hit import Hit
    from affray.systems.rules.immunity import flags_of

    return Hit(source=world.sheet(source) if source else None, victim=world.sheet(victim),
               dam=dam, damage_type=world.content.damage_type(damage_type), flags=flags_of(flags),
               melee=melee, cause="melee" if melee else "spell")


def fixed_blow(world: affray.World, dam: int = 12) -> dict:
    """One landed melee blow of "a" on "v" whose damage before protections is exactly
    `dam` (a melee modifier sets it and drops criticals); the event it logged."""
    from affray.systems.rules.blow import one_hit

    def fix(hit, w):
        hit.dam = dam
        hit.critical = False

    world.rules.add_modifier("melee", fix)
    for _ in range(30):
        start = len(world.events)
        one_hit(world, world.sheet("a"), world.sheet("v"))
        event = world.events[start].to_dict()
        if event["kind"] != "miss":
            return event
    raise AssertionError("no blow landed in 30 tries")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "run_last: run after every other test (test_skip.py "
                                       "replays the scenarios the suite parsed)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked run_last go to the end, in their order (a stable sort)."""
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)


def last_event(world: affray.World):
    """The last event of the log before any `fight` events after it: a hit's own event
    when R-ACT-1 logged the victim's engagement right after it."""
    for event in reversed(world.events):
        if event.kind != "fight":
            return event
    raise AssertionError("the log holds no event but fights")
