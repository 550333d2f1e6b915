"""docs/contract.md cannot drift from the code.

The page restates the public contract (SCENARIO.md, in the project's shared folder) and
affray's additions. These tests read its tables and compare them with what the installed
package does: every event kind registered, with exactly its fields in its `to_dict()`
order; the keys of a built-in scenario's snapshot, `affray run --json` document and batch
rows; the fields the scenario schema accepts; every command of `affray` with exactly its
options; every name `affray` exports. A kind, a field, a key, a command or an option
missing from the page, or named there but gone from the code, fails.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

import affray
from affray.cli import _parser, main
from affray.core.events import EVENT_TYPES
from affray.data.content_loader import NAMED_KINDS, SINGLE_KINDS
from affray.data.defs import (
    ArmorBlock,
    CastingConfig,
    ItemDef,
    MaterialDef,
    MindDef,
    SpellDef,
    StatBlock,
)
from affray.data.scenario import (
    ChestItem,
    MapSpec,
    ScenarioAction,
    ScenarioCreature,
    ScenarioFile,
    ScenarioItem,
    builtin_scenario,
)

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "docs" / "contract.md"
CODE = re.compile(r"`([^`]+)`")


# -- reading the page ---------------------------------------------------------------------

def sections(text: str) -> dict[tuple[str, str], str]:
    """The page's text by (H2 title, H3 title); "" for the text before a section's first H3.
    Lines inside fenced code blocks are never headings."""
    found: dict[tuple[str, str], list[str]] = {}
    h2 = h3 = ""
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            h2, h3 = line[3:].strip(), ""
            continue
        elif not fenced and line.startswith("### "):
            h3 = line[4:].strip()
            continue
        found.setdefault((h2, h3), []).append(line)
    return {key: "\n".join(lines) for key, lines in found.items()}


def section(text: str, h2: str, h3: str = "") -> str:
    """One section's text; a section the page lacks fails the test that needs it."""
    parts = sections(text)
    assert (h2, h3) in parts, f"docs/contract.md has no section {h2!r} / {h3!r}"
    return parts[(h2, h3)]


