"""`world.events` is an `EventLog` (engine/core/event_log.py): a list to its reader, columns
until read. These tests try to catch it out.

1. List parity, property-based: random sequences of every list operation applied to an
   EventLog fed lazy blocks by a fake source and to a plain list give the same results,
   the same exceptions and the same contents after every step.
2. Laziness: what builds the blocks and what does not, merging, a stale bound `append`,
   the `edits` counter the column cache reads.
3. pickle and deepcopy.
4. End to end in big vectorised battles: nothing built by a round, reading at any time
   changes nothing (nor building at once), each blow's single event equals its built
   one, field for field and type for type, save and load mid-battle, a game's plain list
   in place of the log, edits of the log and the column cache, settling on a block.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from collections.abc import Callable, MutableSequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import affray
import affray.core.event_log
from affray.core.event_log import EventLog, LazyBlock
from affray.core.events import Damage, Defended, Immune, Miss
from affray.systems.rules import volley
from tests.conftest import world_from_text
from tests.test_volley_cache import SPELLS_INTO_THE_BATTLE, battle_text

SIZE = 8  # events of each fake source
EVENT_LOG = Path(affray.core.event_log.__file__)


class FakeSource:
    """A LazySource: `objects()` gives a fixed list of distinct events (tuples), and
    counts its calls (a block must be built once)."""

    def __init__(self, name: str, size: int = SIZE) -> None:
        self.objs = [(name, index) for index in range(size)]
        self.calls = 0

    def objects(self) -> list[Any]:
        self.calls += 1
        return self.objs


class UnpicklableSource(FakeSource):
    """A source that cannot be pickled (as a round's columns need not be)."""

    def __init__(self, name: str, size: int = SIZE) -> None:
        super().__init__(name, size)
        self.hook = lambda: None


def expanded(log: EventLog) -> list[Any]:
    """The log's contents read through its placeholders WITHOUT building them (the fake
    source's list is read directly, `objects()` is not called)."""
    out: list[Any] = []
    for entry in log._items:
        if type(entry) is LazyBlock:
            out.extend(entry.source.objs[entry.start:entry.stop])
        else:
            out.append(entry)
    return out


def blocks(log: EventLog) -> list[LazyBlock]:
    return [entry for entry in log._items if type(entry) is LazyBlock]


def check_shape(log: EventLog) -> None:
    """The bookkeeping of the placeholders agrees with the placeholders themselves, and two
    adjacent blocks of one source were merged."""
    items = log._items
    where = [i for i, entry in enumerate(items) if type(entry) is LazyBlock]
    assert log.pending == bool(where)
    if where:
        assert (log._first, log._last) == (where[0], where[-1])
        assert log._hidden == sum(len(items[i]) - 1 for i in where)
    else:
        assert (log._first, log._last, log._hidden) == (-1, -1, 0)
    for i, j in pairwise(where):
        if j == i + 1:
            a, b = items[i], items[j]
            assert not (a.source is b.source and a.stop == b.start), "adjacent, not merged"


# -- 1. list parity --------------------------------------------------------------------

SOURCE_NAMES = ("s0", "s1")
VALUE = st.one_of(st.tuples(st.just("x"), st.integers(0, 4)),
                  st.tuples(st.sampled_from(SOURCE_NAMES), st.integers(0, SIZE)))
VALUES = st.lists(VALUE, max_size=4)
INDEX = st.integers(-14, 14)
BOUND = st.none() | st.integers(-14, 14)
SLICE = st.builds(slice, BOUND, BOUND, st.sampled_from([None, 1, 2, 3, -1, -2, -3, 0]))


def second(event: tuple[str, int]) -> int:
    return event[1]


# Each op: (name, function(seq, model_before, *args)). `seq` is the EventLog or the model.
READS: dict[str, Callable[..., Any]] = {
    "get": lambda s, m, i: s[i],
    "len": lambda s, m: len(s),
    "bool": lambda s, m: bool(s),
    "iter": lambda s, m: list(iter(s)),
    "reversed": lambda s, m: list(reversed(s)),
    "in": lambda s, m, v: v in s,
    "not_in": lambda s, m, v: v not in s,
    "index": lambda s, m, v, bounds: s.index(v, *bounds),
    "index_at": lambda s, m, p, *bounds: s.index(present(m, p), *bounds),
    "count_at": lambda s, m, p: s.count(present(m, p)),
    "in_at": lambda s, m, p: present(m, p) in s,
    "count": lambda s, m, v: s.count(v),
    "copy": lambda s, m: s.copy(),
    "eq_list": lambda s, m: (s == list(m), list(m) == s, s != list(m), list(m) != s),
    "eq_longer": lambda s, m: (s == [*m, ("x", 9)], s != [*m, ("x", 9)],
                               [*m, ("x", 9)] == s),
    "eq_other": lambda s, m: (s == m[::-1] if len(m) > 1 and m != m[::-1] else None),
    "eq_log": lambda s, m: (s == EventLog(m), EventLog(m) == s, s != EventLog(m)),
    "eq_pending_log": lambda s, m: (s == pending_twin(m), pending_twin(m) == s),
    "eq_tuple": lambda s, m: (s == tuple(m), s != tuple(m)),
    "add_list": lambda s, m, vs: s + vs,
    "radd_list": lambda s, m, vs: vs + s,
    "add_self": lambda s, m: s + s,
    "add_log": lambda s, m, vs: s + EventLog(vs),
    "add_tuple": lambda s, m, vs: s + tuple(vs),
    "repr": lambda s, m: repr(s),
    "str": lambda s, m: str(s),
    "list": lambda s, m: list(s),
    "sorted": lambda s, m: sorted(s),
}
EDITS: dict[str, Callable[..., Any]] = {  # destructive: the `edits` counter must grow
    "set": lambda s, m, i, v: s.__setitem__(i, v),
    "set_slice": lambda s, m, i, vs: s.__setitem__(i, vs),
    "del": lambda s, m, i: s.__delitem__(i),
    "insert": lambda s, m, i, v: s.insert(i, v),
    "pop": lambda s, m: s.pop(),
    "pop_at": lambda s, m, i: s.pop(i),
    "remove": lambda s, m, v: s.remove(v),
    "remove_at": lambda s, m, p: s.remove(present(m, p)),
    "clear": lambda s, m: s.clear(),
    "sort": lambda s, m, by_key, rev: s.sort(key=second if by_key else None, reverse=rev),
    "reverse": lambda s, m: s.reverse(),
}
APPENDS: dict[str, Callable[..., Any]] = {  # growing at the end: no edit
    "append": lambda s, m, v: s.append(v),
    "extend": lambda s, m, vs: s.extend(vs),
    "extend_iter": lambda s, m, vs: s.extend(iter(vs)),
}


def present(model: list[Any], position: int) -> Any:
    """A value the model holds (when it holds any): found by index, count, in, remove."""
    return model[position % len(model)] if model else ("x", 0)


def pending_twin(values: list[Any]) -> EventLog:
    """An EventLog holding `values` as a pending block."""
    twin = EventLog()
    source = FakeSource("twin", 0)
    source.objs = list(values)
    twin.push_lazy(source, 0, len(values))
    return twin


PUSH = st.tuples(st.just("push"), st.integers(0, 1), st.integers(0, SIZE),
                 st.integers(0, SIZE))  # push_lazy(source, start, stop); stop <= start too
PUSH_ON = st.tuples(st.just("push_on"), st.integers(0, 1),
                    st.integers(0, 3))  # the next events of a source: merged
BOUNDS = st.lists(st.integers(-14, 14), max_size=2)
EDGE = st.tuples(st.integers(0, 5), st.integers(-2, 2), st.booleans())
EDGE_SLICE = st.tuples(st.integers(0, 5), st.integers(-2, 2), st.integers(0, 5),
                       st.integers(-2, 2), st.sampled_from([None, 1, None, 1, 2, -1, -2]),
                       st.booleans())
OPS = st.one_of(  # one branch, one weight: the pushes and every edit often
    PUSH, PUSH_ON, PUSH, PUSH_ON,
    st.builds(lambda e: ("get_edge", *e), EDGE),
    st.builds(lambda e: ("get_sedge", *e), EDGE_SLICE),
    st.builds(lambda e: ("get_edge", *e), EDGE),
    st.builds(lambda e: ("get_sedge", *e), EDGE_SLICE),
    st.builds(lambda e: ("del_edge", *e), EDGE),
    st.builds(lambda e: ("del_sedge", *e), EDGE_SLICE),
    st.builds(lambda e, v: ("set_edge", *e, v), EDGE, VALUE),
    st.builds(lambda e, vs: ("set_slice_sedge", *e, vs), EDGE_SLICE, VALUES),
    st.builds(lambda e, v: ("insert_edge", *e, v), EDGE, VALUE),
    st.tuples(st.just("index_at"), st.integers(0, 30), st.integers(-14, 14),
              st.integers(-14, 14)),
    st.tuples(st.just("get"), INDEX),
    st.tuples(st.just("get"), SLICE),
    st.tuples(st.sampled_from(["len", "bool", "iter", "reversed", "copy", "eq_list",
                               "eq_longer", "eq_other", "eq_log", "eq_pending_log",
                               "eq_tuple", "add_self", "repr", "str", "list", "sorted"])),
    st.tuples(st.sampled_from(["in", "not_in", "count"]), VALUE),
    st.tuples(st.sampled_from(["in_at", "count_at"]), st.integers(0, 30)),
    st.tuples(st.just("index"), VALUE, BOUNDS),
    st.builds(lambda p, bounds: ("index_at", p, *bounds), st.integers(0, 30), BOUNDS),
    st.tuples(st.sampled_from(["add_list", "radd_list", "add_log", "add_tuple"]), VALUES),
    st.tuples(st.just("set"), INDEX, VALUE),
    st.tuples(st.just("set_slice"), SLICE, VALUES),
    st.tuples(st.just("del"), INDEX),
    st.tuples(st.just("del"), SLICE),
    st.tuples(st.just("insert"), st.integers(-14, 14), VALUE),
    st.tuples(st.just("pop")),
    st.tuples(st.just("pop_at"), INDEX),
    st.tuples(st.just("remove"), VALUE),
    st.tuples(st.just("remove_at"), st.integers(0, 30)),
    st.tuples(st.just("clear")),
    st.tuples(st.just("sort"), st.booleans(), st.booleans()),
    st.tuples(st.just("reverse")),
    st.tuples(st.sampled_from(["append", "stale_append"]), VALUE),
    st.tuples(st.sampled_from(["extend", "extend_iter", "iadd", "stale_extend"]), VALUES),
)


def edges(log: EventLog) -> list[int]:
    """The log positions where a block starts or ends, and 0 and len(log)."""
    out, position = [0], 0
    for entry in log._items:
        if type(entry) is LazyBlock:
            out += [position, position + len(entry)]
            position += len(entry)
        else:
            position += 1
    return [*out, position]


def edge_args(log: EventLog, args: list[Any], sliced: bool) -> list[Any]:
    """("get_edge", k, delta, negative) reads index edges[k] + delta (negative: counted
    from the end, as Python does); ("get_sedge", k1, d1, k2, d2, step, negative) a slice
    between two edges; the op's other arguments follow."""
    points = edges(log)
    size = len(log)

    def at(k: int, delta: int, negative: bool) -> int:
        index = points[k % len(points)] + delta
        return index - size if negative and index >= 0 else index

    if not sliced:
        return [at(*args[:3]), *args[3:]]
    (k1, d1, k2, d2, step, negative), rest = args[:6], args[6:]
    return [slice(at(k1, d1, negative), at(k2, d2, negative), step), *rest]


def reads_outside_blocks(log: EventLog, index: int | slice) -> bool:
    """Whether `log[index]` reads only the head before the first block or the tail after
    the last one (what the engine reads during a tick: it must build nothing)."""
    if not log.pending:
        return False
    size = len(log)
    first, tail = edges(log)[1], size - (len(log._items) - 1 - log._last)
    if isinstance(index, slice):
        if index.step not in (None, 1):
            return False
        start, stop, _ = index.indices(size)
        return start >= tail or max(start, stop) <= first
    i = index + size if index < 0 else index
    return 0 <= i < first or tail <= i < size


class Uncounted:
    """A clone's stand-in for a fake source: its objects, its own count of builds."""

    def __init__(self, source: FakeSource) -> None:
        self.objs = source.objs
        self.calls = 0

    def objects(self) -> list[Any]:
        self.calls += 1
        return self.objs


def clone(log: EventLog) -> tuple[EventLog, list[Uncounted]]:
    """An EventLog in the very state of `log` (its placeholders copied, built through
    stand-ins), to read without changing `log`."""
    twin = EventLog()
    stand_ins: list[Uncounted] = []
    for entry in log._items:
        if type(entry) is LazyBlock:
            stand_ins.append(Uncounted(entry.source))
            entry = LazyBlock(stand_ins[-1], entry.start, entry.stop)
        twin._items.append(entry)
    twin._first, twin._last, twin._hidden = log._first, log._last, log._hidden
    return twin, stand_ins


def probe(log: EventLog, model: list[Any]) -> None:
    """Every read of a pending log's head and tail (each index, the slices from the tail
    and to the first block) gives the model's, building nothing; then a read into a
    block gives the model's and builds everything."""
    twin, stand_ins = clone(log)
    size, first = len(model), edges(log)[1]
    tail = size - (len(log._items) - 1 - log._last)
    outside = [*range(first), *range(tail, size)]
    for i in outside:
        assert twin[i] == model[i] and twin[i - size] == model[i - size]
    for start in range(tail, size + 2):
        for stop in (None, start - 1, start, start + 1, size, size + 3):
            assert twin[start:stop] == model[start:stop]
            if start < size:  # the same start counted from the end
                assert twin[start - size:stop] == model[start - size:stop]
    for start in range(-1, first + 1):
        for stop in range(first + 1):
            assert twin[max(start, 0):stop] == model[max(start, 0):stop]
    assert len(twin) == size and bool(twin) is bool(model)
    assert twin.pending and all(stand_in.calls == 0 for stand_in in stand_ins)
    assert twin[first] == model[first] and not twin.pending
    assert twin == model and all(stand_in.calls == 1 for stand_in in stand_ins)
    for read in (slice(0, first + 1), slice(tail - 1, None), slice(first, tail)):
        twin, _ = clone(log)  # a slice one past the head or the tail: into a block
        assert twin[read] == model[read] and not twin.pending


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except Exception as error:  # the exception is the outcome compared
        message = "" if isinstance(error, TypeError) else str(error)
        return ("raised", type(error), message)


class Parity:
    """An EventLog and its plain-list model, driven op by op."""

    def __init__(self) -> None:
        self.log = EventLog()
        self.model: list[Any] = []
        self.sources = [FakeSource(name) for name in SOURCE_NAMES]
        self.cursor = [0, 0]
        self.stale_append = self.log.append  # bound before any block or build
        self.stale_extend = self.log.extend

    def step(self, op: tuple[Any, ...]) -> None:
        name, *args = op
        log, model = self.log, self.model
        if name.endswith("edge"):  # an index or slice at a block's edge, +-2
            name, args = name.rsplit("_", 1)[0], edge_args(log, args, name.endswith("sedge"))
        before = list(model)
        edits = log.edits
        old_blocks = blocks(log)
        lazy = name == "get" and reads_outside_blocks(log, args[0])
        calls = [source.calls for source in self.sources]
        if name in ("push", "push_on"):
            source = self.sources[args[0]]
            if name == "push":
                start, stop = args[1], args[2]
            else:
                start = self.cursor[args[0]]
                stop = min(SIZE, start + args[1])
            if stop > start:
                self.cursor[args[0]] = stop % SIZE
            log.push_lazy(source, start, stop)
            model.extend(source.objs[start:stop])
        elif name in ("stale_append", "stale_extend", "iadd"):
            value = args[0]
            if name == "iadd":
                alias = log
                alias += value
                assert alias is log  # += keeps the log (a list's += keeps the list)
                model += value
            else:
                getattr(self, name)(value)
                (model.append if name == "stale_append" else model.extend)(value)
        else:
            function = READS.get(name) or EDITS.get(name) or APPENDS[name]
            got = outcome(lambda: function(log, before, *args))
            want = outcome(lambda: function(model, before, *args))
            assert got == want, (name, args)
            if got[0] == "ok" and isinstance(want[1], list):
                assert type(got[1]) is list, (name, "a plain list, as a list's")
                if name == "copy":
                    assert got[1] is not log._items
            if name in EDITS and got[0] == "ok":
                assert log.edits > edits, (name, "an edit not counted")
        if name not in EDITS:
            assert log.edits == edits, (name, "counted as an edit")
        # the log holds the model, every block was built at most once, all or none
        assert expanded(log) == model
        assert len(log) == len(model)
        check_shape(log)
        still = blocks(log)
        gone = [b for b in old_blocks if not any(b is s for s in still)]
        assert not gone or not any(b is s for b in old_blocks for s in still)  # all or none
        if log.pending:
            probe(log, model)
        if lazy:  # the head before the first block and the tail after the last: no build
            assert all(any(b is s for s in still) for b in old_blocks), ("built", args)
        for source, before_calls in zip(self.sources, calls, strict=True):
            built = 0 if name == "clear" else sum(b.source is source for b in gone)
            assert source.calls == before_calls + built, (name, "built more than once")


@settings(max_examples=300, deadline=None, derandomize=True)  # deterministic
@given(ops=st.lists(OPS, min_size=12, max_size=30))
def test_an_event_log_is_a_list_under_any_sequence_of_operations(ops) -> None:
    """Hypothesis: any sequence of list operations (append, extend, push_lazy, +=, int and
    slice reads with negatives, steps and out-of-range bounds, len, bool, iter, reversed,
    in, index with bounds, count, setitem, delitem, insert, pop, remove, clear, sort,
    reverse, copy, ==/!= with lists and logs, +, repr) gives the log the results, the
    exceptions and the contents a plain list gets; each lazy block is built once, all
    pending blocks together; `edits` counts exactly the destructive edits."""
    parity = Parity()
    for op in ops:
        parity.step(op)
    assert parity.log == parity.model
    assert list(parity.log) == parity.model
    assert not parity.log.pending


def test_an_event_log_is_a_mutable_sequence_but_not_a_list() -> None:
    """docs/api.md: not `isinstance(..., list)` (documented), a MutableSequence, unhashable,
    and its copy, `list()` and `+` results are plain lists."""
    log = EventLog([("x", 1)])
    log.push_lazy(FakeSource("s"), 0, 3)
    assert isinstance(log, MutableSequence) and not isinstance(log, list)
    with pytest.raises(TypeError):
        hash(log)
    for result in (log.copy(), list(log), log + [], [] + log, log[:]):  # noqa: RUF005
        assert type(result) is list
        assert result == [("x", 1), ("s", 0), ("s", 1), ("s", 2)]


def test_extending_a_log_with_itself_doubles_it_as_a_list_does() -> None:
    """`l.extend(l)` and `l += l` double a list. Run in a child with a small memory cap:
    the bug is an endless loop in C that no signal stops (it ends in MemoryError)."""
    code = (
        "import importlib.util, resource, sys\n"
        f"spec = importlib.util.spec_from_file_location('event_log', {str(EVENT_LOG)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['event_log'] = module\n"
        "spec.loader.exec_module(module)\n"
        "# 32 MiB more than now: room for the answer, an endless extend fails in a second\n"
        "size = [line for line in open('/proc/self/status') if line.startswith('VmSize')]\n"
        "cap = int(size[0].split()[1]) * 1024 + (32 << 20)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
        "class Source:\n"
        "    def objects(self):\n"
        "        return ['s0', 's1']\n"
        "results = []\n"
        "for pending in (False, True):\n"
        "    for way in ('extend', 'iadd'):\n"
        "        log = module.EventLog(['a'])\n"
        "        if pending:\n"
        "            log.push_lazy(Source(), 0, 2)\n"
        "        try:\n"
        "            if way == 'extend':\n"
        "                log.extend(log)\n"
        "            else:\n"
        "                log += log\n"
        "            results.append(list(log))\n"
        "        except MemoryError:\n"
        "            results.append('MemoryError')\n"
        "print(results)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stdout.strip() == str([["a", "a"], ["a", "a"],
                                       ["a", "s0", "s1", "a", "s0", "s1"],
                                       ["a", "s0", "s1", "a", "s0", "s1"]]), done.stderr



