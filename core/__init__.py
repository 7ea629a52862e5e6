"""Cabinet's rules: pure Python, no interface, no I/O."""

__version__ = "0.1.0"
