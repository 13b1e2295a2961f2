"""Inputs: TENET's own text files and the preset files shipped with the package."""
