"""Helpers below the model: isl parsing and counting, YAML value checks."""
