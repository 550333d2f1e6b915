"""affray: an entity-component-system grid combat engine.

    import affray
    world = affray.load_scenario("lake.toml", seed=7)
    world.run()
    for event in world.events:
        print(event.to_dict())

The public API is SCENARIO.md's: `load_scenario`, `World` (run, tick, submit, events,
snapshot, save), `load_world`, `batch` (and `sweep`, `balance`, `Tables`:
docs/balancing.md), the actions `Attack`, `Cast`, `Move`, and the errors `AffrayError`,
`ContentError`, `ScenarioError`, `ActionError`, `SaveError`, `HookError`, and
`VictimDeath`, the signal a killing `World.damage` raises (SPEC R-DMG-2).
"""

from affray.core.actions import Attack, Cast, Close, Flee, Move, Open
from affray.core.errors import (
    ActionError,
    AffrayError,
    ClosedWorldError,
    ContentError,
    HookError,
    SaveError,
    ScenarioError,
    UnknownCreatureError,
    UsageError,
)
from affray.core.world import World, register_system, registered_systems, unregister_system
from affray.data.armies import army
from affray.data.content_loader import Content, default_content, load_content
from affray.data.save import load_world
from affray.data.scenario import builtin_scenario, load_scenario
from affray.runners.balancing import balance, sweep
from affray.runners.batch import Tables, batch
from affray.systems.rules.hit import VictimDeath
from affray.systems.rules.minds import register_mind, registered_minds, unregister_mind

__version__ = "0.1.0"

__all__ = [
    "ActionError",
    "AffrayError",
    "Attack",
    "Cast",
    "Close",
    "ClosedWorldError",
    "Content",
    "ContentError",
    "Flee",
    "HookError",
    "Move",
    "Open",
    "SaveError",
    "ScenarioError",
    "Tables",
    "UnknownCreatureError",
    "UsageError",
    "VictimDeath",
    "World",
    "__version__",
    "army",
    "balance",
    "batch",
    "builtin_scenario",
    "default_content",
    "load_content",
    "load_scenario",
    "load_world",
    "register_mind",
    "register_system",
    "registered_minds",
    "registered_systems",
    "sweep",
    "unregister_mind",
    "unregister_system",
]
