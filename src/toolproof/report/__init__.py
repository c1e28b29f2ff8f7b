"""Report sinks: each consumes the run's events and writes one output (terminal, JSON, JUnit)."""

from toolproof.core.sanitize import Scrubber, clean, redact, secret_values
from toolproof.core.writing import warn, write_best_effort
from toolproof.report.json_report import JsonReport
from toolproof.report.junit import JUnitReport
from toolproof.report.sinks import Broadcast
from toolproof.report.terminal import TerminalReport, Verbosity, use_colour

__all__ = [
    "Broadcast",
    "JUnitReport",
    "JsonReport",
    "Scrubber",
    "TerminalReport",
    "Verbosity",
    "clean",
    "redact",
    "secret_values",
    "use_colour",
    "warn",
    "write_best_effort",
]
