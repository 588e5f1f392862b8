"""Printers: module graph → text, one per dialect."""
