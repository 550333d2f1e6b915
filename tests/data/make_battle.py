"""Print a 1,000-creature battle scenario (the replay size figure in the README):
500 warriors each fighting an orc or a kobold beside it on an 80x40 floor round a pond.

    python tests/data/make_battle.py 10000 > battle.toml
    affray replay battle.toml -o battle.html
"""

import sys

W, H = 80, 40


def main(pulses: int) -> str:
    rows = ["".join("#" if x in (0, W - 1) or y in (0, H - 1)
                    else "~" if 30 <= x < 50 and 14 <= y < 26 else "."
                    for x in range(W)) for y in range(H)]
    out = ['name = "battle"', "seed = 3", f"pulses = {pulses}", "[map]", "rows = ["]
    out += [f'  "{row}",' for row in rows] + ["]"]
    pairs = [((x, y), (x + 1, y)) for y in range(1, H - 1) for x in range(1, W - 2, 3)
             if rows[y][x] == "." and rows[y][x + 1] == "."][:500]
    for i, (a, b) in enumerate(pairs):
        foe = "kobold" if i % 2 else "orc_brute"
        out += ["[[creatures]]", f'id = "w{i}"', 'template = "human_warrior"',
                f"at = [{a[0]}, {a[1]}]", "[[creatures]]", f'id = "k{i}"',
                f'template = "{foe}"', f"at = [{b[0]}, {b[1]}]", f'fighting = "w{i}"']
    return "\n".join(out)


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 600))
