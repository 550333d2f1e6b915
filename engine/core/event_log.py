"""`World.events`: the log of events, a list to its reader, columns until read.

A big battle logs one event per blow: 100,000 fighters write 100,000 events a round.
Built as Python objects as they happen, those events cost more than the round's whole
numpy work, and the garbage collector walks every one of them again and again as the
log grows. So the vectorised round (systems/rules/volley.py) appends a *lazy block*: a
stretch of events still held as the round's numpy columns. The block becomes event
objects the first time anything reads that part of the log, the same objects, in the
same order, with the same fields the scalar path writes (docs/decisions.md, "The event
log keeps big rounds as columns").

An `EventLog` does everything a list does (index, slice, iterate, `len`, `==` with a
list, `+`, append, extend, insert, del, pop, remove, clear, sort, reverse, copy, index,
count, `in`); reading any part that holds a block builds the objects of every pending
block first. What it is not is `list` itself: `isinstance(world.events, list)` is False
(it is a `collections.abc.MutableSequence`), and `list(world.events)` or
`world.events.copy()` gives a plain list, for `json.dumps` and the like.

How it is kept: one plain list, `_items`, where each lazy block sits as one placeholder
entry. `append` is that list's own bound method (the scalar pipeline appends an event
per blow: no Python frame in between). Reads of the part after the
last block, the one the engine itself reads during a tick, never build a block.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSequence
from typing import Any, NamedTuple, Protocol, SupportsIndex, overload


class LazySource(Protocol):
    """Whatever builds a round's events: `objects()` gives all of them, once."""

    def objects(self) -> list[Any]: ...


class LazyBlock:
    """Events `start:stop` of a source, not built yet: one placeholder in the log."""

    __slots__ = ("source", "start", "stop")

    def __init__(self, source: LazySource, start: int, stop: int) -> None:
        self.source = source
        self.start = start
        self.stop = stop

    def __len__(self) -> int:
        return self.stop - self.start

    def build(self) -> list[Any]:
        return self.source.objects()[self.start:self.stop]

    def __repr__(self) -> str:  # pragma: no cover - seen only when debugging
        return f"LazyBlock({self.start}:{self.stop})"


class Mark(NamedTuple):
    """A place in the log (`EventLog.mark()`): its length then, and its edit count, so a
    mark made before an edit of earlier events is refused rather than misread."""

    position: int
    edits: int


