"""Test helpers shared by several test directories (local stand-ins for external services)."""
