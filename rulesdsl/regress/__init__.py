"""Answers as a regression suite: recorded answers and the memo, what a change to the knowledge
base moves (impact) and when (periods), failed expectations in words, the pytest plugin that makes
every scenario a test item, the mutation fuzzer of the command line, and the check that a
scenario's own answer says what the engine finds (answers.py).

May import: `rulesdsl.base`, `rulesdsl.lang`, `rulesdsl.kb`, `rulesdsl.engine` (games are found
through the engine's registry, never named)."""