@pytest.mark.parametrize("bad", ["a", 1.0, None])
def test_a_bad_index_raises_type_error_as_a_list_does(bad: object) -> None:
    log = EventLog([("x", 0)])
    log.push_lazy(FakeSource("s"), 0, 2)
    with pytest.raises(TypeError):
        log[bad]  # type: ignore[index]


def test_repeating_a_log_as_a_list() -> None:
    log = EventLog([("x", 0)])
    log.push_lazy(FakeSource("s"), 0, 1)
    assert log * 2 == [("x", 0), ("s", 0)] * 2
    assert 2 * log == [("x", 0), ("s", 0)] * 2
    alias = log
    alias *= 2
    assert alias is log and log == [("x", 0), ("s", 0)] * 2


def test_ordering_a_log_against_a_list() -> None:
    log = EventLog([("x", 0)])
    log.push_lazy(FakeSource("s"), 0, 1)
    assert log < [("x", 1)] and [("x", 1)] > log  # noqa: SIM300 - the reflected one
    assert log <= [("x", 0), ("s", 0)] and log >= [("x", 0)]


# -- 2. laziness -----------------------------------------------------------------------

def tail_log() -> tuple[EventLog, FakeSource]:
    """[head] + block of s 0:5 + [t0, t1]: indexes 0 | 1-5 | 6, 7."""
    source = FakeSource("s")
    log = EventLog([("head", 0)])
    log.push_lazy(source, 0, 5)
    log.append(("t", 0))
    log.extend([("t", 1)])
    return log, source


