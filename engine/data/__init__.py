"""Data in and out: content and its definitions, creatures from templates and levels,
scenario files, saves and their checks, army generators, file reading."""
