"""The package's version, below every module that reports it."""
__version__ = "0.1.0"
