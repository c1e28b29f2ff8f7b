"""toolproof's version: one literal that the package root, the CLI and every report read."""

__version__ = "0.1.0"
