"""Output: tables, JSON, CSV, plots and progress bars."""
