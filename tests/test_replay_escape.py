"""The replay page escapes everything a scenario names (the audit's stored XSS): the
scenario's name, creature ids, template, item and spell names and so every line of
player text, with payloads that close the title, open a script, carry an event handler,
quote and comment. Checked in the page's HTML as parsed, and in headless Chromium (no
script of theirs runs, the text shows literally); see tests/test_replay_browser.py for
how the browser is found (AFFRAY_REQUIRE_BROWSER=1 turns a missing one into a failure).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_replay_browser import Page, browser  # noqa: F401  (the fixture)

import affray
import affray.display.replay as replay
from affray.display.replay import render_html, unpack
from affray.display.text import render_events

CLOSE_TITLE = "</title><script>window.__pwned=1</script>"
HANDLER = '<img src=x onerror="window.__pwned=2">'
QUOTES = "q\"uo'te`s &amp; <b>bold</b>"
CLOSE_SCRIPT = "</script><!--<script>window.__pwned=3</script>-->"
SVG = "<svg onload=window.__pwned=4>"

NAME = CLOSE_TITLE + HANDLER
VICTIM = HANDLER  # a creature id
CASTER = QUOTES + CLOSE_SCRIPT  # a creature id
TEMPLATE = SVG + "tmpl"  # a creature template's name
ITEM = "<i>scroll</i>" + CLOSE_SCRIPT  # an item's name
SPELL = CLOSE_SCRIPT + "'burst\""  # a spell's name


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value)


SCENARIO = f"""
name = {_toml(NAME)}
seed = 4
pulses = 30

[map]
rows = ["#########", "#.......#", "#.......#", "#########"]

[[creatures]]
id = {_toml(VICTIM)}
template = {_toml(TEMPLATE)}
at = [2, 1]

[[creatures]]
id = {_toml(CASTER)}
template = "human_mage"
at = [7, 2]

[[items]]
at = [3, 1]
item = {_toml(ITEM)}
count = 20

[[actions]]
pulse = 2
actor = {_toml(CASTER)}
cast = {_toml(SPELL)}
target = [2, 1]

[content.creatures.{_toml(TEMPLATE)}]
hp = 200
level = 10

[content.items.{_toml(ITEM)}]
class = "scroll"
material = "paper"

[content.spells.{_toml(SPELL)}]
type = "fire"
shape = "burst"
radius = 1
range = 8
damage = "10"
"""


class Parsed(HTMLParser):
    """A page's elements as a browser's tokenizer sees them: the script elements and
    their text, the title's text, and every tag opened."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.scripts: list[str] = []
        self.title = ""
        self._in: str | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("script", "title"):
            self._in = tag
            if tag == "script":
                self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "title":
            self.title += data


@pytest.fixture
def page_path(tmp_path) -> tuple[Path, list]:
    """The hostile scenario's replay page, and its events."""
    path = tmp_path / "hostile.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    world = affray.load_scenario(path)
    try:
        out = world.replay_html(tmp_path / "hostile.html")
        events = list(world.events)
    finally:
        world.close()
    return out, events


def test_every_name_reaches_the_page_as_text_and_no_element_of_theirs(page_path):
    """The title reads the scenario's name literally; the page has exactly its own two
    scripts (the data, the code) and none of the payloads' tags (img, svg, b, i); the
    data decodes with every name intact, in its events' player text too."""
    out, events = page_path
    html = out.read_text(encoding="utf-8")
    parsed = Parsed(html)
    assert parsed.title == f"{NAME} - affray replay"
    assert len(parsed.scripts) == 2
    assert not {"img", "svg", "b", "i"} & set(parsed.tags)
    data = unpack(parsed.scripts[0])
    assert data["name"] == NAME
    assert set(data["creatures"]) == {VICTIM, CASTER}
    assert data["creatures"][VICTIM]["template"] == TEMPLATE
    kinds = {event.kind for event in events}
    assert {"cast", "damage", "item_lost"} <= kinds  # the spell and the item are named
    texts = [event["text"] for event in data["events"]]
    assert texts == render_events(events)
    said_spell = SPELL.replace("_", " ")  # player text writes a spell's _ as a space
    assert any(said_spell in text for text in texts if text)
    assert any("<i>scroll</i>" in text for text in texts if text)


def test_a_string_in_the_inlined_json_cannot_close_the_script(monkeypatch):
    """JSON inlined in a script goes through jinja's `tojson`: `</script>` and `<!--` in
    a string are written as \\u escapes, so the script ends where the page ends it."""
    monkeypatch.setitem(replay.PALETTE, "floor", CLOSE_SCRIPT)
    html = render_html({"name": "x", "events": []})
    parsed = Parsed(html)
    assert len(parsed.scripts) == 2
    code = parsed.scripts[1]
    assert "</script" not in code and "<!--" not in code
    literal = code.split("const PALETTE = ", 1)[1].split(";\n", 1)[0]
    assert json.loads(literal)["floor"] == CLOSE_SCRIPT


def test_no_payload_runs_in_a_browser_and_each_shows_literally(browser, page_path):  # noqa: F811
    """Headless Chromium: after the page loads, after stepping to every pulse with an
    event and after opening every creature's sheet, no payload has run
    (`window.__pwned` unset, no element of theirs in the DOM), and the title, heading,
    player text and sheets show each name as written."""
    out, events = page_path
    page = Page(browser, out)
    try:
        assert page.js("document.title") == f"{NAME} - affray replay"
        assert page.js("document.querySelector('h1').firstChild.textContent.trim()") == NAME
        lines = render_events(events)
        for pulse in sorted({event.pulse for event in events}):
            page.js(f"affray.seekPulse({pulse})")
            shown = page.js("[...document.querySelectorAll('#text div')]"
                            ".map((d) => d.textContent)")
            assert shown == [f"[{e.pulse}] {line}" for e, line in
                             zip(events, lines, strict=True)
                             if e.pulse == pulse and line is not None], pulse
        for creature_id, template in ((VICTIM, TEMPLATE), (CASTER, "human_mage")):
            page.js(f"affray.select({json.dumps(creature_id)})")
            sheet = page.js("affray.sheetText()")
            assert sheet.startswith(f"{creature_id} (") and template in sheet
        assert page.js("typeof window.__pwned") == "undefined"
        assert page.js("document.querySelectorAll('img, svg, b, i').length") == 0
        assert page.js("document.scripts.length") == 2
        assert page.errors == []
    finally:
        page.close()