def test_reading_after_the_last_block_builds_nothing() -> None:
    """The engine's own reads during a tick (the end of the log, its length) must not
    build the round's events: int indexes and slices from the tail, the head before the
    first block, len and bool leave the block pending."""
    log, source = tail_log()
    assert len(log) == 8 and bool(log)
    assert log[-1] == ("t", 1) and log[-2] == ("t", 0)
    assert log[6] == ("t", 0) and log[7] == ("t", 1)
    assert log[6:] == [("t", 0), ("t", 1)] and log[-2:] == [("t", 0), ("t", 1)]
    assert log[7:100] == [("t", 1)] and log[8:] == [] and log[100:] == []
    assert log[7:6] == [] and log[-1:-2] == []
    assert log[0] == ("head", 0) and log[-8] == ("head", 0) and log[:1] == [("head", 0)]
    assert source.calls == 0 and log.pending
    assert log.edits == 0


@pytest.mark.parametrize("read", [
    lambda log: log[1], lambda log: log[5], lambda log: log[-3], lambda log: log[5:],
    lambda log: log[0:2], lambda log: log[::-1], lambda log: log[6::1] and log[::2],
    lambda log: list(log), lambda log: ("s", 2) in log, lambda log: log.count(("t", 0)),
    lambda log: log.index(("t", 1)), lambda log: repr(log), lambda log: log == [],
    lambda log: log.copy(), lambda log: log[100] if False else log[-8:-2],
])
def test_reading_into_a_block_builds_every_pending_block_once(read) -> None:
    """A read that reaches into a block builds all pending blocks (of both sources, the
    one read and the one not), each with one `objects()` call; later reads call nothing."""
    s, r = FakeSource("s"), FakeSource("r")
    log = EventLog([("head", 0)])
    log.push_lazy(s, 0, 5)       # 1-5
    log.append(("t", 0))         # 6
    log.push_lazy(r, 2, 4)       # 7-8
    log.append(("t", 1))         # 9
    before = [("head", 0), *s.objs[:5], ("t", 0), *r.objs[2:4], ("t", 1)]
    read(log)
    assert (s.calls, r.calls) == (1, 1) and not log.pending
    assert log == before and list(log) == before and log[3] == s.objs[2]
    assert (s.calls, r.calls) == (1, 1)
    assert log.edits == 0  # a read is never an edit


