"""Scratch folders for the files the wiki build hands to another process: the browser bundle a
forked maker leaves for the build (ask_bundle.py), the runtime Node compiles to bytecode
(ask_compile.py), npm's and pip's downloads (ask_bundle.py).

Their files are the code the site ships (the wheels, Pyodide), so they are made in a private
folder of ours (mode 0700: the user's cache folder or the runtime folder), never in the shared
temporary one. A build stopped before its end (killed: no `finally` runs) leaves its folder
behind; the name of each carries the id of the process that made it, and the next one made with
the same prefix in the same folder removes those whose process is gone — nothing else."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterator, Optional


def make(top: Path, prefix: str) -> Path:
    """A new private folder in `top` named `prefix` + this process's id + "-" + a random part;
    first removing the folders named so whose process has ended."""
    for left in top.glob(prefix + "*"):
        pid = left.name[len(prefix):].partition("-")[0]
        if pid.isdigit() and _gone(int(pid)) and stat.S_ISDIR(os.lstat(left).st_mode):
            shutil.rmtree(left, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=top))


@contextlib.contextmanager
def held(top: Path, prefix: str) -> Iterator[Path]:
    """`make`'s folder for the time of a `with`, removed with its files at its end."""
    folder = make(top, prefix)
    try:
        yield folder
    finally:
        discard(folder)


def discard(folder: Optional[Path]) -> None:
    """Remove a folder `make` made, with whatever is in it (nothing when it is gone)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _gone(pid: int) -> bool:
    """Has process `pid` ended? (One that cannot be signalled, another user's, is not.)"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
