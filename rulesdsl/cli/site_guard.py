"""Where `rulesdsl wiki build` may write the site, and mkdocs run so that a file-system failure is
an error about the input, not a traceback.

mkdocs empties its site folder before every build (everything but hidden files). So the folder a
build writes to is checked first — the one given with `-d`, else the config's own `site_dir`:

- never (not even with `--force`) a folder that is or contains the knowledge base root, the
  config's folder or the user's home, nor one that is, contains or lies inside `cards/`,
  `rulings/`, the folders of the games' source documents, the config's docs folder or theme
  folder, or this package's code;
- never something that is not a folder (`/dev/null`);
- a folder that holds anything is used only when an earlier build made it — the build leaves
  the marker file MARKER in it (hidden, so mkdocs keeps it) — or with `--force`.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple, Optional

from ..base.cache import KB_DIRS
from ..lang.diagnostics import Diagnostic, DslError, Sources, render
from ..lang.model import Loc

MARKER = ".rulesdsl-site"
MARKER_TEXT = ("This folder was written by `rulesdsl wiki build`; the next build empties it (hidden\n"
               "files aside). Remove this file to keep a build from writing here.\n")
PACKAGE = Path(__file__).resolve().parent.parent

_DOCUMENT = re.compile(r'^\s*document\s+"((?:[^"\\\n]|\\.)*)"', re.M)


class Config(NamedTuple):
    path: Path
    site_dir: Path
    site_loc: Optional[Loc]         # where the config says it (None: mkdocs' default)
    docs_dir: Path
    theme_dir: Optional[Path]


def read_config(path: Path) -> Config:
    """The folders an mkdocs config names, resolved as mkdocs does (relative to its folder), with
    where site_dir is written; DslError, located, when it cannot be read as YAML."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    shown = str(path)
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=Loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        loc = Loc(shown, mark.line + 1, mark.column + 1) if mark else Loc(shown, 1, 1)
        raise DslError([Diagnostic(code="config", loc=loc, fatal=True,
                                   message=f"{shown} is not YAML mkdocs can read: {e.problem or e}")]) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise DslError([Diagnostic(code="config", loc=Loc(shown, 1, 1), fatal=True,
                                   message=f"cannot read {shown}: {getattr(e, 'strerror', None) or e}")]) from None
    top = _mapping(node)
    folder = path.resolve().parent

    def folder_of(key: str, default: Optional[str], within: dict = top) -> tuple[Optional[Path], Optional[Loc]]:
        value = within.get(key)
        if value is None:
            return (folder / default if default else None), None
        text = _scalar(value)
        loc = Loc(shown, value.start_mark.line + 1, value.start_mark.column + 1)
        if text is None:
            raise DslError([Diagnostic(code="config", loc=loc, fatal=True, message=f"{key} is not a folder name")])
        return folder / os.path.expanduser(text), loc

    site, site_loc = folder_of("site_dir", "site")
    docs, _ = folder_of("docs_dir", "docs")
    theme, _ = folder_of("custom_dir", None, _mapping(top.get("theme")))
    return Config(path, site, site_loc, docs, theme)


def _mapping(node) -> dict:
    import yaml
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _scalar(node) -> Optional[str]:
    """A path as written: a plain scalar, or mkdocs' `!ENV VAR` / `!ENV [VAR, …, default]`."""
    import yaml
    if node.tag == "!ENV":
        names = [n.value for n in node.value] if isinstance(node, yaml.SequenceNode) else [node.value]
        for name in names[:-1] if len(names) > 1 else names:
            if os.environ.get(name):
                return os.environ[name]
        return names[-1] if len(names) > 1 else None
    return node.value if isinstance(node, yaml.ScalarNode) and node.value else None


