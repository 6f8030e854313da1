from .cli.fastpath import entry

entry()
