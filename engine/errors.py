"""The errors affray raises: one base class, one subclass per kind of bad input.

A game catches `AffrayError` to handle everything the engine refuses; the subclasses say
whose fault it was (content, scenario, action, save). Messages name the file, the entry
and the field (SPEC R-ENG-1).
"""

from __future__ import annotations


class AffrayError(Exception):
    """Base of every error the engine raises on purpose."""


class ContentError(AffrayError):
    """A content definition (TOML in content/ or inline in a scenario) is invalid."""


class ScenarioError(AffrayError):
    """A scenario file is invalid: map, creatures, items, actions."""


class ActionError(AffrayError):
    """An action was refused at submit; the world is unchanged (R-ENG-2)."""


class SaveError(AffrayError):
    """A save file is unreadable, truncated, altered or of an unknown version (R-ENG-3)."""


class NotYetError(AffrayError, NotImplementedError):
    """A public entry point whose implementation lands with a later issue."""
