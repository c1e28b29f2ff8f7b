"""Authoring and regression: start a suite, generate cases from a live server, snapshots, coverage, watch,
matrix."""