def test_adjacent_blocks_of_one_source_merge_and_others_do_not() -> None:
    """One placeholder for a source's consecutive stretches (a round's bulk runs); a block
    of another source, a gap, or an event in between keeps them apart; each placeholder
    is built with one call."""
    s, r = FakeSource("s"), FakeSource("r")
    log = EventLog()
    log.push_lazy(s, 0, 2)
    log.push_lazy(s, 2, 3)
    log.push_lazy(s, 3, 5)
    assert len(log._items) == 1 and len(log) == 5
    log.push_lazy(s, 6, 7)   # a gap
    log.push_lazy(r, 7, 8)   # another source, adjacent numbers
    log.append(("t", 0))
    log.push_lazy(r, 8, 8)   # empty: nothing
    log.push_lazy(r, 5, 3)   # reversed: nothing
    log.push_lazy(r, 0, 1)
    assert len(log._items) == 5 and len(log) == 9
    check_shape(log)
    assert list(log) == [*s.objs[0:5], s.objs[6], r.objs[7], ("t", 0), r.objs[0]]
    assert (s.calls, r.calls) == (2, 2)
    log.push_lazy(s, 7, 8)   # after a build: a new block, not merged into a built one
    log.push_lazy(s, 0, 1)
    assert log[-2:] == [s.objs[7], s.objs[0]]
    assert s.calls == 4


