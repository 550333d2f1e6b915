"""The defence chain (SPEC section 5): the hook point every blow that hits meets.

Each defence is a registered function `defence(world, hit) -> bool` in one ordered
registry (R-DEF-1, R-DEF-6); the first that returns True ends the blow with a `defended`
event. The chain's formulas land with the defences-lag-stun issue; until then the chain
is empty and defends nothing.
"""

from __future__ import annotations

from affray.systems.rules import Steps


def default_defences() -> Steps:
    """The default chain: empty until the defences issue lands."""
    return Steps()
