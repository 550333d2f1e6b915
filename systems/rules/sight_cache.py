"""`World.sight_cache`: minds' fields of view and walking-distance maps, bounded in size.

A mind keeps its field of view and its distance maps while nothing that blocks changes
(sight.py, walking.py): a crowd where nobody moves pays for none again. Each is an
array (a 61 x 61 window at sight 30 is 3.7 KB of view and 58 KB of distances; a map of
the whole grid is the grid's size), and a World of 200,000 minded creatures (a pack of
a thousand battles) would keep gigabytes of them. So the cache holds at most
`MAX_BYTES` of arrays: past it, the entries put in longest ago go first (an entry put in
again goes to the back). A field is worked out again when it is wanted and gone, the
same field: the cache changes what a pulse costs, never what a mind decides.

Never saved; reads and writes nothing but itself.
"""

from __future__ import annotations

from typing import Any

MAX_BYTES = 1 << 30  # 1 GiB of arrays


def _size(value: Any) -> int:
    """The bytes of an entry's array (a View's `seen`, a Field's `dist`, a side's look's
    `nbytes`); 64 for one that holds none (an OpenField works its values out)."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return max(64, nbytes)
    array = getattr(value, "dist", None)
    if array is None:
        array = getattr(value, "seen", None)
    return 64 if array is None else max(64, int(array.nbytes))


class SightCache:
    """Entries by key whose arrays add up to at most `limit` bytes (module docstring):
    `get`, `cache[key] = value`, `in`, `len`."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_BYTES if limit is None else limit
        self.bytes = 0
        self._entries: dict[Any, tuple[Any, int]] = {}

    def get(self, key: Any) -> Any:
        entry = self._entries.get(key)
        return None if entry is None else entry[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        entries = self._entries
        old = entries.pop(key, None)  # put in again: to the back
        if old is not None:
            self.bytes -= old[1]
        size = _size(value)
        entries[key] = (value, size)
        self.bytes += size
        while self.bytes > self.limit and len(entries) > 1:
            first = next(iter(entries))
            self.bytes -= entries.pop(first)[1]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
