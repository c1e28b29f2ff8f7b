"""Probes: checks that run against any server without a suite."""
