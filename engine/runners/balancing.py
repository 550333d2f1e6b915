"""Sweeps and the break-even solver: a scenario run over a grid of values of its fields.

`sweep(scenario, vary={"creatures.warrior.hp": [20, 28, 36], ...}, runs=500)` runs the
cartesian grid of the varied values, `runs` seeds at every point, and gives the batch's
tables with one more column per varied path (and `point`, the grid point's number).
`balance(scenario, "creatures.warrior.hp", 10, 40, side="players", rate=0.5)` looks for
the whole-number value at which a side wins at a target rate, by bisection.

A path names a field of the scenario file by its keys, dotted: `pulses`,
`creatures.<id>.<field>` (a creature by id, or by its place: `creatures.0.hp`),
`creatures.<id>.armor.bash`, `items.<n>.count`, `actions.<n>.pulse`,
`content.<kind>.<name>.<field>` (inline content: `content.spells.fireball.damage`),
`content.world.casting.mana`. Setting it is writing that line into the file: tables on
the way that the file does not have are made (`armor = { bash = 50 }` on a creature
whose template gives the other columns); a named content entry the scenario does not
define inline is first copied from the default content, since an inline entry replaces
the default one whole. Each grid point is then validated as the file would be
(`prepare_parsed`: parsed, layered, a World built and closed), every point before any
run; a bad path or value is a UsageError, or a ScenarioError naming the path and value.

Seeds: every grid point runs the same seeds, `seed .. seed + runs - 1` (common random
numbers): two points differ by their values only, not by their luck, so a difference
between neighbouring points is the change's own and needs fewer runs to show. The row
of a run depends only on the scenario, its point and its seed: the same whatever the
workers, the executor or the backend.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
import math
import numbers
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Literal, overload

from affray.core.errors import AffrayError, ScenarioError, UsageError
from affray.core.esper_context import keeps_esper_world
from affray.runners.batch import (
    COLLECT,
    POINT_COLUMN,
    Plan,
    Progress,
    Tables,
    _Arguments,
    _pyarrow,
    check_arguments,
    columns,
    executor_for,
    prepare_parsed,
    read_scenario,
    run_plan,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from affray.runners.batch import BatchJob

MAX_POINTS = 1_000  # grid points of one sweep: each is validated and kept before a run
MAX_BALANCE_RUNS = 1_000_000  # runs at one value of the solver, at most
# Top-level keys whose values are lists of tables, and how an entry is named in a path.
LIST_SECTIONS = ("creatures", "items", "actions")


# -- paths -------------------------------------------------------------------------------------
def _fail(message: str, command: str = "sweep") -> UsageError:
    return UsageError(f"{command}: {message}")


def _key_of(path: str, command: str = "sweep") -> list[str]:
    """A dotted path's keys; an empty key (`a..b`, a trailing dot) is a UsageError."""
    if not isinstance(path, str) or not path:
        raise _fail(f"a varied path is a dotted field name such as "
                    f"'creatures.warrior.hp', got {path!r}", command)
    keys = path.split(".")
    if any(not key for key in keys):
        raise _fail(f"{path!r}: an empty key in the path (two dots, or one at an end)",
                    command)
    return keys


