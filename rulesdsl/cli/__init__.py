"""The command line: the entry point and its fast path (kept outputs, the answer server), argument
parsing (`main`), one module per command, the answer server and its wire format.

The top layer: may import every other layer; nothing imports it."""
