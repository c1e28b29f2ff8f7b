"""Helpers several layers share: templating, sanitising, dotted paths and JSONPath, JS and RE2 regexes with a
time bound, the expression language, JSON Schema, durations, framing, safe file writes. Imports nothing else
of toolproof."""
