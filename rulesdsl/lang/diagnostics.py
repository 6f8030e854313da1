"""Findings about input, located and rendered for a person: file:line:column, the line, a caret,
what was expected in words and a hint."""

from __future__ import annotations

import unicodedata
from typing import Iterable, Literal, Optional

from ..base import files
from ..base.declared import BaseModel, ConfigDict
from .model import Loc


# defer_build: a run without findings never builds their validators (a few ms of every start)
class Related(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    loc: Loc
    message: str


class Diagnostic(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    code: str                       # e.g. "syntax", "unknown-ref", "contradiction"
    message: str
    loc: Optional[Loc] = None
    width: int = 1                  # how many characters the caret underlines
    hint: Optional[str] = None
    related: tuple[Related, ...] = ()
    severity: Literal["error", "warning"] = "error"
    fatal: bool = False             # the input could not be used at all (syntax, encoding, I/O)

    def as_json(self) -> dict:
        data = self.model_dump(mode="json")
        data["loc"] = self.loc.as_dict() if self.loc else None
        data["related"] = [{"loc": r.loc.as_dict(), "message": r.message} for r in self.related]
        return data

    def sort_key(self):
        if self.loc is None:
            return ("", 0, 0, self.code)
        return (self.loc.file, self.loc.line, self.loc.col, self.code)


class DslError(Exception):
    """Raised with diagnostics when input cannot be used; the CLI renders them and exits."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def did_you_mean(word: str, choices: Iterable[str], n: int = 1) -> Optional[str]:
    """`did you mean "x"?` for the closest choice, or None."""
    import difflib      # only when a hint is wanted
    matches = difflib.get_close_matches(word, list(choices), n=n, cutoff=0.6)
    if not matches:
        return None
    return "did you mean " + " or ".join(f'"{m}"' for m in matches) + "?"


def display_width(text: str) -> int:
    """Terminal cells taken by text: CJK wide and fullwidth characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class Sources:
    """The text of every file a diagnostic may point into, for rendering the offending line."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def add(self, path: str, text: str) -> None:
        self._lines[path] = text.splitlines()

    def line(self, path: str, number: int) -> Optional[str]:
        lines = self._lines.get(path)
        if lines is None:
            try:
                lines = files.read_regular(path).decode("utf-8", errors="replace").splitlines()
            except (OSError, ValueError):        # files.NotAFile and TooLarge are OSErrors
                lines = []      # not a file, or unreadable: the diagnostic is shown without its line
            self._lines[path] = lines
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return None


def render(diag: Diagnostic, sources: Sources, color: bool = False) -> str:
    """The human form: location, message, the source line with a caret, hint, related places."""
    red, bold, dim, reset = ("\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m") if color else ("",) * 4
    where = f"{diag.loc}: " if diag.loc else ""
    out = [f"{bold}{where}{red}{diag.severity}[{diag.code}]{reset}{bold}: {diag.message}{reset}"]
    if diag.loc is not None:
        out.extend(_excerpt(diag.loc, diag.width, sources, dim, reset))
    if diag.hint:
        out.append(f"  hint: {diag.hint}")
    for rel in diag.related:
        out.append(f"  {rel.loc}: note: {rel.message}")
        out.extend(_excerpt(rel.loc, 1, sources, dim, reset))
    return "\n".join(out)


def _excerpt(loc: Loc, width: int, sources: Sources, dim: str, reset: str) -> list[str]:
    line = sources.line(loc.file, loc.line)
    if line is None:
        return []
    line = line.replace("\t", " ")
    gutter = f"{loc.line:>5} | "
    prefix = line[: max(loc.col - 1, 0)]
    marked = line[max(loc.col - 1, 0): max(loc.col - 1, 0) + max(width, 1)]
    caret = " " * display_width(prefix) + "^" * max(display_width(marked), 1)
    return [f"{dim}{gutter}{reset}{line}", f"{dim}{' ' * (len(gutter) - 2)}| {reset}{caret}"]