def _near(word: str, known: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def locate(raw: dict[str, Any], path: str, command: str = "sweep"
           ) -> tuple[Any, ...]:
    """Where a path points in the scenario's tables, as keys and list indices (a
    creature named by id becomes its index): what tells two paths for one field apart
    from two fields. Refuses what cannot be varied, or does not exist, with a
    UsageError naming the path."""
    from affray.data.content_loader import NAMED_KINDS, SINGLE_KINDS
    from affray.data.scenario import SCENARIO_KEYS

    keys = _key_of(path, command)
    top = keys[0]
    if top not in SCENARIO_KEYS:
        raise _fail(f"{path!r}: {top!r} is not a scenario key (known: "
                    f"{', '.join(SCENARIO_KEYS)}){_near(top, SCENARIO_KEYS)}", command)
    if top == "seed":
        raise _fail(f"{path!r}: the seeds are the {command}'s own (seed=, runs=): a "
                    f"scenario's seed is not varied", command)
    if top in LIST_SECTIONS:
        if len(keys) < 3:
            raise _fail(f"{path!r}: name a field of one entry: {top}.<id or number>."
                        f"<field>", command)
        index = _entry_index(raw, top, keys[1], path, command)
        if top == "creatures" and keys[2] == "id":
            raise _fail(f"{path!r}: a creature's id names the table's columns: it is "
                        f"not varied", command)
        return (top, index, *keys[2:])
    if top == "content" and len(keys) >= 2:
        kind = keys[1]
        if kind not in NAMED_KINDS and kind not in SINGLE_KINDS:
            known = set(NAMED_KINDS) | set(SINGLE_KINDS)
            raise _fail(f"{path!r}: {kind!r} is not a content kind (known: "
                        f"{', '.join(sorted(known))}){_near(kind, known)}", command)
        if kind in NAMED_KINDS and len(keys) < 4:
            raise _fail(f"{path!r}: name a field of one entry: content.{kind}.<name>."
                        f"<field>", command)
        if kind in NAMED_KINDS:
            _content_entry(raw, kind, keys[2], path, command)  # it exists somewhere
    if len(keys) > 1 and top in ("name", "pulses", "vectorise"):
        raise _fail(f"{path!r}: {top!r} is a single value, not a table", command)
    return tuple(keys)


def _entry_index(raw: dict[str, Any], section: str, name: str, path: str,
                 command: str) -> int:
    """The index of `creatures.<id>` (by id, else by number), `items.<n>`, `actions.<n>`."""
    entries = raw.get(section, [])
    if not isinstance(entries, list):
        raise _fail(f"{path!r}: the scenario's {section!r} is not a list of tables", command)
    if section == "creatures":
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and entry.get("id") == name:
                return index
    if name.isdigit() and int(name) < len(entries):
        return int(name)
    if section == "creatures":
        ids = [str(entry.get("id")) for entry in entries if isinstance(entry, dict)]
        raise _fail(f"{path!r}: no creature {name!r} in the scenario (its creatures: "
                    f"{', '.join(ids) or 'none'}){_near(name, ids)}", command)
    raise _fail(f"{path!r}: no {section}[{name}]: the scenario has {len(entries)} "
                f"{section} (numbered from 0)", command)


def _content_entry(raw: dict[str, Any], kind: str, name: str, path: str,
                   command: str) -> dict[str, Any]:
    """A named content entry's table: the scenario's inline one, else a copy of the
    default content's (an inline entry replaces the default whole, so a sweep of one
    field starts from the default's others)."""
    from affray.data.content_loader import _raw_default

    inline = raw.get("content", {}).get(kind, {}) if isinstance(raw.get("content"), dict) \
        else {}
    if isinstance(inline, dict) and name in inline:
        return inline[name]  # type: ignore[no-any-return]
    default = _raw_default().get(kind, {})
    if name in default:
        return copy.deepcopy(default[name])  # type: ignore[no-any-return]
    known = [*inline, *default] if isinstance(inline, dict) else list(default)
    raise _fail(f"{path!r}: no {kind} entry {name!r} in the scenario's inline content "
                f"or the default content{_near(name, known)}", command)


def set_path(raw: dict[str, Any], path: str, value: Any, command: str = "sweep") -> None:
    """Set the field a path names in the scenario's tables (in place: give a copy),
    making the tables on the way that are not there. Descending into a value that is
    not a table (`creatures.warrior.hp.x`) is a UsageError."""
    from affray.data.content_loader import NAMED_KINDS

    keys = _key_of(path, command)
    node: Any = raw
    where = list(keys[:1])
    rest = keys
    if keys[0] in LIST_SECTIONS:
        node = raw[keys[0]][_entry_index(raw, keys[0], keys[1], path, command)]
        where, rest = keys[:2], keys[2:]
    elif keys[0] == "content" and len(keys) >= 4 and keys[1] in NAMED_KINDS:
        content = raw.setdefault("content", {})
        kinds = content.setdefault(keys[1], {})
        kinds[keys[2]] = _content_entry(raw, keys[1], keys[2], path, command)
        node, where, rest = kinds[keys[2]], keys[:3], keys[3:]
    for key in rest[:-1]:
        child = node.get(key) if isinstance(node, dict) else None
        if child is None and isinstance(node, dict):
            child = node[key] = {}
        if not isinstance(child, dict):
            shown = ".".join([*where, key])
            raise _fail(f"{path!r}: {shown} is {_kind_name(child)}, not a table", command)
        node, where = child, [*where, key]
    if not isinstance(node, dict):
        raise _fail(f"{path!r}: {'.'.join(where)} is {_kind_name(node)}, not a table",
                    command)
    node[rest[-1]] = value


def _kind_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, numbers.Number):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


