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


class UnknownCreatureError(ActionError, KeyError):
    """A creature id the world does not know, given to a World method. Also a KeyError
    (what a plain look-up raised before), so `except KeyError` still works."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class SaveError(AffrayError, OSError):
    """A save file is unreadable, unwritable, truncated, altered, malformed or of an
    unknown version (R-ENG-3). Also an OSError, so `except OSError` around file work
    still catches a save that cannot be written."""

    def __str__(self) -> str:
        # OSError formats (errno, strerror) pairs; a SaveError is always one message.
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class UsageError(AffrayError, TypeError, ValueError):
    """A Python API call with an argument of the wrong type or value (`run("x")`,
    `run(-1)`, `load_scenario(path, seed=-1)`). Also a TypeError and a ValueError, so
    code that caught those from the engine's internals before still catches it; the call
    changed nothing."""


class ClosedWorldError(AffrayError, RuntimeError):
    """A World was used after `close()`. Also a RuntimeError (what it raised before)."""


class HookError(AffrayError):
    """A game's hook, modifier or registered step raised inside a tick. The world was
    left part-way through the pulse (some systems ran, some did not), so it refuses
    further ticks until it is rebuilt or loaded from a save; the message names the
    hook, its owner and the pulse, and the hook's own exception is the `__cause__`."""