def test_a_stale_bound_append_still_appends_at_the_end_after_a_build() -> None:
    """The scalar pipeline keeps `world.events.append` bound; a build, a clear or an edit
    must keep that method's list the log's own."""
    log, source = tail_log()
    append, extend = log.append, log.extend
    assert log[2] == source.objs[1]  # builds
    append(("late", 0))
    extend([("late", 1)])
    assert log[-2:] == [("late", 0), ("late", 1)] and len(log) == 10
    log.push_lazy(source, 5, 7)
    del log[0]                       # an edit (builds)
    append(("late", 2))
    assert log[-3:] == [source.objs[5], source.objs[6], ("late", 2)] and len(log) == 12
    log.clear()
    append(("late", 3))
    assert log == [("late", 3)]


EDIT_CASES = {
    "setitem": lambda log: log.__setitem__(1, ("e", 0)),
    "setitem_slice": lambda log: log.__setitem__(slice(1, 3), [("e", 0)]),
    "delitem": lambda log: log.__delitem__(-1),
    "delitem_slice": lambda log: log.__delitem__(slice(0, 2)),
    "insert": lambda log: log.insert(2, ("e", 0)),
    "pop": lambda log: log.pop(),
    "pop_index": lambda log: log.pop(0),
    "remove": lambda log: log.remove(("t", 0)),
    "clear": lambda log: log.clear(),
    "sort": lambda log: log.sort(key=second),
    "reverse": lambda log: log.reverse(),
}
NOT_EDITS = {
    "append": lambda log: log.append(("e", 0)),
    "extend": lambda log: log.extend([("e", 0)]),
    "push_lazy": lambda log: log.push_lazy(FakeSource("q"), 0, 2),
    "iadd": lambda log: log.__iadd__([("e", 0)]),
    "read_all": lambda log: (list(log), log[3], log[::-1], repr(log), log == [],
                             log.index(("t", 0)), log.count(("s", 1)), ("s", 1) in log),
    "read_tail": lambda log: (len(log), bool(log), log[-1], log[6:]),
    "copy": lambda log: (log.copy(), copy.copy(log), log + [], [] + log),  # noqa: RUF005
}


