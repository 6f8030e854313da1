"""The mkdocs side of the wiki: loads the knowledge base, computes the answers, adds the generated
pages, and writes the card, ruling and scenario pages.

Two kinds of generated pages:

* index pages (home, per game: overview, rules chapters, card / ruling / Q&A indexes, rule
  points, gaps, glossary; changelog; review list) are mkdocs pages (`File.generated`, in the nav),
  rendered by Material like hand-written ones;
* item pages (one per card, ruling and scenario — thousands in a large corpus) are kept out of the
  nav and out of mkdocs' page pipeline: mkdocs renders one *shell* page per URL depth, with
  placeholders for the title, the table of contents and the content, and each item page is that
  shell with its own parts put in. Material's chrome, navigation, search box and assets are the
  same as on every other page; the build time grows linearly with the corpus.

Every page goes into the wiki's own search index (search.py): the index pages' sections as mkdocs
renders them, the item pages as they are written, each writing process building its own part.

Environment: RULESDSL_ROOT (the knowledge base; default: the folder of mkdocs.yml),
RULESDSL_WIKI_KEEP_GOING=1 (show failing scenarios as failures instead of stopping the build),
RULESDSL_WIKI_TODAY=YYYY-MM-DD (the day "today's state" is computed for; default: today).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import gzip
import json
import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.toc import get_toc

from ..base.files import write_whole
from ..base.shared_work import beside, jobs
from .a11y import fix_page
from .aside import Aside, Drawn, Kept, give_back_free_memory, packed, unpacked
from .escape import esc, strip_tags
from .render import Doc
from .search import DOCS_PER_SHARD, Entry, SearchIndex, write_meta
from .shell import TocItems
from .site import JOBS_ENV, SHARED_FROM, Page, Wiki, WikiError

log = logging.getLogger("mkdocs.plugins.rulesdsl")

GAMES_PLACEHOLDER = "rulesdsl:games"
HOME_MARKER = "<!-- rulesdsl:home -->"
SHELL_DIR = "-rulesdsl-shell"
SHELL_TITLE = "RULESDSLSHELLTITLE"
SHELL_CONTENT = "<h1>RULESDSLSHELLCONTENT</h1>"
SHELL_TOC_ID = "rulesdsl-shell-toc"
SHELL_TOC_NAME = "RULESDSLSHELLTOCNAME"
STUB = "RULESDSL-GENERATED-PAGE\n"
HELD = "RULESDSLHELDCONTENT"        # a generated page's content until it is written (`_hold`)
ITEM_TEXT = 200          # characters of an item page's text in the search index (its title, then its first lines)
_SLOT = "\x00"
_BLANK = re.compile(r"[ \t]*\n\s*")


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


class WikiPlugin:
    """The hook's state for one build."""

    def __init__(self) -> None:
        self.wiki: Optional[Wiki] = None
        self.by_src: dict[str, Page] = {}
        self.shell_src: dict[int, str] = {}      # url depth -> shell page src
        self.shells: dict[int, list[str]] = {}   # url depth -> template pieces
        self._toc = TocItems([])                 # the shells' table-of-contents items
        self.entries: list[Entry] = []           # the search index's entries (search.py)
        self.drawn: dict[str, Kept] = {}         # Q&A page src -> its parts (`Drawn`), made before the page shells exist
        self.aside: Optional[Aside] = None       # the drawn Q&A pages' parts, kept on disk until written
        self.held: dict[str, tuple[str, Kept]] = {}   # generated page src -> its content's placeholder, and the content aside
        self.scratch: Optional[Path] = None      # where the forked maker leaves the browser's interpreter (on_files copies it)
        self.started = 0.0

    # ------------------------------------------------------------------------- config
    def on_config(self, config):
        self.started = time.perf_counter()
        self.held = {}
        gc.unfreeze()   # a previous build in this process (mkdocs serve) may have frozen its objects
        gc.collect()
        # Loading builds millions of long-lived objects and little garbage: the cyclic collector
        # would only scan them over and over (a third of the load time on a large corpus).
        gc.disable()
        try:
            self._load(config)
        finally:
            gc.enable()
        # The knowledge base lives for the whole build: keep the collector from scanning it again
        # and again while pages are made (which grows with the corpus times the pages written).
        # No collection first: at 10,000 cards it takes 3 s to find about a thousand unreachable
        # objects, which are cheaper to keep.
        gc.freeze()
        # (after the freeze: the collector would scan the knowledge base for every page) the Q&A
        # pages, while a forked copy starts on the history of every revision (Wiki.find_changes)
        self.wiki.find_changes(meanwhile=self._draw_questions, in_child=give_back_free_memory)
        # what of the answers only the Q&A pages and the history read, let go of: the item and
        # index pages still to be made take its room
        self.wiki.settle_answers()
        give_back_free_memory()
        config.nav = self.nav(config.nav)
        return config

    def _load(self, config) -> None:
        from ..base.cache import find_root
        from ..kb.build import load

        root = find_root(Path(config.config_file_path).resolve().parent if config.config_file_path else None)
        kb = load(root)
        fatal = [d for d in kb.diagnostics if d.fatal]
        if fatal:
            raise PluginError("rulesdsl wiki: the knowledge base does not load:\n" +
                              "\n".join(f"  {d.loc}: {d.message}" for d in fatal))
        for d in kb.diagnostics:
            log.warning(f"rulesdsl: {d.loc}: {d.message}")
        today = None
        if os.environ.get("RULESDSL_WIKI_TODAY"):
            today = _dt.date.fromisoformat(os.environ["RULESDSL_WIKI_TODAY"])
        keep_going = _env_flag("RULESDSL_WIKI_KEEP_GOING")
        try:
            self.wiki = Wiki(kb, use_directory_urls=config.use_directory_urls, keep_going=keep_going, today=today)
        except WikiError as e:
            raise PluginError(f"rulesdsl wiki: {e}") from None
        from . import ask_bundle
        loaded = time.perf_counter()
        # the interpreter for readers' browsers does not depend on the answers: made beside them,
        # its files left in a private scratch folder (copied into the site in on_files), so that
        # their ~50 MB never enter this process's heap, which the answers have taken to its highest
        processes = jobs(len(kb.scenarios), SHARED_FROM, JOBS_ENV)
        self._discard_scratch()
        aside = self.scratch = ask_bundle.scratch() if processes > 1 else None
        made_beside = beside(lambda: ask_bundle.encode(ask_bundle.build(self.wiki), aside), processes)
        try:
            failures = self.wiki.compute_answers()
        except BaseException:
            made_beside.cancel()
            raise
        if failures:
            lines = "\n".join(f"  {f}" for f in failures)
            if not keep_going:
                made_beside.cancel()
                raise PluginError(
                    f"rulesdsl wiki: {len(failures)} scenario(s) do not come out as expected, so the wiki "
                    f"is not built (answers are computed, never typed):\n{lines}\n"
                    "  fix the scenario or the interpreter; RULESDSL_WIKI_KEEP_GOING=1 (rulesdsl wiki build "
                    "--keep-going) builds anyway and marks them on their pages")
            for f in failures:
                log.warning(f"rulesdsl: {f}")
        self._ask_bundle(made_beside)
        log.info(f"rulesdsl: knowledge base loaded in {loaded - self.started:.1f} s, "
                 f"{sum(1 for a in self.wiki.answers.values() if a is not None)} answers computed in "
                 f"{time.perf_counter() - loaded:.1f} s")

    def _draw_questions(self) -> None:
        """Make the Q&A pages' parts as soon as the answers are computed, and let go of what only
        those pages show (the traces and boards: `Wiki.release_runs`), so that they are not held
        until the item pages are written, last."""
        from .pages import render
        w = self.wiki
        started = time.perf_counter()
        self.aside = Aside()
        for page in w.items:
            if page.kind == "scenario":
                url = w.url(page.src)
                self.drawn[page.src] = self.aside.put(packed(self._drawing(render(w, page, Wiki.root_of(url)), page, url)))
                w.release_runs((page.key,))
        log.info(f"rulesdsl: {len(self.drawn)} Q&A pages made in {time.perf_counter() - started:.1f} s")

    def _drawing(self, doc: Doc, page: Page, url: str) -> Drawn:
        """What an item page's file and search entries are made of, from its rendered document."""
        w = self.wiki
        where, rank = self._where(page)
        keys = (page.key[1], w.kb.card(*page.key).card.name or "") if page.kind == "card" else ()
        return Drawn(doc.title, doc.html(), doc.toc, doc.sections[0][1] if doc.sections else "",
                     doc.search_entries(url, limit=ITEM_TEXT, single=True, where=where, keys=keys, rank=rank))

    def _ask_bundle(self, made_beside) -> None:
        """The interpreter for the readers' browsers (ask_bundle.py), or why the site has none:
        as the forked copy made it beside the answers, else made here."""
        from . import ask_bundle
        started = time.perf_counter()
        bundle = None
        data = made_beside.result()
        if data is not None:
            with contextlib.suppress(ValueError, TypeError, KeyError, OSError):
                bundle = ask_bundle.decode(data, self.scratch)
        how = "made beside the answers, waited for" if bundle is not None else "gathered"
        if bundle is None:
            bundle = ask_bundle.build(self.wiki)
        if bundle.aside is None:     # (its files are in memory: the folder is not needed)
            self._discard_scratch()
        self.wiki.ask = bundle
        if bundle.available:
            log.info(f"rulesdsl: the interpreter for readers' browsers ({bundle.total_bytes() / 1e6:.1f} MB, "
                     f"Pyodide {ask_bundle.PYODIDE_VERSION}) {how} {time.perf_counter() - started:.1f} s")
        else:
            # info, not a warning: a strict build without npm or the network is still a good site
            log.info(f"rulesdsl: the site is built without 「この質問を変えて聞く」 (asking in the reader's browser): "
                        f"{bundle.missing}")

    def nav(self, nav: Optional[list]) -> list:
        """The nav: mkdocs.yml's (hand-written pages and the generated global pages) with the
        `rulesdsl:games` placeholder replaced by one section per game. Item pages and rules
        chapters never appear (every page carries the nav; they are linked from the indexes)."""
        w = self.wiki
        assert w is not None
        games = []
        for g in w.games:
            info = w.kb.games[g]
            name = info.decl.name
            games.append({esc(name): [
                w.game_src(g),
                {"ルール": f"{g}/rules/index.md"},
                {"カード": f"{g}/cards/index.md"},
                {"裁定": f"{g}/rulings/index.md"},
                {"Q&amp;A": f"{g}/qa/index.md"},         # nav titles are HTML
                {"ルールポイント": f"{g}/points.md"},
                {"資料の欠落・矛盾": f"{g}/gaps.md"},
                {"用語集": f"{g}/glossary.md"},
                *([{"新しい質問": w.ask_src(g)}] if w.ask_src(g) in w.page_srcs else []),
                *({"資料" if len(info.documents) == 1 else f"資料：{esc(d.title)}": w.source_src(g, n)}
                  for n, d in info.documents.items()),
            ]})
        if not nav:
            return ["index.md", *games, {"変更履歴": "changelog/index.md"}, {"要確認一覧": "review.md"}]
        out, placed = [], False
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else item
            if value == GAMES_PLACEHOLDER:
                out.extend(games)
                placed = True
            else:
                out.append(item)
        if not placed:
            out[1:1] = games
        return out

    # ------------------------------------------------------------------------- files
    def on_files(self, files: Files, config) -> Files:
        w = self.wiki
        assert w is not None
        # mkdocs has emptied the site folder (unless --dirty): the interpreter for readers'
        # browsers goes there now, and its bytes are let go of instead of held while every page is made
        from .ask_bundle import write as write_ask
        write_ask(w.ask, Path(config.site_dir))     # (and the scratch folder its files were in removed)
        self.scratch = None
        in_nav = {"changelog_year": InclusionLevel.NOT_IN_NAV, "chapter": InclusionLevel.NOT_IN_NAV,
                  "review_part": InclusionLevel.NOT_IN_NAV}
        for page in w.pages:
            if files.get_file_from_path(page.src) is not None:
                log.warning(f"rulesdsl: site/ has a page at {page.src}; the generated one replaces it")
                files.remove(files.get_file_from_path(page.src))
            files.append(File.generated(config, page.src, content=STUB,
                                        inclusion=in_nav.get(page.kind, InclusionLevel.UNDEFINED)))
            self.by_src[page.src] = page
        depths = sorted({w.url(p.src).count("/") for p in w.items})
        for depth in depths:
            src = self._shell_for_depth(depth)
            self.shell_src[depth] = src
            files.append(File.generated(config, src, content=STUB, inclusion=InclusionLevel.NOT_IN_NAV))
        return files

    def _shell_for_depth(self, depth: int) -> str:
        w = self.wiki
        for k in range(0, depth + 2):
            src = "/".join([SHELL_DIR] + ["s"] * k + [f"d{depth}.md"])
            if w.url(src).count("/") == depth:
                return src
        raise PluginError(f"rulesdsl wiki: cannot place a page shell at depth {depth}")

    # ------------------------------------------------------------------------- pages
    def _shell_depth(self, src: str) -> Optional[int]:
        if not src.startswith(SHELL_DIR + "/"):
            return None
        for depth, s in self.shell_src.items():
            if s == src:
                return depth
        return None

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        src = page.file.src_uri
        gen = self.by_src.get(src)
        if gen is not None:
            page.meta["title"] = esc(gen.title)
        elif self._shell_depth(src) is not None:
            page.meta["title"] = SHELL_TITLE
        return markdown

    def on_page_content(self, html: str, page, config, files) -> str:
        w = self.wiki
        src = page.file.src_uri
        gen = self.by_src.get(src)
        if gen is not None:
            from .pages import render
            doc = render(w, gen, Wiki.root_of(page.url))
            page.toc = get_toc(doc.toc)
            where, rank = self._where(gen)
            self.entries.extend(doc.search_entries(page.url, where=where, rank=rank))
            return self._hold(src, doc.html())
        if self._shell_depth(src) is not None:
            page.toc = get_toc([{"level": 2, "id": SHELL_TOC_ID, "name": SHELL_TOC_NAME, "children": []}])
            return SHELL_CONTENT
        if page.is_homepage:
            from .pages import home
            doc = Doc(page.title or "", Wiki.root_of(page.url), h1=False)
            doc.anchors.used |= {t.id for t in _walk(page.toc)}
            home(w, doc)
            page.toc.items.extend(get_toc(doc.toc).items)
            if HOME_MARKER in html:
                html = html.replace(HOME_MARKER, doc.html(), 1)
            else:
                html = html + doc.html()
        self.entries.extend(_page_entries(html, page.url, page.title or "", rank=0))
        return html

    def _where(self, page: Page) -> tuple[str, int]:
        """A generated page's breadcrumb in search results, and its rank (0 for the pages that
        define things: game overviews, rules, glossaries, rule points; 2 for Q&A)."""
        w = self.wiki
        kind = page.kind
        game = w.kb.games[page.game].decl.name if page.game in w.kb.games else ""
        label = _KIND_JA.get(kind, "")
        where = " ＞ ".join(x for x in (game, label) if x)
        return where, _KIND_RANK.get(kind, 1)

    def _hold(self, src: str, html: str) -> str:
        """What mkdocs is given as a generated page's content: a placeholder (with an <h1> where
        the content has one: the theme adds the title's where it has none), the content itself
        kept aside until `on_post_page` puts it in. mkdocs makes every page's content before it
        writes the first: at 10,000 cards the index pages' (tables of every card, ruling and
        question, the review list) would be held all at once, the build's peak."""
        if self.aside is None:
            return html
        held = f"<h1>{HELD}{len(self.held)}</h1>" if "<h1" in html else f"<p>{HELD}{len(self.held)}</p>"
        self.held[src] = (held, self.aside.put(html.encode("utf-8")))
        return held

    def on_env(self, env, config, files):
        """Every index page's content made (and kept aside), none written yet: the free pages their
        making left in the C heap handed back, which the pages written next would not all reuse."""
        give_back_free_memory()
        return env

    def on_post_page(self, output: str, page, config) -> str:
        # the accessibility fixes first: they are the theme's parts' (its nav and footer), none of
        # our content's, so they run over the page without its content (a few pages' tables of
        # every card are megabytes, which each fix would copy)
        output = fix_page(output)
        held = self.held.pop(page.file.src_uri, None)
        if held is not None:
            at = output.find(held[0])
            if at < 0 or output.find(held[0], at + 1) >= 0:
                raise PluginError(f"rulesdsl wiki: the theme did not show {page.file.src_uri}'s content once")
            output = output.replace(held[0], self.aside.get(held[1]).decode("utf-8"), 1)   # (one copy made)
        depth = self._shell_depth(page.file.src_uri)
        if depth is not None:
            self.shells[depth] = self._template(output, page.url)
        # mkdocs keeps every page's HTML until the build ends, though nothing reads it once the page
        # is written (the next pages' nav and footer use titles and URLs): at 10,000 cards the index
        # pages (tables of every card, ruling and question, the changelog) are tens of megabytes
        page.content = None
        return output

    def _template(self, output: str, shell_url: str) -> list[str]:
        """Split a rendered shell into pieces around its slots (title, toc, content, url)."""
        at = output.find(SHELL_TOC_NAME)
        start = output.rfind('<li class="md-nav__item">', 0, at)
        end = output.find("</li>", at) + len("</li>")
        if at < 0 or start < 0 or end < len("</li>"):
            raise PluginError("rulesdsl wiki: the theme's table of contents was not found in the page shell")
        item = output[start:end]
        body = output[:start] + _SLOT + "TOC" + _SLOT + output[end:]
        for token, name in ((SHELL_TITLE, "TITLE"), (SHELL_CONTENT, "CONTENT"), (SHELL_TOC_ID, "TOCID")):
            body = body.replace(token, _SLOT + name + _SLOT)
        if shell_url:
            body = body.replace(shell_url, _SLOT + "URL" + _SLOT)
        # the theme's indentation is most of a page's bytes, and item pages are written thousands of
        # times: keep one line break for each run of blank space (the shell holds no <pre>)
        pieces = [_BLANK.sub("\n", p) if i % 2 == 0 else p for i, p in enumerate(body.split(_SLOT))]
        self._toc = TocItems(item.replace(SHELL_TOC_NAME, _SLOT + "NAME" + _SLOT).replace(
            SHELL_TOC_ID, _SLOT + "ID" + _SLOT).split(_SLOT))
        return pieces

    # ------------------------------------------------------------------------- items
    def on_post_build(self, config) -> None:
        w = self.wiki
        assert w is not None
        started = time.perf_counter()
        site = Path(config.site_dir)
        items = w.items
        # the search index's first part: the index and hand-written pages, then the item pages
        # this process writes; a forked writer builds the second part from its own items
        index = SearchIndex()
        index.extend(self.entries)
        self.entries = []
        give_back_free_memory()      # (before the item writer's fork: it counts what this process holds)
        if self._jobs(len(items)) > 1:
            parts = self._write_items_forked(items, site, index)
        else:
            self._write_items(items, site, index)
            parts = [index.write(site, 0)]
        stats = write_meta(site, parts)      # (the interpreter for browsers: written in on_files)
        self._close_aside()
        w.sources.clear()
        shutil.rmtree(site / SHELL_DIR, ignore_errors=True)
        self._fix_sitemap(site)
        # Freeing millions of objects at exit takes longer than some builds: the frozen objects are
        # kept in a cycle that the interpreter's shutdown never collects. The next build in the
        # same process (mkdocs serve) unfreezes and collects them in on_config.
        self._keep_until_exit = self
        log.info(f"rulesdsl: {len(w.items)} card, ruling and Q&A pages and the search index "
                 f"({stats['entries']} entries, {stats['terms']} terms, {stats['files']} files, "
                 f"{stats['bytes'] / 1e6:.1f} MB; indexing {stats['seconds']} s of CPU in each process) written in "
                 f"{time.perf_counter() - started:.1f} s "
                 f"({len(w.pages)} index pages rendered by mkdocs); "
                 f"{time.perf_counter() - self.started:.1f} s since the knowledge base began to load")

    @staticmethod
    def _jobs(count: int) -> int:
        """Processes that write the item pages: two on a machine with two or more cores, for a
        corpus large enough to pay for a fork, when nothing else runs threads (not under
        `mkdocs serve`). RULESDSL_WIKI_JOBS=1 turns it off."""
        return jobs(count, 2000, JOBS_ENV)

    def _write_items(self, items: list[Page], site: Path, index: SearchIndex, backwards: bool = False) -> None:
        """Render and write item pages; add them to the search index in order. `backwards`: the
        files written last item first (the forked writer's), the entries added once all are."""
        from .pages import render

        w = self.wiki
        made: set[str] = set()
        later: list = []
        for page in (reversed(items) if backwards else items):
            url = w.url(page.src)
            kept = self.drawn.pop(page.src, None)
            drawn = unpacked(self.aside.get(kept)) if kept is not None else \
                self._drawing(render(w, page, Wiki.root_of(url)), page, url)
            html = self._fill(self.shells[url.count("/")], drawn, url)
            path = w.path(page.src)        # (joined as text: cheaper than a Path made and parsed per page)
            dest = f"{site}/{path}index.html" if path.endswith("/") or not path else f"{site}/{path}"
            if (folder := os.path.dirname(dest)) not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            write_whole(dest, html.encode("utf-8"))
            if backwards:
                later.append(drawn.entries)
                continue
            for e in drawn.entries:
                index.add(e)
        for entries in reversed(later):
            for e in entries:
                index.add(e)

    def _write_items_forked(self, items: list[Page], site: Path, index: SearchIndex) -> list[dict]:
        """Half of the item pages in a forked copy of this process (the knowledge base is shared
        copy-on-write and frozen, so the child barely copies it), half here; each process writes
        its own part of the search index. The parts' descriptions."""
        mine, theirs = items[0::2], items[1::2]
        first = -(-(index.first + len(index.entries) + len(mine)) // DOCS_PER_SHARD) * DOCS_PER_SHARD
        fd, tmp = tempfile.mkstemp(prefix="rulesdsl-wiki-", suffix=".json")
        pid = os.fork()
        if pid == 0:                                    # the child: no logging, no mkdocs, no teardown
            code = 0
            try:
                self._let_go_of(mine)
                part = SearchIndex(first)
                # (backwards: the two processes make their files in different folders but for a
                # moment, not side by side in one, where making a file waits for the other's)
                self._write_items(theirs, site, part, backwards=True)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(_json(part.write(site, 1)))
            except BaseException as e:                  # noqa: BLE001 - reported by the parent
                code = 1
                try:
                    with open(tmp + ".err", "w", encoding="utf-8") as f:
                        f.write(f"{type(e).__name__}: {e}")
                except OSError:
                    pass
            os._exit(code)
        os.close(fd)
        self._let_go_of(theirs)
        try:
            self._write_items(mine, site, index)
            parts = [index.write(site, 0)]
        finally:
            _, status = os.waitpid(pid, 0)
        try:
            if os.waitstatus_to_exitcode(status) != 0:
                err = Path(tmp + ".err")
                detail = err.read_text(encoding="utf-8") if err.exists() else f"exit status {status}"
                raise PluginError(f"rulesdsl wiki: writing the item pages failed: {detail}")
            with open(tmp, encoding="utf-8") as f:
                parts.append(json.loads(f.read()))
        finally:
            for p in (tmp, tmp + ".err"):
                with contextlib.suppress(OSError):
                    os.unlink(p)
        return parts

    def _let_go_of(self, items: list[Page]) -> None:
        """Drop the drawn parts of the Q&A pages the other process writes: the room they take is
        this process's to reuse for its own pages and its part of the search index."""
        for page in items:
            self.drawn.pop(page.src, None)

    def _fill(self, pieces: list[str], drawn: Drawn, url: str) -> str:
        toc = self._toc.html(drawn.toc)
        values = {"TITLE": esc(drawn.title), "CONTENT": drawn.content, "TOC": toc, "TOCID": esc(drawn.first), "URL": url}
        return "".join(values[p] if i % 2 else p for i, p in enumerate(pieces))

    def _fix_sitemap(self, site: Path) -> None:
        path = site / "sitemap.xml"
        if not path.exists():
            return
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\s*<url>\s*<loc>[^<]*" + re.escape(SHELL_DIR) + r"[^<]*</loc>.*?</url>", "", text, flags=re.S)
        path.write_text(text, encoding="utf-8")
        gz = site / "sitemap.xml.gz"
        if gz.exists():
            with open(gz, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                f.write(text.encode("utf-8"))

    def _close_aside(self) -> None:
        if self.aside is not None:
            self.aside.close()
            self.aside = None

    def _discard_scratch(self) -> None:
        from .scratch import discard
        discard(self.scratch)
        self.scratch = None

    def on_build_error(self, error, **kwargs) -> None:
        self._close_aside()
        self._discard_scratch()
        gc.unfreeze()
        gc.collect()

    # ------------------------------------------------------------------------- serve
    def on_serve(self, server, config, builder):
        if self.wiki is not None:
            for d in ("cards", "rulings"):
                path = Path(self.wiki.kb.root) / d
                if path.is_dir():
                    server.watch(str(path))
        return server


_KIND_JA = {"game": "", "rules": "ルール", "chapter": "ルール", "cards": "カード", "card": "カード",
            "rulings": "裁定", "ruling": "裁定", "qa": "Q&A", "scenario": "Q&A", "points": "ルールポイント",
            "gaps": "資料の欠落・矛盾", "glossary": "用語集", "source": "資料", "changelog": "変更履歴",
            "changelog_year": "変更履歴", "review": "要確認一覧", "review_part": "要確認一覧"}
_KIND_RANK = {"game": 0, "rules": 0, "chapter": 0, "glossary": 0, "points": 0, "scenario": 2}
_HEADING = re.compile(r'<h([12])\b(?:[^>]*?\bid="([^"]*)")?[^>]*>(.*?)</h\1>', re.S)


def _page_entries(html: str, url: str, title: str, rank: int) -> list[Entry]:
    """Search entries of a page rendered by mkdocs (hand-written, or the home page): one per
    h1/h2 section."""
    import html as _html
    marks = list(_HEADING.finditer(html))
    out = []
    if not marks or marks[0].start() > 0:
        text = strip_tags(html[:marks[0].start() if marks else len(html)])
        if text:
            out.append(Entry(url, title, _html.unescape(text)[:1500], "", (), rank))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(html)
        heading = _html.unescape(strip_tags(m.group(3))).replace("¶", "").strip()
        text = _html.unescape(strip_tags(html[m.end():end]))[:1500]
        if m.group(1) == "1" or not m.group(2):
            out.append(Entry(url, heading or title, text, "", (), rank))
        else:
            out.append(Entry(f"{url}#{m.group(2)}", heading, text, title, (), rank))
    return out


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _walk(toc) -> list[Any]:
    out = []
    for item in toc or ():
        out.append(item)
        out.extend(_walk(item.children))
    return out
