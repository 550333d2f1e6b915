"""The replay page in a real browser: headless Chromium (Debian's `chromium`) driven by
Playwright. Plays the demo and a lake storm; checks the page has no console error, the
pulse counter advances on play, stepping to an event's pulse shows its text, and the
creatures drawn are the snapshot's living ones.

These tests skip, loudly, only where no browser is installed (`.ci/run` installs one and
sets AFFRAY_REQUIRE_BROWSER=1, which turns a missing browser into a failure).
Screenshots go to the test's tmp dir; AFFRAY_UPDATE_DOCS_IMG=1 also writes the README's
docs/img/replay-demo.png.
"""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import affray
from affray.display.text import render_event, render_events

ROOT = Path(__file__).resolve().parent.parent
LAKE_STORM = ROOT / "tests" / "data" / "lake_storm.toml"
CHROMIUM = os.environ.get("AFFRAY_CHROMIUM", "/usr/bin/chromium")


def _no_browser(reason: str) -> None:
    message = (f"NO BROWSER: the replay browser tests did not run ({reason}). Install "
               "it with: apt-get install -y chromium && pip install playwright")
    if os.environ.get("AFFRAY_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    warnings.warn(message, stacklevel=2)
    print(f"\n*** {message} ***")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("the playwright package is not installed")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _no_browser(f"{CHROMIUM} is missing")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Page:
    """A replay page open in the browser, collecting console errors."""

    def __init__(self, browser, path: Path) -> None:
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1180, "height": 720})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_function("window.affray && window.affray.ready", timeout=15_000)

    def js(self, expression: str):
        return self.page.evaluate(expression)

    def close(self) -> None:
        self.page.close()


def recorded(path: Path, out: Path) -> tuple[Path, dict[int, dict], list]:
    """Write the replay of a scenario, and the snapshot after every pulse of a second,
    identical run stepped with tick() (the truth the page is checked against)."""
    world = affray.load_scenario(path)
    world.replay_html(out)
    truth = affray.load_scenario(path)
    snapshots = {truth.pulse: truth.snapshot()}
    while truth.pulse < world.pulse:
        truth.tick()
        snapshots[truth.pulse] = truth.snapshot()
    events = list(world.events)
    world.close()
    truth.close()
    return out, snapshots, events


def living(snapshot: dict) -> int:
    return sum(1 for sheet in snapshot["creatures"].values() if sheet["alive"])


def check_page(page: Page, snapshots: dict[int, dict], events: list) -> None:
    """The checks both scenarios share."""
    # At the start: everyone alive is drawn.
    assert page.js("affray.frameIndex()") == 0
    assert page.js("affray.drawnCount()") == living(snapshots[0])
    # Play advances the pulse counter (at the top speed), and pause stops it.
    page.page.fill("#speed", "60")
    page.page.keyboard.press("Space")
    page.page.wait_for_function("affray.pulse() >= 5", timeout=10_000)
    page.page.keyboard.press("Space")
    shown = page.page.get_attribute("#board", "data-pulse")
    assert shown is not None and int(shown) >= 5
    assert page.page.text_content("#counter").startswith(f"pulse {shown}")
    # Stepping to the pulse of each kind of event shows that pulse's lines of player
    # text (a cast's cell effects of one kind folded into one line: affray.display.text).
    lines = render_events(events)
    firsts = {}
    for event in events:
        firsts.setdefault(event.kind, event)
    for event in firsts.values():
        page.js(f"affray.seekPulse({event.pulse})")
        assert page.js("affray.pulse()") == event.pulse
        shown = [div for div in page.js(
            "[...document.querySelectorAll('#text div')].map((d) => d.textContent)")]
        assert shown == [f"[{e.pulse}] {line}" for e, line in zip(events, lines, strict=True)
                         if e.pulse == event.pulse and line is not None], event
    # The creatures drawn at a pulse are the snapshot's living ones (pulse P shows the
    # state at its end: the snapshot after P + 1 pulses).
    deaths = [event.pulse for event in events if event.kind == "death"]
    for pulse in sorted({0, 1, 13, *deaths, *(p - 1 for p in deaths), len(snapshots) - 2}):
        if pulse < 0 or pulse + 1 not in snapshots:
            continue
        page.js(f"affray.seekPulse({pulse})")
        expected = living(snapshots[pulse + 1])
        assert page.js("affray.livingCount()") == expected, pulse
        assert page.js("affray.drawnCount()") == expected, pulse
        assert page.page.get_attribute("#board", "data-drawn") == str(expected)
    # The page's own decoding (keyframe, then predicted deltas) gives the snapshot itself.
    for pulse in range(-1, len(snapshots) - 1, 7):
        page.js(f"affray.seekPulse({pulse})")
        frame = page.js("affray.frame()")
        frame.pop("ice_cm", None)
        assert frame == snapshots[pulse + 1], pulse
    # Keyboard steps: right arrow forward, left arrow back.
    page.js("affray.seekPulse(10)")
    page.page.keyboard.press("ArrowRight")
    assert page.js("affray.pulse()") == 11
    page.page.keyboard.press("ArrowLeft")
    page.page.keyboard.press("ArrowLeft")
    assert page.js("affray.pulse()") == 9
    # Jump to a round.
    page.page.fill("#round", "2")
    page.page.click("#goround")
    assert page.js("affray.pulse()") == 24
    assert page.errors == []


