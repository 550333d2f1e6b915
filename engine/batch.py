"""Batch runs of a scenario over many seeds (SCENARIO.md `batch`).

The name exists now so code written against the public API imports; the runner lands
with the batch issue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from affray.errors import NotYetError


def batch(scenario: str | Path, runs: int, seed: int = 0, workers: int = 1,
          **options: Any) -> Any:
    """Run `runs` seeds of a scenario; not yet implemented (raises NotYetError)."""
    raise NotYetError("affray.batch is not yet implemented: it lands with the batch issue")
