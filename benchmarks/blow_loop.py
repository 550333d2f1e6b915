"""A fixed loop of blows, for instruction counts that a busy machine cannot blur.

Timings on a shared machine wander by a factor of two; instruction counts do not. Run it
under callgrind with 1 and with 21 passes and divide the difference by 2,000 blows:

    PYTHONHASHSEED=0 valgrind --tool=callgrind python -m affray.benchmarks.blow_loop 1
    PYTHONHASHSEED=0 valgrind --tool=callgrind python -m affray.benchmarks.blow_loop 21

(each prints "Collected : N"). 100 fighting pairs of the blow benchmark, one blow each
per pass, through the full pipeline with its defence chain.
"""

from __future__ import annotations

import argparse

from affray.data.content_loader import default_content
from affray.systems.rules.blow import one_hit

from .blows import fighting_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("passes", type=int, help="passes of 100 blows")
    passes = parser.parse_args().passes
    world = fighting_pairs(default_content(), 200)
    attackers = [world.sheet(f"a{i}") for i in range(100)]
    victims = [world.sheet(f"b{i}") for i in range(100)]
    for _ in range(passes):
        for attacker, victim in zip(attackers, victims, strict=True):
            one_hit(world, attacker, victim)
    world.close()


if __name__ == "__main__":
    main()