# -- values ------------------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """A value as TOML would hold it: numpy scalars as Python numbers, tuples as lists
    (recursively), so a value from `numpy.arange` or `(1, 2)` converts like the file's."""
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    return value


def _grid_values(path: str, values: object, command: str = "sweep") -> list[Any]:
    """A varied path's values: a list (tuple, range, array...) of at least one value,
    none twice."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise _fail(f"{path!r}: give a list of values, got {type(values).__name__} "
                    f"{values!r}", command)
    listed = [plain(value) for value in itertools.islice(values, MAX_POINTS + 1)]
    if not listed:
        raise _fail(f"{path!r}: an empty list of values", command)
    if len(listed) > MAX_POINTS:
        raise _fail(f"{path!r}: more than {MAX_POINTS:,} values (a sweep has at most "
                    f"{MAX_POINTS:,} grid points)", command)
    seen: set[str] = set()
    for value in listed:
        key = json.dumps(value, sort_keys=True, default=repr)
        if key in seen:
            raise _fail(f"{path!r}: the value {value!r} is listed twice", command)
        seen.add(key)
    return listed


def check_vary(vary: object, command: str = "sweep") -> list[tuple[str, list[Any]]]:
    """`vary` checked: a mapping of at least one dotted path to its values, a grid of at
    most MAX_POINTS points. Paths are checked against the scenario later (`locate`)."""
    if not isinstance(vary, Mapping):
        raise _fail(f"vary must be a mapping of dotted paths to lists of values, such as "
                    f"{{'creatures.warrior.hp': [20, 28, 36]}}, got {type(vary).__name__}",
                    command)
    if not vary:
        raise _fail("vary is empty: give at least one path and its values", command)
    out = []
    for path, values in vary.items():
        _key_of(path, command)
        out.append((path, _grid_values(path, values, command)))
    points = math.prod(len(values) for _, values in out)
    if points > MAX_POINTS:
        sizes = " x ".join(str(len(values)) for _, values in out)
        raise _fail(f"the grid has {sizes} = {points:,} points, past the limit of "
                    f"{MAX_POINTS:,}: vary fewer values at once (or bisect one with "
                    f"balance)", command)
    return out


def parse_value(text: str) -> Any:
    """A value of `--vary`: TOML (`5`, `2.5`, `true`, `"text"`, `[1, 2]`), else the text
    itself (`2d6`, `long_sword`)."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def parse_vary_option(text: str, command: str = "sweep", ranges_only: bool = False
                      ) -> tuple[str, list[Any]]:
    """`--vary PATH=V1,V2,...` or `--vary PATH=LO:HI[:STEP]` (HI included when the steps
    reach it; whole numbers, or decimals when any of them is one): (path, values). A
    UsageError says what is wrong. `ranges_only`: the solver's `PATH=LO:HI`, whole
    numbers, no step."""
    path, equals, spec = text.partition("=")
    path, spec = path.strip(), spec.strip()
    form = "PATH=LO:HI" if ranges_only else "PATH=V1,V2,... or PATH=LO:HI:STEP"
    if not equals or not path or not spec:
        raise _fail(f"--vary {text!r}: expected {form}", command)
    _key_of(path, command)
    parts = [part.strip() for part in spec.split(":")]
    numbers_given = [parse_value(part) for part in parts]
    if len(parts) in (2, 3) and all(_is_number(value) for value in numbers_given):
        if ranges_only:
            if len(parts) == 3:
                raise _fail(f"--vary {text!r}: the solver takes {form}, no step", command)
            if not all(isinstance(value, int) for value in numbers_given):
                raise _fail(f"--vary {text!r}: LO and HI must be whole numbers", command)
            return path, numbers_given
        return path, _steps(text, numbers_given, command)
    if ranges_only:
        raise _fail(f"--vary {text!r}: expected {form} with whole numbers", command)
    return path, _listed(text, spec, command)


