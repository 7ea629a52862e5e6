"""The ``cabinet`` program: the command line (``tui.cli``) with the app composed from the screens
(``screens.app``).  It sits above every other package, so that none of them imports one above it:
``core`` <- ``saves`` <- ``table`` <- ``net``, ``tui`` <- ``screens`` <- ``cabinet``."""
