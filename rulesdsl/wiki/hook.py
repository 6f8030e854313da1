"""The mkdocs hook (`hooks: [rulesdsl/wiki/hook.py]` in mkdocs.yml) that generates the wiki from
the knowledge base at build time. mkdocs loads this file afresh for every build (and every
rebuild under `mkdocs serve`), so each build has its own state. See rulesdsl/wiki/plugin.py."""

from rulesdsl.wiki.plugin import WikiPlugin

_plugin = WikiPlugin()

on_config = _plugin.on_config
on_files = _plugin.on_files
on_page_markdown = _plugin.on_page_markdown
on_page_content = _plugin.on_page_content
on_env = _plugin.on_env
on_post_page = _plugin.on_post_page
on_post_build = _plugin.on_post_build
on_serve = _plugin.on_serve
on_build_error = _plugin.on_build_error
