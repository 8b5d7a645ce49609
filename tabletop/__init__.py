"""Tabletop for programs that play: `tabletop.client` (a typed HTTP client of API v1)."""