@pytest.mark.parametrize("name", sorted(EDIT_CASES))
def test_every_destructive_edit_counts_in_edits(name: str) -> None:
    """The column cache trusts its view of the log while `edits` holds: every edit of what
    was logged must count, on a pending log and on a built one."""
    for build_first in (False, True):
        log, _source = tail_log()
        if build_first:
            list(log)
        before = log.edits
        EDIT_CASES[name](log)
        assert log.edits > before


@pytest.mark.parametrize("name", sorted(NOT_EDITS))
def test_growing_and_reading_are_not_edits(name: str) -> None:
    """Appending (by any way) and reading (even a read that builds) keep `edits`: the
    column cache would otherwise start again every round."""
    log, _source = tail_log()
    NOT_EDITS[name](log)
    assert log.edits == 0


# -- 3. pickle and deepcopy ------------------------------------------------------------

@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_pickle_and_copies_give_the_built_events(how: str) -> None:
    """A log with pending blocks (of a source that itself cannot be pickled) pickles and
    copies as its built events: an EventLog equal to them, nothing pending, its own
    list and its own bound append."""
    source = UnpicklableSource("s")
    log = EventLog([("head", 0)])
    log.push_lazy(source, 0, 3)
    log.append(("t", 0))
    log.push_lazy(source, 5, 8)
    want = [("head", 0), *source.objs[0:3], ("t", 0), *source.objs[5:8]]
    if how == "pickle":
        twin = pickle.loads(pickle.dumps(log))
    else:
        twin = copy.deepcopy(log) if how == "deepcopy" else copy.copy(log)
    assert type(twin) is EventLog and not twin.pending
    assert twin == want and log == want and len(twin) == len(want)
    twin.append(("late", 0))
    twin.extend([("late", 1)])
    assert twin[-2:] == [("late", 0), ("late", 1)] and len(twin) == len(want) + 2
    assert log == want  # the original is not shared
    twin.push_lazy(FakeSource("r"), 0, 1)
    assert twin[-1] == ("r", 0)


# -- 4. end to end: big battles ------------------------------------------------------

BLOW_KINDS = (Miss, Defended, Immune, Damage)
JSON_TYPES = (int, str, bool, type(None), list)


def battle(seed: int, spells: bool = True) -> affray.World:
    """test_volley_cache's big mixed battle (vectorise "auto", from 2 fighters): weapons
    of several damage types, misses, defences, immunities, deaths; spells cast into it."""
    world = world_from_text(battle_text(SPELLS_INTO_THE_BATTLE if spells else ""), seed=seed)
    assert world.vectorise == "auto"
    return world


def finish(world: affray.World) -> tuple[list[dict], dict]:
    """Run to the end; the log as dicts and the snapshot; close."""
    try:
        world.run()
        return [event.to_dict() for event in world.events], world.snapshot()
    finally:
        world.close()


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[volley.BlowEvents]:
    """Every BlowEvents._build call (its source), in order."""
    seen: list[volley.BlowEvents] = []
    real = volley.BlowEvents._build

    def spy(self):  # type: ignore[no-untyped-def]
        seen.append(self)
        return real(self)

    monkeypatch.setattr(volley.BlowEvents, "_build", spy)
    return seen


def eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """push_lazy builds at once: the log the engine wrote before lazy blocks."""
    def push_now(self, source, start, stop):  # type: ignore[no-untyped-def]
        self.extend(source.objects()[start:stop])

    monkeypatch.setattr(EventLog, "push_lazy", push_now)


def test_a_vectorised_round_builds_no_event_object(builds) -> None:
    """A vectorised round leaves its blow events as columns: the log is pending and no
    BlowEvents was built, its length read without building; reading builds the round
    once; the next round's log pickles and deep-copies as its built events."""
    world = battle(1, spells=False)
    try:
        world.run(1)  # the round of pulse 0
        assert world.events.pending and builds == []
        size = len(world.events)
        assert size > 40 and builds == []
        assert sum(type(event) in BLOW_KINDS for event in world.events) > 40
        assert len(builds) == 1 and len(world.events) == size
        world.run(world.content.fight.round_pulses)  # the next round: pending again
        assert world.events.pending and len(builds) == 1
        for twin in (pickle.loads(pickle.dumps(world.events)), copy.deepcopy(world.events)):
            assert type(twin) is EventLog and not twin.pending
            assert twin == world.events and len(twin) == len(world.events) > size
        assert len(builds) == 2
    finally:
        world.close()


@pytest.mark.parametrize("seed", [3, 8])
def test_reading_the_log_any_time_or_building_at_once_changes_nothing_r_grid_6(
        monkeypatch, builds, seed: int) -> None:
    """R-GRID-6: one seed, one log, byte for byte, whenever the log is read: read in full
    after every pulse (every block built at once), read only at the end (the blocks of
    many rounds built together), and with push_lazy building at once, the same events
    and the same final snapshot."""
    world = battle(seed)
    while world.pulse < world.end_pulse:
        world.run(1)
        list(world.events)
        assert not world.events.pending
    every_pulse = finish(world)
    read_every_pulse = len(builds)

    builds.clear()
    world = battle(seed)
    world.run(world.end_pulse - 1)
    assert world.events.pending and builds == []
    at_end = finish(world)
    assert len(builds) == read_every_pulse > 3  # the same rounds, built later

    eager(monkeypatch)
    eager_run = finish(battle(seed))
    assert json.dumps(every_pulse[0]) == json.dumps(at_end[0]) == json.dumps(eager_run[0])
    assert every_pulse[1] == at_end[1] == eager_run[1]
    kinds = {event["kind"] for event in at_end[0]}
    assert {"miss", "defended", "damage", "death", "cast"} <= kinds


