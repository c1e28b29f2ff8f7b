"""`python -m toolproof`."""

from toolproof.cli import main

raise SystemExit(main())
