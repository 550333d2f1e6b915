"""Shared fixtures: small worlds built from inline scenario text.

Tests run against the installed package (`import affray`), never the source folders.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import affray
from affray.scenario import build_world, parse_scenario

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
