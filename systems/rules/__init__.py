"""affray.systems.rules: the pure rule modules the systems share (SPEC sections 2-12).

Each module holds the formulas of one rule group as plain functions of sheets, hits and
content, with the rule IDs beside the code: the systems one level up decide *when* a rule
runs, these modules say *what* it does. Both pipelines (melee and damage) call the same
functions.
"""