class EventLog(MutableSequence[Any]):
    """The world's events in order: a list to its reader (module docstring)."""

    # -- a game's cursor ---------------------------------------------------------------
    def mark(self) -> Mark:
        """Where the log ends now: `since(mark)` later gives what came after."""
        return Mark(len(self), self.edits)

    def since(self, mark: Mark) -> list[Any]:
        """The events logged after `mark`, in order (a new list). A mark from another
        log, or made before events already logged were edited or removed, is refused."""
        from affray.core.errors import UsageError

        if not isinstance(mark, Mark):
            raise UsageError(f"since: expected a mark from events.mark(), got {mark!r}")
        if mark.edits != self.edits or not 0 <= mark.position <= len(self):
            raise UsageError("since: the log was edited since this mark (cleared, "
                             "sorted, an event removed): make a new mark")
        return self[mark.position:]

    def __init__(self, events: Iterable[Any] = ()) -> None:
        self._items: list[Any] = list(events)
        self._hidden = 0          # events in blocks minus their placeholders
        self._first = -1          # index in _items of the first placeholder (-1: none)
        self._last = -1           # index in _items of the last placeholder
        # A counter of the edits that change events already logged (not appends): the
        # vectorised round's column cache reads it to know its view of the log holds.
        self.edits = 0
        self.append = self._items.append   # type: ignore[method-assign]

    # -- the lazy part -----------------------------------------------------------------
    def push_lazy(self, source: LazySource, start: int, stop: int) -> None:
        """Append events `start:stop` of `source`, built when first read. A block that
        follows the last one of the same source directly is merged into it."""
        if stop <= start:
            return
        items = self._items
        if self._last >= 0 and self._last == len(items) - 1:
            block = items[-1]
            if block.source is source and block.stop == start:
                block.stop = stop
                self._hidden += stop - start
                return
        if self._first < 0:
            self._first = len(items)
        self._last = len(items)
        items.append(LazyBlock(source, start, stop))
        self._hidden += stop - start - 1

    @property
    def pending(self) -> bool:
        """Whether some events are still columns (none built)."""
        return self._first >= 0

    def built(self) -> list[Any]:
        """The log as a plain list of event objects (its own list: do not keep it), every
        pending block built now."""
        items = self._items
        first = self._first
        if first >= 0:
            rest: list[Any] = []
            for entry in items[first:]:  # what precedes the first block stays as it is
                if type(entry) is LazyBlock:
                    rest.extend(entry.build())
                else:
                    rest.append(entry)
            items[first:] = rest  # the same list: `append` stays bound to it
            self._first = self._last = -1
            self._hidden = 0
        return items

    def entries(self) -> list[Any]:
        """The log as it stands, nothing built: event objects, and a `LazyBlock` for each
        stretch still held as columns (a copy of the list: for a reader that can sum a
        block's columns instead of building its events, as a pack's tally does)."""
        return list(self._items)

    def _tail_start(self) -> int:
        """The first log index after the last block (every index from here is built)."""
        return self._last + 1 + self._hidden

    # -- reading -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items) + self._hidden

    def __bool__(self) -> bool:
        return bool(self._items)

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if self._first < 0:
            return self._items[index]
        size = len(self._items) + self._hidden
        if isinstance(index, slice):
            start, stop, step = index.indices(size)
            tail = self._tail_start()
            if step == 1 and start >= tail:
                return self._items[start - self._hidden:max(start, stop) - self._hidden]
            if step == 1 and max(start, stop) <= self._first:
                return self._items[start:stop]
            return self.built()[index]
        if not hasattr(type(index), "__index__"):
            raise TypeError(f"list indices must be integers or slices, not "
                            f"{type(index).__name__}")
        i = index.__index__()
        if i < 0:
            i += size
        if 0 <= i < self._first:
            return self._items[i]
        if self._tail_start() <= i < size:
            return self._items[i - self._hidden]
        return self.built()[index]

    def __iter__(self) -> Iterator[Any]:
        """Every event in order, built; like a list's iterator, it goes on to events
        logged while it runs (a block pushed meanwhile is built before it is reached)."""
        items = self.built()
        done = 0
        while done < len(items):
            if self._first >= 0:
                self.built()
            stop = len(items)
            yield from items[done:stop]
            done = stop

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self.built())

    def __contains__(self, value: object) -> bool:
        return value in self.built()

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        items = self.built()
        return items.index(value, start, len(items) if stop is None else stop)

    def count(self, value: Any) -> int:
        return self.built().count(value)

    def copy(self) -> list[Any]:
        """A plain list of the events."""
        return list(self.built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog):
            return self.built() == other.built()
        if isinstance(other, list):
            return self.built() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        if not isinstance(other, list | EventLog):
            return NotImplemented
        return self.built() + list(other)

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        if not isinstance(other, list):
            return NotImplemented
        return other + self.built()

    def extend(self, values: Iterable[Any]) -> None:
        """Append each event (the log itself: its events as they are now, as a list)."""
        self._items.extend(list(self.built()) if values is self else values)

    def __iadd__(self, other: Iterable[Any]) -> EventLog:  # type: ignore[override]
        self.extend(other)
        return self

    def __mul__(self, times: SupportsIndex) -> list[Any]:
        return self.built() * times

    __rmul__ = __mul__

    def __imul__(self, times: SupportsIndex) -> EventLog:
        items = self._edit()
        items *= times
        return self

    def _compare_with(self, other: object) -> list[Any] | None:
        if isinstance(other, EventLog):
            return other.built()
        return other if isinstance(other, list) else None

    def __lt__(self, other: object) -> bool:
        theirs = self._compare_with(other)
        return NotImplemented if theirs is None else self.built() < theirs

    def __le__(self, other: object) -> bool:
        theirs = self._compare_with(other)
        return NotImplemented if theirs is None else self.built() <= theirs

    def __gt__(self, other: object) -> bool:
        theirs = self._compare_with(other)
        return NotImplemented if theirs is None else self.built() > theirs

    def __ge__(self, other: object) -> bool:
        theirs = self._compare_with(other)
        return NotImplemented if theirs is None else self.built() >= theirs

    def __repr__(self) -> str:
        return repr(self.built())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied as its built events (never its columns)."""
        return (EventLog, (list(self.built()),))

    # -- editing what is logged ----------------------------------------------------------
    def _edit(self) -> list[Any]:
        self.edits += 1
        return self.built()

    @overload
    def __setitem__(self, index: SupportsIndex, value: Any) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[Any]) -> None: ...

    def __setitem__(self, index: Any, value: Any) -> None:
        self._edit()[index] = value

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        del self._edit()[index]

    def insert(self, index: SupportsIndex, value: Any) -> None:
        self._edit().insert(index, value)

    def pop(self, index: SupportsIndex = -1) -> Any:
        return self._edit().pop(index)

    def remove(self, value: Any) -> None:
        self._edit().remove(value)

    def clear(self) -> None:
        self.edits += 1
        self._items.clear()
        self._first = self._last = -1
        self._hidden = 0

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        self._edit().sort(key=key, reverse=reverse)

    def reverse(self) -> None:
        self._edit().reverse()


def log_lazily(log: Any, source: LazySource, start: int, stop: int) -> None:
    """Append events `start:stop` of `source` to a world's log: as a lazy block, or
    built now when a game replaced `world.events` with a plain list."""
    if type(log) is EventLog:
        log.push_lazy(source, start, stop)
    else:
        log.extend(source.objects()[start:stop])