def table_rows(body: str) -> list[list[str]]:
    """The body rows of the Markdown tables in a section, as cells (`\\|` is a pipe)."""
    rows = []
    for line in body.splitlines():
        if not line.startswith("|") or re.fullmatch(r"\|[\s|:-]+\|", line.strip()):
            continue
        cells = [cell.strip().replace("\\|", "|")
                 for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        rows.append(cells)
    return rows[1:] if rows else rows  # the first row is the header


def first_codes(body: str) -> list[str]:
    """The first cell's code span of each table row: the key, field or name it documents."""
    names = []
    for cells in table_rows(body):
        spans = CODE.findall(cells[0])
        assert spans, f"a row without a `name` in its first cell: {cells}"
        names.append(spans[0])
    return names


def top_level_parts(cell: str) -> list[str]:
    """A cell such as "`a` (x, y), `b` (z)" split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(cell):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(cell[start:index])
            start = index + 1
    parts.append(cell[start:])
    return [part.strip() for part in parts if part.strip()]


def documented_events(text: str) -> dict[str, list[str]]:
    """kind -> its fields, in the page's order, from the events table."""
    events = {}
    for cells in table_rows(section(text, "Events")):
        kind = CODE.findall(cells[0])
        assert len(kind) == 1, f"an events row without one `kind`: {cells}"
        events[kind[0]] = CODE.findall(cells[1])
    return events


@pytest.fixture(scope="module")
def page() -> str:
    return CONTRACT.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo() -> Iterator[affray.World]:
    """The demo run to its end: it has creatures, floor items, a chest, fires and doors."""
    world = affray.load_scenario(builtin_scenario("demo"))
    world.run()
    yield world
    world.close()


# -- events -------------------------------------------------------------------------------

def json_fields(kind: type) -> list[str]:
    """The fields of an event kind as `to_dict()` writes them, `pulse` and `kind` aside."""
    record = kind(*([None] * len(kind._fields)))  # type: ignore[attr-defined]
    return [key for key in record.to_dict() if key not in ("pulse", "kind")]


def test_json_fields_are_the_named_tuple_s_with_from_spelt_from():
    """The check's own premise: `_fields` minus `pulse`, `from_` written `from`."""
    for kind in EVENT_TYPES.values():
        expected = [name.rstrip("_") for name in kind._fields if name != "pulse"]
        assert json_fields(kind) == expected, kind


def test_every_event_kind_is_on_the_page_with_exactly_its_fields(page):
    documented = documented_events(page)
    expected = {name: json_fields(kind) for name, kind in EVENT_TYPES.items()}
    assert sorted(set(expected) - set(documented)) == [], "kinds missing from the page"
    assert sorted(set(documented) - set(expected)) == [], "kinds the engine lacks"
    for name, fields in expected.items():
        assert documented[name] == fields, (
            f"{name}: the page says {documented[name]}, the engine logs {fields}")


def test_the_event_check_fails_on_a_missing_or_extra_field(page):
    """The comparison is not vacuous: one field dropped or added shows."""
    row = next(line for line in section(page, "Events").splitlines()
               if line.startswith("| `damage` |"))
    dropped = page.replace(row, row.replace(", `status` |", " |", 1))
    added = page.replace(row, row.replace(", `status` |", ", `status`, `extra` |", 1))
    expected = json_fields(EVENT_TYPES["damage"])
    assert documented_events(page)["damage"] == expected
    assert documented_events(dropped)["damage"] == expected[:-1]
    assert documented_events(added)["damage"] == [*expected, "extra"]
    gone = page.replace(row + "\n", "")
    assert "damage" not in documented_events(gone)


# -- the snapshot -------------------------------------------------------------------------

SNAPSHOT_LISTS = ("items", "chests", "fires", "doors")


def test_the_snapshot_s_top_level_keys_are_the_page_s(page, demo):
    documented = first_codes(section(page, "The snapshot", "The top level"))
    assert sorted(documented) == sorted(demo.snapshot())


def test_a_creature_entry_s_keys_are_the_page_s(page, demo):
    documented = first_codes(section(page, "The snapshot", "`creatures`"))
    for creature_id, entry in demo.snapshot()["creatures"].items():
        assert sorted(documented) == sorted(entry), creature_id


@pytest.mark.parametrize("key", SNAPSHOT_LISTS)
def test_the_entries_of_each_snapshot_list_have_the_page_s_keys(page, demo, key):
    entries = demo.snapshot()[key]
    assert entries, f"the demo's end has no {key}: the check would check nothing"
    documented = first_codes(section(page, "The snapshot", f"`{key}`"))
    for entry in entries:
        assert sorted(documented) == sorted(entry), entry


# -- affray run --json and batch rows -----------------------------------------------------

def test_the_run_json_document_and_its_summary_have_the_page_s_keys(page, capsys):
    assert main(["run", "demo", "--json", "--quiet"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert sorted(first_codes(section(page, "`affray run --json`", "The document"))) == sorted(
        document)
    summary_rows = {CODE.findall(cells[0])[0]: CODE.findall(cells[1])
                    for cells in table_rows(section(page, "`affray run --json`", "`summary`"))}
    summary = document["summary"]
    assert sorted(summary_rows) == sorted(summary)
    for key in ("creatures", "sides"):
        assert summary[key], key
        for entry in summary[key]:
            assert sorted(summary_rows[key]) == sorted(entry), (key, entry)


def column_pattern(column: str, ids: set[str], types: set[str]) -> str:
    """A batch column with its creature id, side and damage type replaced by placeholders."""
    side = re.fullmatch(r"side\.(.+)\.standing", column)
    if side:
        return "side.<side>.standing"
    head, _, rest = column.partition(".")
    if head not in ids:
        return column
    parts = rest.split(".")
    if len(parts) == 2 and parts[0] == "damage_taken" and parts[1] in types:
        rest = "damage_taken.<type>"
    return f"<id>.{rest}"


def test_batch_rows_have_the_page_s_columns(page, demo):
    pytest.importorskip("pyarrow")
    table = affray.batch("demo", runs=1)
    ids = set(demo.snapshot()["creatures"])
    types = set(demo.content.damage.types)
    patterns = {column_pattern(column, ids, types) for column in table.column_names}
    assert "side.<side>.standing" in patterns and "<id>.damage_taken.<type>" not in patterns
    assert sorted(first_codes(section(page, "Batch rows"))) == sorted(patterns)


# -- scenario files -----------------------------------------------------------------------

def struct_fields(struct: type) -> list[str]:
    return [field.encode_name for field in msgspec.structs.fields(struct)]


@pytest.mark.parametrize("title, struct", [
    ("The top level", ScenarioFile),
    ("`[map]`", MapSpec),
    ("`[[creatures]]`", ScenarioCreature),
    ("`[[items]]`", ScenarioItem),
    ("`[[actions]]`", ScenarioAction),
])
def test_each_scenario_table_lists_exactly_the_schema_s_fields(page, title, struct):
    documented = first_codes(section(page, "Scenario files", title))
    assert len(documented) == len(set(documented)), f"{title}: a field listed twice"
    assert sorted(documented) == sorted(struct_fields(struct)), title


@pytest.mark.parametrize("title, field, struct", [
    ("`[[creatures]]`", "stats", StatBlock),
    ("`[[creatures]]`", "armor", ArmorBlock),
    ("`[[items]]`", "contents", ChestItem),
])
def test_a_nested_table_s_row_names_its_keys(page, title, field, struct):
    row = next(cells for cells in table_rows(section(page, "Scenario files", title))
               if CODE.findall(cells[0]) == [field])
    named = set(re.findall(r"\w+", " ".join(CODE.findall(row[2]))))
    assert set(struct_fields(struct)) <= named, (field, row[2])


def test_the_inline_content_kinds_are_the_loader_s(page):
    body = section(page, "Scenario files", "Inline content")
    paragraph = next(p for p in body.split("\n\n") if p.strip().startswith("Under `[content."))
    kinds = set(CODE.findall(paragraph.partition("The kinds:")[2].partition("The fields")[0]))
    assert kinds == set(NAMED_KINDS) | set(SINGLE_KINDS)


@pytest.mark.parametrize("kind, struct", [
    ("minds", MindDef), ("world.casting", CastingConfig), ("spells", SpellDef),
    ("items", ItemDef), ("materials", MaterialDef),
])
def test_every_content_field_the_page_names_exists(page, kind, struct):
    """The contract names some fields of each kind (content/*.toml show them all): each
    one named must be a field the loader accepts."""
    rows = {CODE.findall(cells[0])[0]: cells[1]
            for cells in table_rows(section(page, "Scenario files", "Inline content"))}
    named = [CODE.findall(part)[0] for part in top_level_parts(rows[kind])]
    assert named, kind
    assert sorted(set(named) - set(struct_fields(struct))) == [], kind


# -- the command line ---------------------------------------------------------------------

def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def parser_arguments(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each argument as the page writes it: option string or positional name -> the word
    after it ("" for a flag, "a|b" for choices, the metavar or the name otherwise)."""
    arguments = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if not action.option_strings:
            name = action.metavar or action.dest.upper()
            arguments[name + ("..." if action.nargs == "+" else "")] = ""
            continue
        if action.choices:
            value = "|".join(action.choices)
        elif action.nargs == 0:
            value = ""
        else:
            value = "*"  # any metavar: N, FILE, K, ADDRESS
        for option in action.option_strings:
            arguments[option] = value
    return arguments


def documented_arguments(body: str) -> dict[str, str]:
    arguments = {}
    for cells in table_rows(body):
        for span in CODE.findall(cells[0]):
            name, _, value = span.partition(" ")
            arguments[name] = value
    return arguments


def matches(documented: dict[str, str], actual: dict[str, str]) -> bool:
    return documented.keys() == actual.keys() and all(
        documented[name] == value or (value == "*" and documented[name])
        for name, value in actual.items())


def test_every_command_has_a_section(page):
    titles = {h3 for h2, h3 in sections(page) if h2 == "The command line"}
    commands = {title.strip("`").removeprefix("affray ") for title in titles
                if title.startswith("`affray ")}
    assert commands == set(subcommands())


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_command_s_options_are_on_the_page(page, command):
    body = section(page, "The command line", f"`affray {command}`")
    documented = documented_arguments(body)
    actual = parser_arguments(subcommands()[command])
    assert matches(documented, actual), (
        f"affray {command}: the page has {documented}, the parser {actual}")


def test_the_top_level_options_are_on_the_page(page):
    documented = documented_arguments(section(page, "The command line", "`affray`"))
    assert matches(documented, parser_arguments(_parser()))


def test_the_option_check_fails_on_a_missing_or_extra_option(page):
    body = section(page, "The command line", "`affray run`")
    actual = parser_arguments(subcommands()["run"])
    assert matches(documented_arguments(body), actual)
    assert not matches(documented_arguments(body.replace("| `--quiet` |", "| x |")), actual)
    extra = body + "\n| `--loud` | more |"
    assert not matches(documented_arguments(extra), actual)
    wrong_choice = body.replace("`--until settled`", "`--until done`")
    assert not matches(documented_arguments(wrong_choice), actual)


def test_the_exit_statuses_are_the_contract_s(page):
    """0, 1, 2 (SCENARIO.md) and 141 (a closed pipe; tests/test_cli.py runs each)."""
    rows = table_rows(section(page, "The command line", "Exit status"))
    assert [cells[0] for cells in rows] == ["0", "1", "2", "141"]


# -- the Python API -----------------------------------------------------------------------

def test_every_name_affray_exports_is_on_the_page(page):
    names = {span.partition("(")[0].strip()
             for cells in table_rows(section(page, "The Python API"))
             for span in CODE.findall(cells[0])}
    assert names == set(affray.__all__)