def screenshot(page: Page, path: Path) -> None:
    """The page's heading, board, controls and text, cropped to what is drawn."""
    box = page.js("(() => { const r = document.getElementById('main')"
                  ".getBoundingClientRect(); return [r.right, r.bottom]; })()")
    page.page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": box[0] + 12,
                                               "height": box[1] + 12})


def click_creature(page: Page, at: list[int]) -> None:
    cell = page.js("affray.data().width") and page.js(
        "document.getElementById('board').width / affray.data().width")
    page.page.click("#board", position={"x": at[0] * cell + cell / 2,
                                        "y": at[1] * cell + cell / 2})


def test_demo_replay_plays_in_a_browser(browser, tmp_path):
    """The demo's replay: see check_page; clicking the kobold shows its sheet at that
    pulse; a screenshot of a fight in progress is saved."""
    path, snapshots, events = recorded(affray.builtin_scenario("demo"),
                                       tmp_path / "demo.html")
    page = Page(browser, path)
    try:
        check_page(page, snapshots, events)
        page.js("affray.seekPulse(24)")
        kobold = snapshots[25]["creatures"]["kobold"]
        click_creature(page, kobold["at"])
        sheet = page.page.text_content("#sheet")
        assert sheet.startswith("kobold")
        assert f"hp       {kobold['hp']} / {kobold['max_hp']}" in sheet
        casts = [event for event in events if event.kind == "cast"]
        showcase = next((e for e in casts if e.spell == "fireball"), casts[0] if casts else None)
        if showcase is not None:  # the README's picture: a cast, the kobold's sheet
            page.js(f"affray.seekPulse({showcase.pulse})")
        screenshot(page, tmp_path / "replay-demo.png")
        if os.environ.get("AFFRAY_UPDATE_DOCS_IMG") == "1":
            shutil.copy(tmp_path / "replay-demo.png", ROOT / "docs" / "img" / "replay-demo.png")
        assert page.errors == []
    finally:
        page.close()


def test_lake_storm_replay_plays_in_a_browser(browser, tmp_path):
    """A pond crowded with creatures and a caster of lightning: every cast's text is
    shown at its pulse, the dead are no longer drawn, and the page raises no error."""
    path, snapshots, events = recorded(LAKE_STORM, tmp_path / "storm.html")
    page = Page(browser, path)
    try:
        check_page(page, snapshots, events)
        for cast in (event for event in events if event.kind == "cast"):
            page.js(f"affray.seekPulse({cast.pulse})")
            assert render_event(cast) in page.page.text_content("#text")
        strikes = [event for event in events if event.kind == "damage" and event.cause == "water"]
        if strikes:
            page.js(f"affray.seekPulse({strikes[-1].pulse})")
        screenshot(page, tmp_path / "replay-storm.png")
        if os.environ.get("AFFRAY_UPDATE_DOCS_IMG") == "1":
            shutil.copy(tmp_path / "replay-storm.png",
                        ROOT / "docs" / "img" / "replay-storm.png")
        assert page.errors == []
    finally:
        page.close()


def test_an_endless_page_seeks_to_its_end_and_a_settled_one_ends_on_its_line(browser, tmp_path):
    """The duel with `pulses = 2**63 - 1`: the page decodes its last frame in one jump
    (the End key: the orc dead, the warrior standing); recorded `until="settled"`, its
    last pulse is the settled one, showing "All is still", and the heading says so."""
    text = (ROOT / "content" / "scenarios" / "duel.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "endless.toml"
    scenario.write_text(text.replace("pulses = 100000", "pulses = 9223372036854775807"),
                        encoding="utf-8")
    world = affray.load_scenario(scenario)
    endless = world.replay_html(tmp_path / "endless.html")
    world.close()
    page = Page(browser, endless)
    try:
        page.page.keyboard.press("End")
        assert page.js("affray.frameIndex() === affray.data().end")
        assert page.js("affray.frame().creatures.orc.alive") is False
        assert page.js("affray.livingCount()") == page.js("affray.drawnCount()") == 1
        page.js("affray.seekPulse(252)")  # the killing blow's pulse, then its text
        assert "orc is killed by warrior." in page.page.text_content("#text")
        assert page.errors == []
    finally:
        page.close()
    world = affray.load_scenario(scenario)
    settled = world.replay_html(tmp_path / "settled.html", until="settled")
    at = world.pulse
    world.close()
    page = Page(browser, settled)
    try:
        page.page.keyboard.press("End")
        assert page.js("affray.pulse()") == at
        assert page.page.text_content("#counter").startswith(f"pulse {at} ")
        assert page.page.text_content("#text") == (f"[{at}] All is still: nothing is left "
                                                   "to happen.")
        assert f"pulses 0-{at} (settled)" in page.page.text_content("#subtitle")
        assert page.errors == []
    finally:
        page.close()
