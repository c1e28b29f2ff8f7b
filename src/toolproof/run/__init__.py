"""Scheduling and per-case preparation: templates, fixture isolation, bounded concurrency."""