def _split_commas(spec: str) -> list[str]:
    """Items between commas, a comma inside double quotes kept (`"x,y",z`: two items)."""
    items, current, quoted = [], "", False
    for character in spec:
        if character == '"':
            quoted = not quoted
        if character == "," and not quoted:
            items.append(current)
            current = ""
        else:
            current += character
    return [*items, current]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _steps(text: str, given: list[Any], command: str = "sweep") -> list[Any]:
    """LO:HI[:STEP] as its values, HI included when the steps reach it."""
    low, high, step = (*given, 1) if len(given) == 2 else given
    if step <= 0:
        raise _fail(f"--vary {text!r}: STEP must be above 0, got {step}", command)
    if low > high:
        raise _fail(f"--vary {text!r}: LO {low} is above HI {high}", command)
    count = math.floor((high - low) / step + 1e-9) + 1
    if count > MAX_POINTS:
        raise _fail(f"--vary {text!r}: {count:,} values, past the limit of {MAX_POINTS:,} "
                    f"grid points", command)
    if all(isinstance(value, int) for value in (low, high, step)):
        return list(range(int(low), int(high) + 1, int(step)))
    return [round(low + index * step, 10) for index in range(count)]


def _listed(text: str, spec: str, command: str) -> list[Any]:
    """V1,V2,...: a TOML list when it reads as one (quotes keep their commas), else each
    comma-separated item on its own."""
    try:
        values = tomllib.loads(f"value = [{spec}]")["value"]
    except tomllib.TOMLDecodeError:
        items = [item.strip() for item in _split_commas(spec)]
        if any(not item for item in items):
            raise _fail(f"--vary {text!r}: an empty value between commas", command) from None
        values = [parse_value(item) for item in items]
    if not values:
        raise _fail(f"--vary {text!r}: no values", command)
    return list(values)


