"""The knowledge base: discovering and loading the `.rules` files of a root (with the parse
snapshot), the resolved view of games, cards, rulings and scenarios as of a date, the source
documents and quote checks, lints, and timelines of revisions.

May import: `rulesdsl.base`, `rulesdsl.lang`."""
