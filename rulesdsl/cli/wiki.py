"""`rulesdsl wiki build|serve`: the Japanese wiki, generated from the knowledge base.

A thin wrapper around `mkdocs build` / `mkdocs serve` with the repository's mkdocs.yml, whose hook
(rulesdsl/wiki/hook.py) generates every page from cards/ and rulings/ and computes every
scenario's answer. `--root` (or $RULESDSL_ROOT) picks the knowledge base; a scenario whose
expectations fail stops the build unless --keep-going is given. The site folder is checked before
mkdocs empties it (rulesdsl/cli/site_guard.py): never the knowledge base, never a folder it did
not make unless --force.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from ..base.cache import find_root
from ..kb.build import check_root
from .main import EXIT_OK, EXIT_UNUSABLE, Output, command
from .site_guard import check_site, read_config

REPO = Path(__file__).resolve().parent.parent.parent


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("build", "serve"), help="build the site, or serve it with live reload")
    p.add_argument("-f", "--config-file", type=Path, metavar="FILE",
                   help="the mkdocs.yml to use (default: the knowledge base's, else the repository's)")
    p.add_argument("-d", "--site-dir", type=Path, metavar="DIR",
                   help="build: where to write the site (emptied first: a new or empty folder, or one an "
                        "earlier build made; default: the config's site_dir)")
    p.add_argument("--force", action="store_true",
                   help="build: write into a non-empty folder no earlier build made, emptying it "
                        "(never the knowledge base, its sources or the wiki's own files)")
    p.add_argument("-a", "--dev-addr", metavar="IP:PORT", default="127.0.0.1:8000",
                   help="serve: the address to listen on (default 127.0.0.1:8000)")
    p.add_argument("--keep-going", action="store_true",
                   help="build even if a scenario's expectations fail; its page says so")
    p.add_argument("--strict", action="store_true", help="build: stop on any warning (broken links …)")
    p.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")


def config_file(root: Path, given: Path | None) -> Path | None:
    for candidate in (given, root / "mkdocs.yml", REPO / "mkdocs.yml"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


@command("wiki", "Build or serve the Japanese wiki generated from the knowledge base (mkdocs-material).", configure)
def run(args, out: Output) -> int:
    try:
        for module in ("mkdocs", "material", "pymdownx"):
            importlib.import_module(module)
    except ImportError as e:
        print(f"rulesdsl wiki: {e.name} is not installed; install the wiki's dependencies with "
              "`python3 -m pip install -e '.[wiki]'`", file=sys.stderr)
        return EXIT_UNUSABLE
    root = check_root(args.root or find_root())
    cfg = config_file(root, args.config_file)
    if cfg is None:
        print("rulesdsl wiki: no mkdocs.yml found (give one with --config-file)", file=sys.stderr)
        return EXIT_UNUSABLE
    env = dict(os.environ, RULESDSL_ROOT=str(root), NO_MKDOCS_2_WARNING="1")
    if args.keep_going:
        env["RULESDSL_WIKI_KEEP_GOING"] = "1"
    cmd = [sys.executable, "-c", "from rulesdsl.cli.site_guard import run_mkdocs; run_mkdocs()",
           args.action, "-f", str(cfg)]
    if args.action == "build":
        config = read_config(cfg)
        site = check_site(args.site_dir or config.site_dir, root, config, args.force, given=args.site_dir is not None)
        cmd += ["-d", str(site)]
        if args.strict:
            cmd.append("--strict")
    else:
        cmd += ["-a", args.dev_addr]
    if args.quiet:
        cmd.append("-q")
    proc = subprocess.Popen(cmd, env=env)
    forward = lambda signum, frame: proc.send_signal(signum)  # noqa: E731
    previous = signal.signal(signal.SIGTERM, forward) if threading.current_thread() is threading.main_thread() else None
    try:
        return proc.wait()
    except KeyboardInterrupt:           # mkdocs got the same Ctrl-C; let it finish
        proc.wait()
        return EXIT_OK
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
