"""The CLI's commands; importing this package registers them with `rulesdsl.cli`."""

from . import ask, check, deck, fmt, regression, show, wiki  # noqa: F401
