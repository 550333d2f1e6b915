"""Write the built-in `battle` scenario: `affray.army(BATTLE_PER_SIDE)`.

    python scripts/make_battle.py    # content/scenarios/battle.toml

tests/test_armies.py checks the shipped file is what this writes.
"""

from __future__ import annotations

from pathlib import Path

from affray.data.armies import BATTLE_PER_SIDE, army

TARGET = Path(__file__).resolve().parent.parent / "content" / "scenarios" / "battle.toml"


def main() -> None:
    TARGET.write_text(army(BATTLE_PER_SIDE, name="battle"), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