def protected(root: Path, cfg: Config) -> tuple[list[tuple[Path, str]], list[tuple[Path, str]]]:
    """(folders a site may not be or contain, folders it may not be, contain or lie inside),
    each with what it is, in words."""
    root = root.resolve()
    outer = [(root, "the knowledge base root"), (cfg.path.resolve().parent, "the folder of the mkdocs config")]
    home = os.path.expanduser("~")
    if home != "~":
        outer.append((Path(home).resolve(), "your home folder"))
    inner = [((root / d).resolve(), f"the knowledge base's {d}/ folder") for d in KB_DIRS]
    inner += [(cfg.docs_dir.resolve(), "the wiki's docs folder (docs_dir)"), (PACKAGE, "rulesdsl's own code")]
    if cfg.theme_dir is not None:
        inner.append((cfg.theme_dir.resolve(), "the wiki's theme folder (custom_dir)"))
    inner += [(d, "a folder of the games' source documents") for d in _document_folders(root)]
    return outer, inner


def _document_folders(root: Path) -> set[Path]:
    """The folders of the source documents the games declare (normally rulings/<game>/sources),
    found without parsing: `document "…"` lines of the knowledge base's files."""
    from ..base.cache import walk
    found: set[Path] = set()
    for _, f in walk(root / "rulings", (".rules",)):
        try:
            text = Path(f).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for m in _DOCUMENT.finditer(text):
            found.add((Path(f).parent / m.group(1)).resolve().parent)
    return found


def _within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def check_site(site: Path, root: Path, cfg: Config, force: bool, given: bool) -> Path:
    """The site folder, resolved, once it is safe for mkdocs to empty it and for the build to
    write there; DslError (located at the config's site_dir when that is where it comes from)."""
    where = None if given else (cfg.site_loc or Loc(str(cfg.path), 1, 1))
    named = f"-d {site}" if given else f"site_dir {site}"

    def refuse(why: str, hint: str) -> DslError:
        return DslError([Diagnostic(code="site-dir", loc=where, fatal=True,
                                    message=f"wiki build: {named}: {why}; nothing was written or removed",
                                    hint=hint)])

    elsewhere = "give -d a folder of its own, e.g. -d /tmp/wiki-site (a build empties it first)"
    try:
        real = site.resolve()
        outer, inner = protected(root, cfg)
        for folder, what in outer:
            if _within(folder, real):
                raise refuse(f"it {'is' if folder == real else 'contains'} {what} ({folder}), which a build "
                             "would empty", elsewhere)
        for folder, what in inner:
            if _within(folder, real) or _within(real, folder):
                how = "is" if folder == real else "contains" if _within(folder, real) else "lies inside"
                raise refuse(f"it {how} {what} ({folder})", elsewhere)
        if os.path.lexists(real) and not real.is_dir():
            raise refuse("it is not a folder", elsewhere)
        if real.is_dir():
            entries = [e for e in os.listdir(real) if e != MARKER]
            marker = real / MARKER
            ours = marker.is_file() and not marker.is_symlink()
            if entries and not ours and not force:
                raise refuse(f"it holds {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} and no earlier "
                             f"build made it (no {MARKER} in it); a build would delete them",
                             "give an empty or new folder, or --force to let the build empty this one")
        real.mkdir(parents=True, exist_ok=True)
        marker = real / MARKER
        if not marker.is_file():
            marker.write_text(MARKER_TEXT, encoding="utf-8")
    except OSError as e:
        raise refuse(f"it cannot be used: {e.strerror or e}", elsewhere) from None
    return real


# ----------------------------------------------------------------------------- the build itself

def run_mkdocs(argv: Optional[list] = None) -> None:
    """mkdocs' command line (in the child process `rulesdsl wiki` starts), with a file-system
    failure — a full disk, a folder it may not write — reported as a located error, exit 2."""
    from mkdocs.__main__ import cli

    argv = list(sys.argv[1:] if argv is None else argv)
    site = argv[argv.index("-d") + 1] if "-d" in argv[:-1] else None
    try:
        cli.main(args=argv, prog_name="mkdocs")
    except OSError as e:
        full = e.errno in (errno.ENOSPC, errno.EDQUOT)
        at = f", at {e.filename}" if e.filename else ""
        what = f"the disk holding {site} is full ({e.strerror}{at})" if full and site else f"{e.strerror or e}{at}"
        d = Diagnostic(code="io", fatal=True, message=f"wiki build: {what}; the build stopped",
                       hint="free some space on that disk, or build elsewhere with -d DIR" if full else
                       "check that the site folder can be written, or build elsewhere with -d DIR")
        print(render(d, Sources(), color=False), file=sys.stderr)
        sys.exit(2)
