"""Scaling benchmarks for affray, run by a command and never as timed tests.

`affray bench [--quick] [--out FILE]`, `python -m affray.benchmarks` or, from a source
checkout, `python -m benchmarks` run the suite: a table on the terminal and the rows as
JSON, so runs on different machines or commits can be compared. Timings are reported,
never asserted: a test that fails on a slow CI box teaches nothing. The one pass/fail
check is a count (water labellings without a terrain change must be 0, R-GRID-5).
"""
