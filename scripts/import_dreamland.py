"""Import DreamLand MUD reference data into affray's TOML content files.

affray's content defaults (materials, stat bonus tables, profession THAC0 values) come from
the original game's data files, copied read-only into ``../shared/reference/dreamland/``.
This script makes that import reproducible: it reads those files and writes
``content/materials.toml``, ``content/stats.toml`` and ``content/professions.toml``.
Do not hand-edit the generated files; change this script (or the source) and re-run it.

The only non-upstream values are the material ``family`` (FAMILY_RULES) and ``acid_resist``
(ACID_RESIST): both are affray design choices kept as data tables below.

Usage: python scripts/import_dreamland.py [--source DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO_ROOT / "../shared/reference/dreamland"
DEFAULT_OUT = REPO_ROOT / "content"

# Upstream provenance, copied from the reference README.md.
WORLD = "dreamland-mud/dreamland_world"
WORLD_HEAD = "2fee72dd35f3f81041906541ca59399fd1e0d973"
UPSTREAM = {
    "material.json": (WORLD, "fight/material.json", "a699a66d2f5f5e3cede1888e96961eb91f1969e4"),
    "str_app.json": (WORLD, "fight/str_app.json", "f0a4b6168e9928f474134639d7d11e7190d7d716"),
    "int_app.json": (WORLD, "fight/int_app.json", "a103eea8a0005eac06b680e1539fce49ce013bc1"),
    "wis_app.json": (WORLD, "fight/wis_app.json", "f804ed7d0881827a8df514a1bc4ab637bc6882e4"),
    "dex_app.json": (WORLD, "fight/dex_app.json", "f94ef3ca5994e7f49b2bb65682c59a20c642369c"),
    "professions_thac.derived.json": (WORLD, "professions/*.xml (derived)", WORLD_HEAD),
}

# Material family, first rule that fits wins. A rule is (test, values, family):
# "name" = the material name is one of values; "type" = one of values is among the
# space-separated upstream types; "type_is" = the whole upstream type string equals values[0].
FAMILY_RULES: list[tuple[str, tuple[str, ...], str]] = [
    ("name", ("paper", "parchment"), "paper"),
    ("name", ("vellum",), "paper"),
    ("name", ("wax",), "wax"),
    ("name", ("glass", "crystal"), "glass"),
    ("name", ("bone", "ivory"), "bone"),
    ("type", ("leather",), "hide"),
    ("type", ("cloth",), "cloth"),
    ("type", ("wood",), "wood"),
    ("type", ("metal",), "metal"),
    ("type", ("gem",), "gem"),
    ("type", ("mineral",), "stone"),
    ("type", ("element",), "element"),
    ("type", ("abstract",), "abstract"),
    ("type_is", ("organic",), "organic"),
]
FALLBACK_FAMILY = "none"

# Percent chance that a worn piece of this family withstands acid, with the reason.
ACID_RESIST: dict[str, tuple[int, str]] = {
    "metal": (60, "corrodes, but a worn piece usually survives a splash"),
    "glass": (90, "chemically inert to almost every acid"),
    "gem": (90, "hard crystalline minerals barely react"),
    "stone": (70, "mostly resistant; carbonates such as marble and chalk fizz"),
    "bone": (40, "its mineral part dissolves slowly in acid"),
    "wood": (25, "chars and weakens quickly"),
    "hide": (20, "tanned skin is eaten through readily"),
    "cloth": (10, "thin fibres dissolve almost at once"),
    "paper": (0, "nothing there to withstand anything"),
    "wax": (30, "inert to acid but soft and thin"),
    "organic": (5, "flesh, plants and food give almost no protection"),
    "element": (50, "not an ordinary substance; a coin flip"),
    "abstract": (100, "not physical: acid has nothing to eat"),
    "none": (0, "unknown material: assume no protection"),
}
INDESTRUCTIBLE_ACID_RESIST = 100  # a material flagged `indestr` never fails
KNOWN_MATERIAL_FLAGS = {"melting", "fragile", "indestr", "tough"}

STAT_TABLES: list[tuple[str, str, tuple[str, ...]]] = [
    ("str", "str_app.json", ("hit", "carry", "wield", "web", "damage")),
    ("int", "int_app.json", ("learn", "slevel")),
    ("wis", "wis_app.json", ("practice", "learn", "slevel")),
    ("dex", "dex_app.json", ("missile_hit", "missile_damage", "defensive")),
]
STAT_RANGE = 29  # stat values 0..28

PROFESSION_FLAGS = ("caster", "hybrid", "agile")  # first one present wins, else "other"

_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def load_json(path: Path) -> Any:
    """Parse a JSON file after stripping `//` and `/* */` comments (outside strings)."""
    text = path.read_text(encoding="utf-8")
    return json.loads(_COMMENT_OR_STRING.sub(lambda m: m[0] if m[0][0] == '"' else "", text))


def fail(message: str) -> None:
    raise SystemExit(f"import_dreamland: {message}")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


def toml_value(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str | list):
        fail(f"unsupported TOML value {value!r}")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # ints, and strings (JSON escapes are TOML-valid)


def header(title: str, sources: list[str], extra: list[str]) -> list[str]:
    lines = [
        f"# {title}",
        "# GENERATED by scripts/import_dreamland.py -- do not edit by hand;",
        "# change the script (or the source data) and re-run it.",
        "# Upstream (see ../shared/reference/dreamland/README.md):",
    ]
    for name in sources:
        repo, path, commit = UPSTREAM[name]
        lines.append(f"#   {name}: {repo} {path} @ {commit}")
    return [*lines, "#", *(f"# {line}" if line else "#" for line in extra), ""]


def family_of(name: str, types: list[str]) -> str:
    for test, values, family in FAMILY_RULES:
        if (
            (test == "name" and name in values)
            or (test == "type" and any(v in types for v in values))
            or (test == "type_is" and " ".join(types) == values[0])
        ):
            return family
    return FALLBACK_FAMILY


def describe_rule(test: str, values: tuple[str, ...]) -> str:
    if test == "name":
        return f"name in {{{', '.join(values)}}}"
    if test == "type":
        return f"type contains {' or '.join(values)}"
    return f'type is exactly "{values[0]}"'


def materials_toml(source: Path) -> tuple[str, dict[str, int]]:
    rows = load_json(source / "material.json")
    extra = ["family (affray's, matched by the floor-item loss table), first rule that fits:"]
    extra += [f"  {describe_rule(t, v):42} -> {fam}" for t, v, fam in FAMILY_RULES]
    extra += [f"  {'anything else':42} -> {FALLBACK_FAMILY}", "", "acid_resist by family"]
    extra += ["(percent chance a worn piece withstands acid; affray design values):"]
    extra += [f"  {fam:9} {pct:3}  {why}" for fam, (pct, why) in ACID_RESIST.items()]
    extra += [f"  flag indestr -> {INDESTRUCTIBLE_ACID_RESIST}, whatever the family", ""]
    extra += ["Other fields are upstream: types/flags/vuln = upstream strings split on spaces,"]
    extra += ["hardness -1 (indestructible) .. 10, burns -1 (extinguishes) / 0 (no) / 1..6."]
    out = header("Materials, in upstream order.", ["material.json"], extra)
    families: dict[str, int] = {}
    for row in rows:
        name, types, flags = row["name"], row["type"].split(), row["flags"].split()
        if unknown := set(flags) - KNOWN_MATERIAL_FLAGS:
            fail(f"material {name!r} has unknown flags {sorted(unknown)}")
        if not (-1 <= row["hardness"] <= 10 and -1 <= row["burns"] <= 6):
            fail(f"material {name!r} has hardness/burns out of range")
        family = family_of(name, types)
        families[family] = families.get(family, 0) + 1
        acid = INDESTRUCTIBLE_ACID_RESIST if "indestr" in flags else ACID_RESIST[family][0]
        fields = {
            "family": family,
            "types": types,
            "hardness": row["hardness"],
            "burns": row["burns"],
            "flags": flags,
            "vuln": row["vuln"].split(),
            "acid_resist": acid,
        }
        out.append(f"[materials.{toml_key(name)}]")
        out += [f"{key} = {toml_value(value)}" for key, value in fields.items()]
        out.append("")
    return "\n".join(out), families


def stats_toml(source: Path) -> str:
    extra = ["Column arrays: index = stat value 0..28."]
    out = header("Stat bonus tables.", [f for _, f, _ in STAT_TABLES], extra)
    for stat, filename, columns in STAT_TABLES:
        rows = load_json(source / filename)
        out.append(f"[stats.{stat}]")
        for column in columns:
            values = [row[column] for row in rows if column in row]
            if len(values) != STAT_RANGE or len(rows) != STAT_RANGE:
                fail(f"{filename} column {column!r}: {len(values)} of {len(rows)} rows, not 29")
            out.append(f"{column} = {toml_value(values)}")
        out.append("")
    return "\n".join(out)


def professions_toml(source: Path) -> str:
    data = load_json(source / "professions_thac.derived.json")
    extra = [
        f"Derived from {data['_derived_from']}",
        "",
        "flag: first of caster | hybrid | agile found in the upstream flags, else other;",
        "it drives the spell-level class penalty. tags = the upstream flags split on spaces.",
        "",
        f'NPC thac32 overrides: "{data["_npc_thac32_overrides"]}"',
    ]
    out = header("Professions: THAC0 interpolation ends.", ["professions_thac.derived.json"], extra)
    for name, prof in data["professions"].items():
        tags = (prof["flags"] or "").split()
        fields = {
            "thac00": prof["thac00"],
            "thac32": prof["thac32"],
            "flag": next((f for f in PROFESSION_FLAGS if f in tags), "other"),
            "tags": tags,
        }
        out.append(f"[professions.{toml_key(name)}]")
        out += [f"{key} = {toml_value(value)}" for key, value in fields.items()]
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description="Import DreamLand data into content/*.toml.")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="reference data dir")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output content dir")
    args = parser.parse_args()

    materials, families = materials_toml(args.source)
    outputs = {
        "materials.toml": ("materials", materials),
        "stats.toml": ("stats", stats_toml(args.source)),
        "professions.toml": ("professions", professions_toml(args.source)),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for filename, (table, text) in outputs.items():
        (args.out / filename).write_text(text, encoding="utf-8")
        parsed = tomllib.loads(text)[table]  # validate what was written
        print(f"{filename}: {len(parsed)} {table} entries")
    for stat, columns in tomllib.loads(outputs["stats.toml"][1])["stats"].items():
        lengths = {len(values) for values in columns.values()}
        print(f"  stats.{stat}: {len(columns)} columns of {'/'.join(map(str, lengths))} values")
    print("material families:", ", ".join(f"{k} {v}" for k, v in sorted(families.items())))


if __name__ == "__main__":
    main()
