"""`python -m toolproof`."""

from toolproof.cli import console

raise SystemExit(console())
