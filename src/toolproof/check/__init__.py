"""Pure checkers: from an expectation and what was observed to a `Failure` or None. No I/O here."""
