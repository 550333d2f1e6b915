"""The runners: batches of runs, packed runs, sweeps and the break-even solver."""