@pytest.mark.parametrize("read", ["all", "last", "replace"])
def test_a_hook_reading_the_log_mid_round_changes_nothing(read: str) -> None:
    """A game's on-fight hook (run inside the vectorised round, between bulk runs that
    push blocks of the same BlowEvents) reads the log: in full (building the round's
    blocks so far, the rest of the round then pushes new blocks of an already built
    source) or only its end; or, once, sets `world.events` to a new plain list in the
    middle of a round. The log and the snapshot are those of the same hook reading
    nothing (the new list: the events from the replacement on)."""
    def run(hook) -> tuple[list[dict], dict]:  # type: ignore[no-untyped-def]
        world = battle(5)
        for who in ("c5", "b9", "a2"):
            world.rules.add_hook("on_fight", ("creature", who), hook)
        return finish(world)

    pending_seen: list[bool] = []
    kept: list[int] = []

    def reading(fighter, world) -> None:  # type: ignore[no-untyped-def]
        if type(world.events) is list:
            return  # replaced
        pending_seen.append(world.events.pending)
        if read == "all":
            list(world.events)
        elif read == "last":
            (len(world.events), world.events[-1], world.events[-3:])
        elif world.pulse >= 24 and world.events.pending:
            kept.append(len(world.events))
            world.events = []

    quiet = run(lambda fighter, world: None)
    loud = run(reading)
    assert True in pending_seen  # the hook did see a round's blocks
    want = quiet[0][kept[0]:] if read == "replace" else quiet[0]
    assert json.dumps(loud[0]) == json.dumps(want)
    assert loud[1] == quiet[1]


def test_each_blow_is_logged_once_in_blow_order(monkeypatch) -> None:
    """Each blow of a round's BlowEvents reaches the log at most once, by a block
    (push_lazy) or singly (`event(b)`, a turn walked blow by blow), never both, in blow
    order (a singly walked blow between two bulk runs sits between their blocks)."""
    order: dict[int, list[int]] = {}
    real_push, real_event = EventLog.push_lazy, volley.BlowEvents.event

    def push(self, source, start, stop):  # type: ignore[no-untyped-def]
        order.setdefault(id(source), []).extend(range(start, stop))
        real_push(self, source, start, stop)

    def single(self, b):  # type: ignore[no-untyped-def]
        order.setdefault(id(self), []).append(b)
        return real_event(self, b)

    monkeypatch.setattr(EventLog, "push_lazy", push)
    monkeypatch.setattr(volley.BlowEvents, "event", single)
    for seed in (2, 9):
        order.clear()
        world = battle(seed)
        try:
            world.run()
            for blows in order.values():
                assert blows == sorted(set(blows)), "a blow twice, or out of order"
            logged = sum(len(blows) for blows in order.values())
            melee = [e for e in world.events if type(e) in BLOW_KINDS
                     and getattr(e, "cause", "melee") == "melee"]
            assert len(melee) >= logged > 100  # (and the scalar path's blows)
        finally:
            world.close()


def test_each_blows_single_event_is_its_built_event_field_for_field(monkeypatch) -> None:
    """`BlowEvents.event(b)` (a blow walked singly) and `objects()[b]` (a block built) give
    the same event for every blow: the same class (NamedTuples of equal fields compare
    equal whatever their class, so the class is checked), the same fields of the same
    plain Python types; and every event of the log has a JSON-ready `to_dict()` of
    int/str/bool/None/list values (SCENARIO.md: no numpy scalar)."""
    sources: list[volley.BlowEvents] = []
    real_init = volley.BlowEvents.__init__

    def keep(self, world, cols, blows):  # type: ignore[no-untyped-def]
        real_init(self, world, cols, blows)
        sources.append(self)

    monkeypatch.setattr(volley.BlowEvents, "__init__", keep)
    kinds: set[type] = set()
    damage_types: set[str] = set()
    logged = 0
    for seed in (2, 5, 11):
        sources.clear()
        world = battle(seed)
        try:
            world.run()
            for source in sources:
                built = source._objects
                source._objects = None  # event(b) as a blow walked singly computes it
                singles = [source.event(b) for b in range(len(source))]
                source._objects = built
                fresh = source._build()
                assert len(fresh) == len(singles) == len(source)
                for single, made in zip(singles, fresh, strict=True):
                    assert type(single) is type(made) and type(single) in BLOW_KINDS
                    assert single == made
                    assert [type(f) for f in single] == [type(f) for f in made]
                    kinds.add(type(made))
                    if type(made) in (Damage, Immune):
                        damage_types.add(made.damage_type)
                if built is not None:
                    assert built == fresh
            assert any(source.blow_type is not None for source in sources)
            for event in world.events:
                data = event.to_dict()
                for value in data.values():
                    assert type(value) in JSON_TYPES, (data, value, type(value))
                    if type(value) is list:
                        assert all(type(v) in JSON_TYPES for v in value), data
                json.dumps(data)
                logged += 1
        finally:
            world.close()
    assert kinds == set(BLOW_KINDS)
    assert len(damage_types) >= 3 and logged > 1000


