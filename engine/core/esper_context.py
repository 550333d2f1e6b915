"""esper's current world, kept as the caller left it.

esper 3 keeps one global "current world": `esper.switch_world(name)` swaps every module
global its functions read. Each affray World owns a context of its own and must switch
to it to do anything, but a game that embeds affray may keep its own esper world for
its own entities: after any affray call, esper's current world is again the one the
caller had (docs/api.md, "esper's current world").

`entry_point` wraps a World method: it switches to the world's context for the call and
back after it; a call made from inside another (run calling tick, a hook calling
`world.damage` in a tick) finds the context current and costs one comparison.
`keeps_esper_world` wraps a module function that makes or reads worlds
(`load_scenario`, `load_world`, `batch`...).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import esper

CONTEXT_PREFIX = "affray-world-"

P = ParamSpec("P")
R = TypeVar("R")


def restore(previous: str) -> None:
    """Make `previous` esper's current world again. An affray context closed since (a
    world closed during the call) is not brought back to life: "default" instead."""
    if esper.current_world == previous:
        return
    if previous.startswith(CONTEXT_PREFIX) and previous not in esper.list_worlds():
        previous = "default"
    esper.switch_world(previous)


def keeps_esper_world(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator: esper's current world after the call is the one before it."""

    @functools.wraps(function)
    def kept(*args: P.args, **kwargs: P.kwargs) -> R:
        previous = esper.current_world
        try:
            return function(*args, **kwargs)
        finally:
            restore(previous)

    kept.keeps_esper_world = True  # type: ignore[attr-defined]
    return kept


def entry_point(method: Callable[P, R]) -> Callable[P, R]:
    """Decorator of a World method: run it in the world's esper context (ClosedWorldError
    after `close()`), then give the caller back its own current world."""

    @functools.wraps(method)
    def entered(*args: P.args, **kwargs: P.kwargs) -> R:
        world: Any = args[0]
        previous = esper.current_world
        if previous == world.context:
            return method(*args, **kwargs)
        world.enter()
        try:
            return method(*args, **kwargs)
        finally:
            restore(previous)

    entered.keeps_esper_world = True  # type: ignore[attr-defined]
    return entered
