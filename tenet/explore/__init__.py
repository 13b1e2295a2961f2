"""Exploration: whole networks and design-space search."""
