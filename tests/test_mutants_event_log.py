"""affray.core.event_log's corners its own tests leave open (mutation testing after the
one-definition rewrite, issue 12): the log behaves as a list there too.
"""

from __future__ import annotations

from typing import Any

import pytest

from affray.core.event_log import EventLog


class Source:
    """A LazySource of `size` distinct events."""

    def __init__(self, name: str, size: int) -> None:
        self.objs = [(name, index) for index in range(size)]

    def objects(self) -> list[Any]:
        return self.objs


@pytest.mark.parametrize("index", ["0", 1.0, None])
def test_a_bad_index_raises_a_lists_type_error(index: Any) -> None:
    """A pending log indexed by something that is not an integer or a slice raises the
    TypeError a list raises, with the same message."""
    log = EventLog(["e0"])
    log.push_lazy(Source("s", 3), 0, 3)
    with pytest.raises(TypeError) as ours:
        log[index]
    with pytest.raises(TypeError) as lists:
        ["e0", "s0", "s1", "s2"][index]
    assert str(ours.value) == str(lists.value)


def test_iterating_goes_on_into_a_block_logged_at_the_start_meanwhile() -> None:
    """Like a list's iterator, iterating goes on by position into what is logged while it
    runs: the log cleared mid-way and refilled from a block at its very start (the
    first entry) and two events, the iterator's next events are the block's built
    events from where it was, then the two."""
    log = EventLog(["a", "b"])
    model = ["a", "b"]
    ours, theirs = iter(log), iter(model)
    assert [next(ours), next(ours)] == [next(theirs), next(theirs)] == ["a", "b"]
    source = Source("s", 3)
    log.clear()
    model.clear()
    log.push_lazy(source, 0, 3)
    model.extend(source.objs)
    log.extend(["x", "y"])
    model.extend(["x", "y"])
    assert list(ours) == list(theirs) == [("s", 2), "x", "y"]
