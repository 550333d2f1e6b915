"""Registries a game extends without patching a pipeline (R-PROT-8, R-MELEE-5, R-DEF-6).

- `Steps`: an ordered list of named functions (the protections, the defence chain): add,
  remove, or reorder a step by name.
- `Rules`: one world's registries: protection steps, defence steps, damage modifiers for
  "all melee" and "all damage", and hooks (on-immune, pre-damage, post-damage, on-fight)
  keyed by what they belong to (a creature id, a template, an affect, a worn item).

Rules are code, not data: a save does not hold them. A game that registers its own passes
the same registrations to a loaded world (`World.rules`).

Registration is checked at once (UsageError): a hook kind, an owner kind and name the
world knows (a creature id, a template, an affect, an item from content), a callable. A
hook that raises inside a tick becomes a `HookError` naming it (`call_hook`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affray.core.errors import HookError, UsageError

if TYPE_CHECKING:
    from affray.core.world import World

F = TypeVar("F", bound=Callable[..., Any])

# Who a hook belongs to: ("creature", id), ("template", name), ("affect", name),
# ("item", name), or ("all", "") for every creature.
Owner = tuple[str, str]
HOOK_KINDS = ("on_immune", "pre_damage", "post_damage", "on_fight", "on_saves")
OWNER_KINDS = ("creature", "template", "affect", "item", "all")


def _check_callable(what: str, function: object) -> None:
    if not callable(function):
        raise UsageError(f"{what} must be callable, got {function!r}")


class Steps(Generic[F]):
    """An ordered registry of named steps."""

    __slots__ = ("_names", "_pairs", "_steps")

    def __init__(self, steps: list[tuple[str, F]] | None = None) -> None:
        self._names: list[str] = []
        self._steps: list[F] = []
        self._pairs: tuple[tuple[str, F], ...] = ()
        for name, step in steps or []:
            self.add(name, step)

    def _changed(self) -> None:
        # The (name, step) pairs are read on every blow: build them once per change.
        self._pairs = tuple(zip(self._names, self._steps, strict=True))

    def add(self, name: str, step: F, *, before: str | None = None,
            after: str | None = None) -> None:
        """Add a step at the end, or before / after the step named."""
        _check_callable(f"step {name!r}", step)
        if name in self._names:
            raise UsageError(f"a step named {name!r} is already registered")
        if before is not None and after is not None:
            raise UsageError("give before or after, not both")
        index = len(self._names)
        if before is not None:
            index = self._index(before)
        elif after is not None:
            index = self._index(after) + 1
        self._names.insert(index, name)
        self._steps.insert(index, step)
        self._changed()

    def remove(self, name: str) -> F:
        """Remove the named step and return it."""
        index = self._index(name)
        del self._names[index]
        step = self._steps.pop(index)
        self._changed()
        return step

    def replace(self, name: str, step: F) -> None:
        """Swap the function of a named step, keeping its place."""
        _check_callable(f"step {name!r}", step)
        self._steps[self._index(name)] = step
        self._changed()

    def reorder(self, names: list[str]) -> None:
        """Put the steps in this order (every current name exactly once)."""
        if sorted(names) != sorted(self._names):
            raise UsageError(f"reorder needs exactly the steps {self._names}")
        by_name = dict(zip(self._names, self._steps, strict=True))
        self._names = list(names)
        self._steps = [by_name[name] for name in names]
        self._changed()

    def _index(self, name: str) -> int:
        try:
            return self._names.index(name)
        except ValueError:
            raise KeyError(f"no step named {name!r}; steps: {self._names}") from None

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def __iter__(self) -> Iterator[F]:
        return iter(self._steps)

    def items(self) -> tuple[tuple[str, F], ...]:
        """(name, step) pairs in order (a tuple built once per change)."""
        return self._pairs

    def copy(self) -> Steps[F]:
        """An independent registry with the same steps (its names are known unique)."""
        steps: Steps[F] = Steps.__new__(Steps)
        steps._names = list(self._names)
        steps._steps = list(self._steps)
        steps._pairs = self._pairs  # a tuple: shared until either changes
        return steps


@dataclass(slots=True)
class Rules:
    """One world's protection steps, defence steps, modifiers and hooks."""

    protections: Steps[Any]
    defences: Steps[Any]
    all_melee: list[Callable[..., None]] = field(default_factory=list)
    all_damage: list[Callable[..., None]] = field(default_factory=list)
    hooks: dict[str, dict[Owner, list[Callable[..., Any]]]] = field(
        default_factory=lambda: {kind: {} for kind in HOOK_KINDS})
    # The world these rules belong to (a weak reference: `bind`), for checking owners'
    # names at registration; None for rules not yet given to a world.
    world_ref: Any = field(default=None, repr=False, compare=False)

    def bind(self, world: World) -> None:
        """Belong to `world`: owners are checked against its creatures and content."""
        self.world_ref = weakref.ref(world)

    def add_modifier(self, scope: str, modifier: Callable[..., None]) -> None:
        """Register a damage modifier for "melee" (every blow) or "damage" (every hit of
        either pipeline); each applies exactly once per blow or hit (R-MELEE-5)."""
        _check_callable("a modifier", modifier)
        if scope == "melee":
            self.all_melee.append(modifier)
        elif scope == "damage":
            self.all_damage.append(modifier)
        else:
            raise UsageError(f"modifier scope must be 'melee' or 'damage', not {scope!r}")

    def add_hook(self, kind: str, owner: Owner, hook: Callable[..., Any]) -> None:
        """Register a hook of `kind` for `owner` (see Owner). Refused at once
        (UsageError) for an unknown kind, an owner the world does not know (a creature
        id not in it, a template, affect or item not in its content) or a hook that is
        not callable: a typo would otherwise never fire."""
        if kind not in HOOK_KINDS:
            raise UsageError(f"hook kind must be one of {HOOK_KINDS}, not {kind!r}")
        self._check_owner(owner)
        _check_callable(f"the {kind} hook for {owner!r}", hook)
        self.hooks[kind].setdefault(tuple(owner), []).append(hook)  # type: ignore[arg-type]

    def _check_owner(self, owner: object) -> None:
        if (not isinstance(owner, tuple | list) or len(owner) != 2
                or not all(isinstance(part, str) for part in owner)):
            raise UsageError(f"a hook owner is a (kind, name) pair of strings such as "
                             f"('template', 'troll'), got {owner!r}")
        owner_kind, name = owner
        if owner_kind not in OWNER_KINDS:
            raise UsageError(f"unknown hook owner kind {owner_kind!r}; one of {OWNER_KINDS}")
        if owner_kind == "all":
            if name:
                raise UsageError(f"an ('all', '') owner takes no name, got {name!r}")
            return
        world = self.world_ref() if self.world_ref is not None else None
        if world is None:
            return
        known: Any = {"creature": world.by_id, "template": world.content.creatures,
                      "affect": world.content.world.affects,
                      "item": world.content.items}[owner_kind]
        if name not in known:
            sample = ", ".join(sorted(known)[:8]) or "none"
            raise UsageError(f"hook owner {owner!r}: no {owner_kind} named {name!r} in "
                             f"this world (known: {sample}{', ...' if len(known) > 8 else ''})")

    def hooks_for(self, kind: str, owners: list[Owner]) -> list[Callable[..., Any]]:
        """The hooks of `kind` for these owners, in the owners' order."""
        table = self.hooks[kind]
        if not table:
            return []
        found: list[Callable[..., Any]] = []
        for owner in owners:
            found.extend(table.get(owner, ()))
        return found

    def owner_of(self, hook: Callable[..., Any]) -> str:
        """Who a registered function belongs to, for an error message."""
        for kind, table in self.hooks.items():
            for owner, hooks in table.items():
                if hook in hooks:
                    return f"{kind} hook of {owner!r}"
        if hook in self.all_melee:
            return "'melee' modifier"
        if hook in self.all_damage:
            return "'damage' modifier"
        for registry, steps in (("protection", self.protections), ("defence", self.defences)):
            for name, step in steps.items():
                if step is hook:
                    return f"{registry} step {name!r}"
        return "a registered function"

    def copy(self) -> Rules:
        return Rules(protections=self.protections.copy(), defences=self.defences.copy(),
                     all_melee=list(self.all_melee), all_damage=list(self.all_damage),
                     hooks={k: {o: list(v) for o, v in t.items()} for k, t in self.hooks.items()})


def hook_failed(world: World, hook: Callable[..., Any], error: Exception) -> HookError:
    """The HookError for a registered function that raised mid-tick: it names the hook,
    its owner and the pulse, and marks the world as left part-way through a pulse, so
    it refuses further ticks (World.tick) until rebuilt or loaded."""
    name = getattr(hook, "__qualname__", None) or repr(hook)
    message = (f"{name} ({world.rules.owner_of(hook)}) raised {type(error).__name__}: "
               f"{error} at pulse {world.pulse}")
    world.broken = message
    return HookError(message)
