"""The pieces of ``leafgrad.utils.benchmark``: common (TaskSpec, Measurement), timer, compare."""