# -- the grid ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario read and parsed once: each grid point is its raw tables, copied and
    edited at the varied paths, converted and validated again."""

    source: str
    text: str
    raw: dict[str, Any]

    @classmethod
    def read(cls, scenario: str | Path) -> Scenario:
        from affray.data.scenario import parse_scenario

        path, text = read_scenario(scenario)
        _spec, raw = parse_scenario(text, str(path))
        return cls(str(path), text, raw)

    def point(self, edits: Sequence[tuple[str, Any]], command: str = "sweep"
              ) -> BatchJob:
        """The job of one grid point: the scenario with each (path, value) set,
        validated as the file would be. A value the scenario refuses is a ScenarioError
        naming the path and the value, and the file, entry and field as usual."""
        import msgspec

        from affray.data.defs import decode_error_field
        from affray.data.scenario import ScenarioFile, _entry_name

        raw = copy.deepcopy(self.raw)
        for path, value in edits:
            set_path(raw, path, value, command)
        shown = ", ".join(f"{path} = {value!r}" for path, value in edits)
        try:
            try:
                spec = msgspec.convert(raw, type=ScenarioFile)
            except msgspec.ValidationError as error:
                where, detail = decode_error_field(error)
                raise ScenarioError(f"{self.source}: {_entry_name(raw, where)}: "
                                    f"{detail}") from None
            return prepare_parsed(spec, raw, self.source)
        except AffrayError as error:
            message = str(error).removeprefix(f"{self.source}: ")
            raise ScenarioError(f"{self.source}: {command}: {shown}: {message}") from None


def grid(scenario: Scenario, vary: list[tuple[str, list[Any]]], command: str = "sweep"
         ) -> Plan:
    """Every grid point's job (the cartesian product in the order of `vary`, the last
    path fastest), each validated before any run. Every point has the scenario's
    creatures (an id is not varied: `locate`), so the columns are the same throughout."""
    located: dict[tuple[Any, ...], str] = {}
    for path, _values in vary:
        where = locate(scenario.raw, path, command)
        for other_where, other in located.items():
            shorter = min(len(where), len(other_where))
            if where[:shorter] == other_where[:shorter]:
                relation = "the same field as" if len(where) == len(other_where) \
                    else "inside" if len(where) > len(other_where) else "around"
                raise _fail(f"{path!r} is {relation} {other!r}: vary each field once",
                            command)
        located[where] = path
    paths = tuple(path for path, _ in vary)
    points = tuple(itertools.product(*(values for _, values in vary)))
    jobs = tuple(scenario.point(list(zip(paths, point, strict=True)), command)
                 for point in points)
    plan = Plan(jobs=jobs, paths=paths, values=points, text=scenario.text)
    _check_columns(plan, command)
    return plan


def _check_columns(plan: Plan, command: str) -> None:
    """A varied path must not be named like another column of the tables (`pulses` is
    the run table's, a creature id with dots could make `creatures.x.hp`)."""
    from affray.runners.batch import LONG_COLUMNS, ROUND_COLUMNS

    taken = {name for name, _ in columns(plan)} | {POINT_COLUMN} | \
        {name for name, _ in LONG_COLUMNS} | {name for name, _ in ROUND_COLUMNS}
    for path in plan.paths:
        if path in taken or path.startswith(("damage_taken.", "damage_dealt.")):
            raise _fail(f"{path!r}: the tables already have a column of that name; it "
                        f"cannot be varied (vary another field)", command)


# -- sweep -------------------------------------------------------------------------------------
@overload
def sweep(scenario: str | Path, vary: Mapping[str, Iterable[Any]], runs: int,
          seed: int = ..., workers: int = ..., executor: Executor | None = ..., *,
          backend: str = ..., scheduler: str | None = ..., chunk_size: int | None = ...,
          progress: Progress | None = ..., collect: Literal["runs"] = ...,
          pack: int | None = ...) -> pa.Table: ...


@overload
def sweep(scenario: str | Path, vary: Mapping[str, Iterable[Any]], runs: int,
          seed: int = ..., workers: int = ..., executor: Executor | None = ..., *,
          backend: str = ..., scheduler: str | None = ..., chunk_size: int | None = ...,
          progress: Progress | None = ..., collect: Literal["creatures", "rounds"],
          pack: int | None = ...) -> Tables: ...


@keeps_esper_world
def sweep(scenario: str | Path, vary: Mapping[str, Iterable[Any]], runs: int,
          seed: int = 0, workers: int = 1, executor: Executor | None = None, *,
          backend: str = "local", scheduler: str | None = None,
          chunk_size: int | None = None, progress: Progress | None = None,
          collect: str = "runs", pack: int | None = None) -> pa.Table | Tables:
    """Run the cartesian grid of `vary`'s values, `runs` seeds at each point.

    `vary` maps dotted paths (module docstring) to lists of values, e.g.
    `{"creatures.warrior.hp": [20, 28, 36], "creatures.orc.armor.bash": [0, 50]}`: 6
    points, the last path fastest. Every point runs seeds `seed .. seed + runs - 1`.

    Returns what `affray.batch` does (the run table; `Tables` with `collect=
    "creatures"` or `"rounds"`), each table with `point` and one column per varied path,
    named by the path, after `run` and `seed`; `run` numbers the rows of the whole grid
    (point p's runs are `p * runs ..`). The tables' metadata (kept by Parquet) holds the
    scenario's path and text, the varied paths (`varied`, JSON) and the grid (`grid`).

    Everything is checked before any run: the arguments as `batch` checks them, each
    path (it exists, is varied once, can be varied), each value list (not empty, no value
    twice, at most MAX_POINTS points in all), and every point's scenario, validated as
    the file would be. Workers, executor and backend as `batch`; the rows are the same
    whichever. `pack=K` packs each point's runs K to a World, as `batch` does.
    """
    pa = _pyarrow("sweep")
    checked = check_arguments(scenario, runs, seed, workers, executor, backend, scheduler,
                              chunk_size, progress, collect, command="sweep", pack=pack)
    wanted = check_vary(vary)
    plan = grid(Scenario.read(scenario), wanted)
    points = len(plan.jobs)
    if checked.runs and points > (2**63) // checked.runs:
        raise _fail(f"{points:,} points x {checked.runs:,} runs do not fit the run "
                    f"numbers (2**63)")
    tables = run_plan(plan, checked, executor=executor, backend=backend,
                      scheduler=scheduler, progress=progress, pa=pa)
    return tables.runs if checked.collect == "runs" else tables


# -- balance -----------------------------------------------------------------------------------
Verdict = Literal["above", "below", "undecided"]


@dataclass(frozen=True, slots=True)
class Step:
    """One value the solver ran: its runs (errors left out), the side's wins, the rate
    and its Wilson interval at the solver's confidence, and what the interval decided
    about the target rate."""

    value: int
    runs: int
    wins: int
    errors: int
    rate: float | None
    low: float
    high: float
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class Balance:
    """The solver's answer. `value` is the break-even value (None: none in the range);
    `below` and `above` the values next to it decided on either side of the target
    (None when the answer is an end of the range); `steps` every value run, in order."""

    path: str
    side: str
    target: float
    confidence: float
    low: int
    high: int
    value: int | None
    below: Step | None
    above: Step | None
    steps: tuple[Step, ...]
    message: str

    @property
    def runs(self) -> int:
        return sum(step.runs + step.errors for step in self.steps)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["runs"] = self.runs
        return out


def z_of(confidence: float) -> float:
    """The normal quantile of a two-sided interval (0.95: 1.96)."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _fraction(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not low < float(value) < high or math.isnan(float(value)):
        raise _fail(f"{name} must be a number above {low} and below {high}, got {value!r}",
                    "balance")
    return float(value)


@keeps_esper_world
def balance(scenario: str | Path, path: str, low: int, high: int, *, side: str,
            rate: float = 0.5, confidence: float = 0.95, runs: int = 200,
            max_runs: int = 5_000, seed: int = 0, workers: int = 1,
            executor: Executor | None = None, backend: str = "local",
            scheduler: str | None = None,
            progress: Callable[[Step], None] | None = None) -> Balance:
    """The whole-number value of `path` in `low..high` at which `side` wins at `rate`.

    Bisection on the value, the win rate taken to move one way with it (more hit
    points, more wins; more of the foe's armor, fewer). At each value it runs `runs`
    seeds, then `runs` more, until the Wilson interval at `confidence` lies wholly above
    or below `rate` (decided) or `max_runs` were run (undecided: the rate cannot be told
    from the target; its side is then its rate's). It first runs both ends: on the same
    side, there is no break-even in the range and `value` is None (unless an end is
    undecided: that end is the answer). Otherwise it halves the range until its ends
    are neighbours, one below the target and one above (`below`, `above`), and answers
    the one whose rate is nearer the target.

    Every value runs the same seeds (`seed ..`), as a sweep's points do. The ends are
    validated before any run (path, values, side); workers as `batch`, one pool (or
    cluster) for the whole search.
    """
    _pyarrow("balance")
    checked = check_arguments(scenario, 1, seed, workers, executor, backend, scheduler,
                              command="balance")  # runs: checked below, with max_runs
    target = _fraction("rate", rate, 0.0, 1.0)
    level = _fraction("confidence", confidence, 0.5, 1.0)
    if level > 0.9999:
        raise _fail(f"confidence must be at most 0.9999, got {confidence!r}", "balance")
    from affray.runners.batch import _whole

    per_step = _whole("runs", runs, 1, MAX_BALANCE_RUNS, "balance")
    most = _whole("max_runs", max_runs, per_step, MAX_BALANCE_RUNS, "balance")
    if checked.seed + most - 1 > 2**63 - 1:
        raise _fail(f"seeds {checked.seed}..{checked.seed + most - 1} pass the last seed, "
                    f"2**63 - 1", "balance")
    start = _whole("low", low, -(2**62), 2**62, "balance")
    end = _whole("high", high, -(2**62), 2**62, "balance")
    if start >= end:
        raise _fail(f"low ({start}) must be below high ({end})", "balance")
    source = Scenario.read(scenario)
    locate(source.raw, path, "balance")
    ends = {start: source.point([(path, start)], "balance"),
            end: source.point([(path, end)], "balance")}
    sides = tuple(dict.fromkeys(s for job in ends.values() for s in job.sides))
    if not isinstance(side, str) or side not in sides:
        raise _fail(f"side {side!r} is not one of the scenario's sides ({', '.join(sides)})"
                    f"{_near(str(side), sides)}", "balance")
    solver = _Solver(source, path, side, target, z_of(level), per_step, most, checked,
                     progress)
    with executor_for(checked, executor, backend, scheduler) as running:
        solver.executor = running
        return solver.solve(start, end, ends, level)


class _Solver:
    """The bisection's state: the seeds, the executor, the steps so far."""

    def __init__(self, source: Scenario, path: str, side: str, target: float, z: float,
                 per_step: int, most: int, checked: _Arguments,
                 progress: Callable[[Step], None] | None) -> None:
        self.source, self.path, self.side, self.target, self.z = source, path, side, target, z
        self.per_step, self.most, self.checked, self.progress = per_step, most, checked, progress
        self.executor: Executor | None = None
        self.steps: list[Step] = []

    def evaluate(self, value: int, job: BatchJob | None = None) -> Step:
        """Run `value` until its interval decides, or `max_runs`."""
        from affray.display.report import wilson

        job = job or self.source.point([(self.path, value)], "balance")
        plan = Plan(jobs=(job,), text=self.source.text)
        wins = trials = errors = 0
        first_error = None
        while True:
            more = min(self.per_step, self.most - trials - errors)
            checked = _Arguments(runs=more, seed=self.checked.seed + trials + errors,
                                 workers=self.checked.workers,
                                 chunk_size=self.checked.chunk_size)
            table = run_plan(plan, checked, executor=self.executor).runs
            for winner, error in zip(table.column("winner").to_pylist(),
                                     table.column("error").to_pylist(), strict=True):
                if error is not None:
                    errors += 1
                    first_error = first_error or error
                    continue
                trials += 1
                wins += winner == self.side
            low, high = wilson(wins, trials, self.z)
            verdict: Verdict = "above" if trials and low > self.target else \
                "below" if trials and high < self.target else "undecided"
            step = Step(value, trials, wins, errors, wins / trials if trials else None,
                        low, high, verdict)
            if self.progress is not None:
                self.progress(step)
            if verdict != "undecided" or trials + errors >= self.most:
                break
        if not trials:
            raise ScenarioError(f"{self.source.source}: balance: every run at {self.path} = "
                                f"{value} raised: {first_error}")
        self.steps.append(step)
        return step

    def side_of(self, step: Step) -> Verdict:
        """Which side of the target a step is on: its interval's verdict, else (not
        decided within max_runs) its rate's."""
        if step.verdict != "undecided":
            return step.verdict
        return "above" if (step.rate or 0.0) >= self.target else "below"

    def solve(self, start: int, end: int, ends: dict[int, BatchJob], level: float
              ) -> Balance:
        """Both ends, then halve the range between values on opposite sides of the
        target until they are neighbours; the answer is the nearer of the two."""
        lower, upper = self.evaluate(start, ends[start]), self.evaluate(end, ends[end])
        if self.side_of(lower) == self.side_of(upper):
            loose = [step for step in (lower, upper) if step.verdict == "undecided"]
            if loose:  # an end the interval could not tell from the target
                nearest = min(loose, key=lambda step: abs((step.rate or 0) - self.target))
                return self._answer(start, end, level, nearest.value, None, None,
                                    f"only at {nearest.value}, an end of the range, is the "
                                    f"rate within the noise of the target")
            where = self.side_of(lower)
            return self._answer(start, end, level, None, None, None,
                                f"the rate is {where} the target at both ends: no "
                                f"break-even in {start}..{end}")
        while upper.value - lower.value > 1:
            middle = self.evaluate((lower.value + upper.value) // 2)
            if self.side_of(middle) == self.side_of(lower):
                lower = middle
            else:
                upper = middle
        below, above = (lower, upper) if self.side_of(lower) == "below" else (upper, lower)
        # the nearer to the target; on a tie the one at or above it (the side reaches it)
        nearer = min((above, below), key=lambda step: abs((step.rate or 0) - self.target))
        undecided = sum(step.verdict == "undecided" for step in self.steps)
        message = ("every step decided by its interval" if not undecided else
                   f"{undecided} of {len(self.steps)} values could not be told from the target "
                   f"in {self.most:,} runs (their side is their rate's)")
        return self._answer(start, end, level, nearer.value, below, above, message)

    def _answer(self, start: int, end: int, level: float, value: int | None,
                below: Step | None, above: Step | None, message: str) -> Balance:
        return Balance(path=self.path, side=self.side, target=self.target,
                       confidence=level, low=start, high=end, value=value, below=below,
                       above=above, steps=tuple(self.steps), message=message)


__all__ = ["COLLECT", "MAX_POINTS", "Balance", "Step", "balance", "check_vary", "grid",
           "parse_vary_option", "sweep"]
