"""The registry of component types, so saves can be generic over components.

Every component class is registered by name with `@component`. A save writes each
entity's components under their names; a load looks the names up here. A component added
in a later issue is saved and loaded with no new code (R-ENG-3).
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", bound=type)

COMPONENTS: dict[str, type] = {}


def component(cls: T) -> T:
    """Register a component class under its class name."""
    name = cls.__name__
    if name in COMPONENTS and COMPONENTS[name] is not cls:
        raise TypeError(f"component name {name!r} registered twice")
    COMPONENTS[name] = cls
    return cls
