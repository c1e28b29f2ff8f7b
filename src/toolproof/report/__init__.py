"""Report sinks: each consumes the run's events and writes one output (terminal, JSON, JUnit).

The package imports nothing itself: a command loads only the reports it was asked for."""
