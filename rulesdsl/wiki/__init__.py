"""The wiki: a Japanese mkdocs-material site generated from the knowledge base at build time.

`mkdocs build` / `mkdocs serve` (or `rulesdsl wiki build|serve`) run the hook in `hook.py`, which
loads the knowledge base, computes every scenario's answer with the game's interpreter, and adds
the pages (see `plugin.py` for how, `pages.py` for what). `lexer.py` is the Pygments lexer for the
DSL, registered through the `pygments.lexers` entry point.

Nothing is imported here, so that the lexer's entry point stays cheap to load.
"""