def test_save_with_pending_blocks_load_and_continue_r_eng_3(tmp_path) -> None:
    """R-ENG-3: a world saved mid-battle while its log holds lazy blocks, loaded and run
    on, writes the log and ends in the snapshot of the world never saved; the loaded
    log is an EventLog again and takes new lazy blocks."""
    whole = finish(battle(4))
    path = str(tmp_path / "mid.json")
    world = battle(4)
    world.run(30)
    assert world.events.pending
    world.save(path)
    saved_and_continued = finish(world)
    loaded = affray.load_world(path)
    try:
        assert type(loaded.events) is EventLog and not loaded.events.pending
        loaded.run(12)  # a round
        assert loaded.events.pending
    except BaseException:
        loaded.close()
        raise
    loaded_and_continued = finish(loaded)
    assert json.dumps(loaded_and_continued[0]) == json.dumps(whole[0])
    assert json.dumps(saved_and_continued[0]) == json.dumps(whole[0])
    assert loaded_and_continued[1] == saved_and_continued[1] == whole[1]


@pytest.mark.parametrize("replace", ["empty", "copy", "new_log"])
def test_a_game_replacing_the_log_with_a_plain_list(replace: str) -> None:
    """A game sets `world.events` to a plain list between rounds (empty, or a copy of
    the log): the rounds after append built event objects to it (no placeholder), the
    battle runs as without the replacement (same snapshot, and the list holds exactly
    the events since), and the column cache is thrown away (its view of the old log
    means nothing; the cache checks the log by identity, so a new EventLog of the same
    events, `new_log`, throws it away too, and takes lazy blocks)."""
    whole_log, whole_snapshot = finish(battle(6))
    world = battle(6)
    try:
        world.run(30)
        assert world.events.pending
        kept = len(world.events)
        old_cache = world.volley_cache
        assert old_cache is not None
        world.events = {"empty": [], "copy": list(world.events),
                        "new_log": EventLog(world.events)}[replace]
        world.run(12)  # the next round: vectorised
        assert world.volley_cache is not None and world.volley_cache is not old_cache
        events = world.events
        assert type(events) is (EventLog if replace == "new_log" else list)
        assert events.pending if replace == "new_log" else True
    except BaseException:
        world.close()
        raise
    log, snapshot = finish(world)
    assert all(type(event) is not LazyBlock and hasattr(event, "to_dict") for event in events)
    assert len(events) == len(log)
    want = whole_log[kept:] if replace == "empty" else whole_log
    assert json.dumps(log) == json.dumps(want)
    assert snapshot == whole_snapshot


def test_editing_the_log_between_rounds_drops_the_column_cache() -> None:
    """Between rounds: reading the log (which builds it) and appending to it keep the
    column cache; deleting or sorting an event of it (an edit) makes the next round
    start new columns; the battle goes on."""
    world = battle(7, spells=False)
    try:
        world.run(13)  # two rounds
        rounds = world.content.fight.round_pulses
        cache = world.volley_cache
        assert cache is not None and world.events.pending
        list(world.events)
        world.run(rounds)
        assert world.volley_cache is cache
        world.events.append(world.events[-1])
        world.events += [world.events[-1]]
        world.run(rounds)
        assert world.volley_cache is cache
        del world.events[0]
        world.run(rounds)
        assert world.volley_cache is not cache and world.volley_cache is not None
        cache = world.volley_cache
        world.run(rounds)  # no edit since: the new columns are kept
        assert world.volley_cache is cache
        world.events.sort(key=lambda event: event.pulse)  # stable: the same order, an edit
        world.run(rounds)
        assert world.volley_cache is not cache and world.volley_cache is not None
        assert world.events.pending  # still lazy after the edits
    finally:
        world.close()


def settle_on_a_block(builds: list, lazy: bool) -> list[dict]:
    """64 unkillable fighters fight a round; the game then ends every fight by hand (it
    clears `Combat.fighting`, which logs nothing: a move would log its R-ACT-3 `fight`
    events), and the world settles with the first round's blows last in the log."""
    from affray.benchmarks.blows import fighting_pairs
    from affray.data.content_loader import default_content

    world = fighting_pairs(default_content(), 64, seed=3)
    try:
        world.run(1)
        assert world.events.pending is lazy
        if lazy:
            assert type(world.events._items[-1]) is LazyBlock and builds == []
        blows = len(world.events)
        for creature_id in world.creature_ids():
            world.sheet(creature_id).combat.fighting = None
        world.fighting.clear()
        world.fought_by.clear()
        world.touch()
        world.run(until="settled")
        assert not world.fighting
        world.run(until="settled")
        kinds = [event.kind for event in world.events]
        assert kinds.count("settled") == 1 and kinds[-1] == "settled"
        assert len(kinds) == blows + 1
        assert type(world.events[-2]) in BLOW_KINDS
        return [event.to_dict() for event in world.events]
    finally:
        world.close()


def test_a_battle_settling_on_a_block_logs_settled_once(monkeypatch, builds) -> None:
    """World.run(until="settled") reads `events[-1]` to log `settled` once: here the last
    events are a round's blows, still a lazy block (`settle_on_a_block`). `settled` is
    logged once, after the blows, and a second run logs nothing; the log is the one
    written with push_lazy building at once."""
    lazy = settle_on_a_block(builds, lazy=True)
    eager(monkeypatch)
    assert settle_on_a_block(builds, lazy=False) == lazy
