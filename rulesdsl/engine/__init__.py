"""The game-neutral runner: the context of a run (points as of a date, citations, choices), the
trace, chance, readings, the answer types and their sentences, and the registry games plug into.

Never names a game. May import: `rulesdsl.base`, `rulesdsl.lang`, `rulesdsl.kb`."""
