"""The hmscatalog command line."""
