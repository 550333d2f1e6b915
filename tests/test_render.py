"""`affray render`: ASCII with glyphs and a legend, a save or a pulse, and `--png`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import affray
from affray.cli import main as cli_main
from affray.display.render import LEGEND_MIN_WIDTH_PX, ascii_frame, png_figure, render_ascii
from affray.display.replay import PALETTE, creature_meta, frame_of

ROOT = Path(__file__).resolve().parent.parent
DEMO = str(affray.builtin_scenario("demo"))

SKIRMISH = """
name = "skirmish"
[map]
rows = ["#########", "#...~~_.#", "#...~~..#", "#.......#", "####+####"]
[[creatures]]
id = "hero"
template = "human_warrior"
at = [1, 1]
[[creatures]]
id = "kobold1"
template = "kobold"
at = [2, 2]
[[creatures]]
id = "brute"
template = "orc_brute"
at = [6, 3]
[[items]]
at = [3, 3]
item = "scroll"
[[items]]
at = [7, 3]
item = "wooden_chest"
"""

DOORS_AND_ICE = """
name = "doors"
[map]
rows = [
  "#######",
  "#.~~_.#",
  "#.....#",
  "#'#/#+#",
]
[[creatures]]
id = "gob"
template = "goblin"
at = [1, 1]
[[creatures]]
id = "rat"
at = [5, 2]
[[items]]
at = [3, 2]
item = "scroll"
[content.creatures.goblin]
glyph = "G"
hp = 5
"""


def rendered(args: list[str], capsys) -> tuple[int, str, str]:
    status = cli_main(["render", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_ascii_draws_monsters_by_template_letter_and_players_as_at(tmp_path, capsys):
    """k kobold, o orc_brute, @ for each player; the legend maps each letter to its id,
    and names the terrain, the items, the chest and the door."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH, encoding="utf-8")
    status, out, _err = rendered([str(path)], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "skirmish - start"
    assert lines[1:6] == ["#########", "#@..~~_.#", "#.k.~~..#", "#..?..o=#", "####+####"]
    legend = lines[6]
    for part in ("# wall", "~ water", "_ ice (10 cm)", "+ door", "? item (scroll)", "= chest"):
        assert part in legend
    key = {line.split()[1]: line.split()[0] for line in lines[7:]}
    assert key == {"hero": "@", "kobold1": "k", "brute": "o"}


def test_ascii_template_glyph_broken_and_open_doors(make_world):
    """A template's `glyph` wins over its first letter; a creature without a template
    uses its id's; open and broken doors keep their legend symbols and are named."""
    world = make_world(DOORS_AND_ICE)
    text = render_ascii(world)
    lines = text.splitlines()
    assert lines[2] == "#G~~_.#" and lines[3] == "#..?.r#" and lines[4] == "#'#/#+#"
    assert "' open door" in lines[5] and "/ broken door" in lines[5]
    assert "  G gob " in text and "  r rat " in text


def test_a_bad_glyph_is_a_content_error_naming_the_field(tmp_path, capsys):
    """A glyph is one character: two are refused, naming the template and field."""
    path = tmp_path / "bad.toml"
    path.write_text(DOORS_AND_ICE.replace('glyph = "G"', 'glyph = "GB"'), encoding="utf-8")
    status, _out, err = rendered([str(path)], capsys)
    assert status == 1
    assert "content.creatures.goblin" in err and "glyph" in err


def test_ascii_shows_fires_ice_thickness_and_the_dead(make_world):
    """Fires over their cell as ^, ice with its thickness range, a dead creature left off
    the map but in the key; each overlay symbol in the legend."""
    world = make_world(DOORS_AND_ICE)
    frame = frame_of(world)
    frame["fires"] = [{"at": [5, 1], "pulses_left": 40}]
    frame["ice_cm"] = [[4, 1, 25]]
    frame["creatures"]["rat"] = {**frame["creatures"]["rat"], "alive": False, "hp": -3}
    text = ascii_frame(world, frame, creature_meta(world))
    lines = text.splitlines()
    assert lines[2] == "#G~~_^#"
    assert lines[3] == "#..?..#"  # the rat is dead: its cell shows the floor
    assert "^ fire" in lines[5] and "_ ice (25 cm)" in lines[5]
    assert "  r rat          hp -3/20 (dead) at [5, 2]" in text


def test_render_a_pulse_and_a_save(tmp_path, capsys):
    """`--pulse N` draws the end of pulse N (the state after its events); a save is
    drawn as saved, and can be run on to a later pulse but not back."""
    world = affray.load_scenario(DEMO)
    world.run()
    death = next(event for event in world.events if event.kind == "death")
    world.close()
    status, out, _err = rendered([DEMO, "--pulse", str(death.pulse)], capsys)
    assert status == 0
    assert out.splitlines()[0] == f"pond skirmish - end of pulse {death.pulse}"
    assert f"{death.target} " in out and "(dead)" in out
    status, before, _err = rendered([DEMO, "--pulse", str(death.pulse - 1)], capsys)
    assert "(dead)" not in before

    world = affray.load_scenario(DEMO)
    world.run(20)
    save = tmp_path / "fight.save"
    world.save(str(save))
    expected = render_ascii(world)
    world.close()
    status, out, _err = rendered([str(save)], capsys)
    assert status == 0 and out.rstrip("\n") == expected
    assert out.splitlines()[0] == "pond skirmish - end of pulse 19"
    status, out, _err = rendered([str(save), "--pulse", "30"], capsys)
    assert status == 0 and out.splitlines()[0] == "pond skirmish - end of pulse 30"
    status, _out, err = rendered([str(save), "--pulse", "5"], capsys)
    assert status == 1 and "--pulse 5" in err


def test_png_render_draws_the_grid(tmp_path, capsys):
    """`render --png`: a PNG of 32-pixel cells, the map's colours where the terrain is,
    a creature's colour where it stands, the same palette as the replay page."""
    image = pytest.importorskip("matplotlib.image", reason="needs affray[png] (matplotlib)")
    out = tmp_path / "demo.png"
    status, printed, _err = rendered([DEMO, "--png", str(out), "--pulse", "1"], capsys)
    assert status == 0 and str(out) in printed
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(str(out))
    cell, title = 32, round(0.7 * 32)
    # The map from the top-left corner under the title band, the legend below it.
    assert pixels.shape[1] == max(12 * cell, LEGEND_MIN_WIDTH_PX)
    assert pixels.shape[0] > 6 * cell + title

    def colour(x: float, y: float) -> str:
        r, g, b = (round(float(v) * 255) for v in pixels[int(title + y * cell),
                                                          int(x * cell)][:3])
        return f"#{r:02x}{g:02x}{b:02x}"

    assert colour(0.5, 0.5) == PALETTE["wall"]
    assert colour(6.5, 1.5) == PALETTE["water"]
    assert colour(6.2, 2.2) == PALETTE["ice_thin"]
    assert colour(3.3, 4.54) == PALETTE["npc"]      # the kobold
    assert colour(2.3, 4.54) == PALETTE["player"]   # the warrior
    assert colour(4.5, 4.5) == PALETTE["floor"]


def test_png_draws_the_pulse_like_the_page(tmp_path):
    """`render --pulse N --png`: the cells the pulse's cast reached are tinted with the
    page's cast colour over the floor, as the replay page draws pulse N."""
    image = pytest.importorskip("matplotlib.image", reason="needs affray[png] (matplotlib)")
    from affray.display.render import render_png

    world = affray.load_scenario(ROOT / "tests" / "data" / "lake_storm.toml")
    world.run(1)  # to the end of pulse 0: the stormcaller's lightning bolt
    reached = [tuple(cell) for record in world.cast_records for cell in record.area]
    rows = world.snapshot()["map"]
    taken = {tuple(sheet["at"]) for sheet in world.snapshot()["creatures"].values()}
    floor = [(x, y) for x, y in reached if rows[y][x] == "." and (x, y) not in taken]
    assert floor, "the bolt crosses some bare floor"
    path = render_png(world, tmp_path / "bolt.png")
    world.close()
    pixels = image.imread(str(path))
    cell, title = 32, round(0.7 * 32)

    def rgb(x: float, y: float) -> tuple[int, ...]:
        return tuple(round(float(v) * 255) for v in pixels[int(title + y * cell),
                                                            int(x * cell)][:3])

    def blend(top: str, bottom: str, alpha: float) -> tuple[int, ...]:
        a, b = bytes.fromhex(top[1:]), bytes.fromhex(bottom[1:])
        return tuple(round(alpha * p + (1 - alpha) * q) for p, q in zip(a, b, strict=True))

    tint = blend(PALETTE["cast"], PALETTE["floor"], 0.55)
    for x, y in floor:
        corners = [rgb(x + 0.15, y + 0.15), rgb(x + 0.85, y + 0.85)]
        assert any(all(abs(p - q) <= 3 for p, q in zip(c, tint, strict=True))
                   for c in corners), (x, y, corners, tint)
    assert rows[6][1] == "." and (1, 6) not in reached  # a floor cell off the bolt...
    assert rgb(1.5, 6.5) == tuple(bytes.fromhex(PALETTE["floor"][1:]))  # keeps the floor


def test_png_says_the_file_it_really_wrote(tmp_path, capsys):
    """`render --png picture` writes `picture.png` and says so (it said "wrote picture");
    any name not ending in .png gets .png added, and the file is a PNG whatever the
    name (matplotlib would have written a JPEG for `.jpg`)."""
    pytest.importorskip("matplotlib", reason="needs affray[png] (matplotlib)")
    for given, written in (("picture", "picture.png"), ("shot.jpg", "shot.jpg.png"),
                           ("upper.PNG", "upper.PNG")):
        status, printed, _err = rendered([DEMO, "--png", str(tmp_path / given)], capsys)
        assert status == 0
        assert printed == f"wrote {tmp_path / written}\n"
        assert (tmp_path / written).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["picture.png", "shot.jpg.png",
                                                                "upper.PNG"]


def _texts(figure) -> dict[str, object]:
    """The figure's texts by their gid (`name:<id>` on the map, `legend:<label>`)."""
    return {text.get_gid(): text for axes in figure.axes for text in axes.texts
            if text.get_gid()}


def test_png_names_each_creature_beside_its_glyph_and_has_a_legend(make_world):
    """The PNG names every living creature under its glyph, in its own cell, and its
    legend names each symbol on the map (terrain, doors, items, chests) and each creature
    with its glyph, hp and cell; the dead are listed as dead with 0 hp."""
    pytest.importorskip("matplotlib", reason="needs affray[png] (matplotlib)")
    from matplotlib import pyplot as plt

    world = make_world(SKIRMISH)
    world.sheet("brute").vitals.hp = -5
    world.sheet("brute").vitals.alive = False
    figure = png_figure(world)
    texts = _texts(figure)
    plt.close(figure)
    for creature_id, (x, y) in (("hero", (1, 1)), ("kobold1", (2, 2))):
        name = texts[f"name:{creature_id}"]
        assert name.get_text() == creature_id
        tx, ty = name.get_position()
        assert (x <= tx <= x + 1) and (y + 0.5 <= ty <= y + 1)  # under the glyph
    assert "name:brute" not in texts  # the dead are a cross, not a name
    labels = [gid.removeprefix("legend:") for gid in texts if gid.startswith("legend:")]
    assert labels == ["floor", "wall", "water", "ice (10 cm; whiter from 30 cm)",
                      "shut door", "scroll", "chest",
                      "hero  hp 180/180  [1, 1]", "kobold1  hp 30/30  [2, 2]",
                      "brute  hp 0/140  [6, 3]  dead"]


def test_each_side_has_its_own_disc_colour():
    """R-SIDE-1 on the page and the PNG: `players` green and `npcs` red as before; every
    other side the next colour neither took, in the order the sides appear, round again
    past the last."""
    from affray.display.replay import SIDE_COLOURS, side_colours

    assert side_colours(["players", "npcs", "players"]) == {
        "players": PALETTE["player"], "npcs": PALETTE["npc"]}
    assert side_colours(["red", "blue", "red"]) == {"red": SIDE_COLOURS[0],
                                                     "blue": SIDE_COLOURS[1]}
    free = [c for c in SIDE_COLOURS if c not in (PALETTE["player"], PALETTE["npc"])]
    assert side_colours(["npcs", "undead", "players", "elves"]) == {
        "npcs": PALETTE["npc"], "undead": free[0], "players": PALETTE["player"],
        "elves": free[1]}
    many = [f"s{i}" for i in range(len(SIDE_COLOURS) + 1)]
    assert side_colours(many)[many[-1]] == SIDE_COLOURS[0]


def test_png_of_two_armies_colours_them_by_side(tmp_path, capsys):
    """`render --png` of a battle: the red army's discs in the first side colour, the
    blue army's in the second (both sides are npcs: one colour would hide the front)."""
    image = pytest.importorskip("matplotlib.image", reason="needs affray[png] (matplotlib)")
    from affray.data.armies import army
    from affray.display.replay import SIDE_COLOURS

    scenario = tmp_path / "armies.toml"
    scenario.write_text(army(2, pulses=1), encoding="utf-8")
    spec = tomllib.loads(scenario.read_text(encoding="utf-8"))
    out = tmp_path / "armies.png"
    status, _printed, _err = rendered([str(scenario), "--png", str(out)], capsys)
    assert status == 0
    pixels = image.imread(str(out))
    cell, title = 32, round(0.7 * 32)

    def colour(x: float, y: float) -> str:
        r, g, b = (round(float(v) * 255) for v in pixels[int(title + y * cell),
                                                          int(x * cell)][:3])
        return f"#{r:02x}{g:02x}{b:02x}"

    for creature in spec["creatures"]:
        x, y = creature["at"]
        want = SIDE_COLOURS[0] if creature["side"] == "red" else SIDE_COLOURS[1]
        assert colour(x + 0.3, y + 0.54) == want, creature["id"]
