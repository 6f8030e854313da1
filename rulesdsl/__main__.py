from .fastpath import entry

entry()
