"""A pack's figures from its log as it stands: the vectorised round's blows summed as columns.

A pack of a thousand duels logs tens of thousands of blows, most of them still numpy
columns (engine/core/event_log.py's lazy blocks). `batch.Tally` reads events one object
at a time; building every blow's object only to add its amount to a dict cost a pack
about a tenth of its time. `PackTally` reads the same log with the same rules as
`batch.Tally`:

- a damage event adds its amount to the target's damage taken of its type and counts a
  hit taken (`struck`), and, when the source is one of the pack's creatures, to the
  source's damage dealt of that type and its hits;
- a death sets the target's death pulse (the first one) and counts a kill for its killer;

but a lazy block whose source can give its damage as columns (`damage_columns`, as
volley.BlowEvents does) is summed in numpy, unbuilt. Any other entry is read as an
event object. The figures are the same numbers `Tally` gives: tests/test_pack_tally.py
checks them against it on the built log.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from affray.core.event_log import EventLog, LazyBlock
from affray.runners.batch import note_death


class PackTally:
    """The tallies of every creature of a pack (`names`: the copies' renamed ids)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.type_index: dict[str, int] = {}
        self.type_names: list[str] = []
        self.died: dict[str, int | None] = dict.fromkeys(names, None)
        self.kills = dict.fromkeys(names, 0)
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._maps: dict[int, tuple[Any, np.ndarray]] = {}  # id(ids array) -> (it, map)
        self._loose: list[tuple[int, int, int, int]] = []  # (attacker, victim, amount, type)

    # -- reading ---------------------------------------------------------------------
    def read(self, log: Any) -> PackTally:
        """Tally a World's log (an EventLog, or a game's plain list). The blocks of one
        source are summed together (a sum does not care for order; deaths, which do,
        are events)."""
        entries = log.entries() if type(log) is EventLog else log
        spans: dict[int, tuple[Any, list[np.ndarray]]] = {}
        for entry in entries:
            if type(entry) is not LazyBlock:
                self._event(entry)
                continue
            source = entry.source
            if getattr(source, "damage_columns", None) is None:
                for event in entry.build():
                    self._event(event)
                continue
            kept = spans.get(id(source))
            if kept is None:
                kept = spans[id(source)] = (source, [])
            kept[1].append(np.arange(entry.start, entry.stop))
        for source, ranges in spans.values():
            self._block(source, source.damage_columns(np.concatenate(ranges)))
        return self

    def _type(self, name: str) -> int:
        code = self.type_index.get(name)
        if code is None:
            code = self.type_index[name] = len(self.type_names)
            self.type_names.append(name)
        return code

    def _row_map(self, ids: np.ndarray) -> np.ndarray:
        """Each row of a round's `ids` as an index into `names` (-1: not one of them);
        kept per ids array (a round's ids are a view of its column cache's)."""
        base = ids.base if ids.base is not None else ids
        kept = self._maps.get(id(base))
        if kept is None or kept[0] is not base or len(kept[1]) < len(ids):
            # over the rows in use only: rows past them may be filled later
            index = self.index
            mapped = np.fromiter((index.get(name, -1) for name in ids.tolist()),
                                 dtype=np.int64, count=len(ids))
            kept = self._maps[id(base)] = (base, mapped)
        return kept[1]

    def _block(self, source: Any, columns: tuple[np.ndarray, ...]) -> None:
        attacker, victim, amount, types = columns
        if not len(victim):
            return
        rows = self._row_map(source.ids)
        codes = np.array([self._type(name) for name in source.type_names], dtype=np.int64)
        victims = rows[victim]
        if (victims < 0).any():  # as Tally: a damage event's target is a tallied creature
            raise KeyError(source.ids[victim[victims < 0][0]])
        self._parts.append((rows[attacker], victims, amount.astype(np.int64), codes[types]))

    def _event(self, event: Any) -> None:
        kind = event.kind
        if kind == "damage":
            victim = self.index[event.target]
            attacker = self.index.get(event.source, -1) if type(event.source) is str else -1
            self._loose.append((attacker, victim, event.amount, self._type(event.damage_type)))
        elif kind == "death":
            note_death(event, self.died, self.kills)

    # -- the figures -----------------------------------------------------------------
    def figures(self) -> tuple[list[dict[str, int]], list[int], list[dict[str, int]], list[int]]:
        """Per creature of `names`, in order: damage taken by type, hits taken, damage
        dealt by type, hits landed (a type is a key when an event had it, 0 included)."""
        parts = list(self._parts)
        if self._loose:
            loose = np.array(self._loose, dtype=np.int64).reshape(-1, 4)
            parts.append((loose[:, 0], loose[:, 1], loose[:, 2], loose[:, 3]))
        count, kinds = len(self.names), max(1, len(self.type_names))
        size = count * kinds
        taken_sum = np.zeros(size, dtype=np.int64)
        dealt_sum = np.zeros(size, dtype=np.int64)
        if parts:
            attacker, victim, amount, types = (np.concatenate(column)
                                               for column in zip(*parts, strict=True))
        else:
            attacker = victim = amount = types = np.zeros(0, dtype=np.int64)
        key = victim * kinds + types
        np.add.at(taken_sum, key, amount)
        taken_count = np.bincount(key, minlength=size)
        known = attacker >= 0
        key = attacker[known] * kinds + types[known]
        np.add.at(dealt_sum, key, amount[known])
        dealt_count = np.bincount(key, minlength=size)
        shape = (count, kinds)
        return (self._by_type(taken_sum.reshape(shape), taken_count.reshape(shape)),
                taken_count.reshape(shape).sum(axis=1).tolist(),
                self._by_type(dealt_sum.reshape(shape), dealt_count.reshape(shape)),
                dealt_count.reshape(shape).sum(axis=1).tolist())

    def _by_type(self, sums: np.ndarray, counts: np.ndarray) -> list[dict[str, int]]:
        out: list[dict[str, int]] = [{} for _ in self.names]
        rows, codes = np.nonzero(counts)
        names = self.type_names
        for row, code, amount in zip(rows.tolist(), codes.tolist(),
                                     sums[rows, codes].tolist(), strict=True):
            out[row][names[code]] = amount
        return out
