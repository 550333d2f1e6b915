"""The core: the World, the grid, the generator, events and the log, actions and their
checks, errors, and the small helpers they share."""
