"""rulesdsl: a rules DSL, a dated ruling knowledge base and adjudicating interpreters for
trading card games."""

__version__ = "0.1.0"
