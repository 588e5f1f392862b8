"""Printers: ``Module`` → text, one module per dialect."""
