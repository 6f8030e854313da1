"""The language: the grammar (`grammar/*.lark`), the parser and the builder of the syntax model,
the syntax model itself (pydantic, frozen), the games' vocabularies, partial dates, diagnostics,
the formatter, and the JSON snapshot form of the syntax model.

Knows nothing of a knowledge base. May import: `rulesdsl.base`."""
