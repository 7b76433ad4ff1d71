"""mkdocs hook: pages that live outside docs/ -- README.md as the home page, and the studies' and
benchmarks' READMEs (``docs/studies`` and ``docs/benchmarks`` link to those folders) -- so that each
text and each measured result has one home.

Such a file links into the site the way it must in the repository (``docs/guides/x.md`` from the
README, ``../../docs/guides/x.md`` from ``studies/a/README.md``); on its page in the site those links
are rewritten to the page's own place (``guides/x.md``, ``../../guides/x.md``). Links that stay
inside studies/ or benchmarks/ hold in both places as written.
"""
from __future__ import annotations

import os
import posixpath
import re

from mkdocs.structure.files import File, Files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTSIDE = ("studies/", "benchmarks/")  # docs/<these> are links to the repository's folders
_LINK = re.compile(r"(\]\()([^)\s#]+)([#)\s])")


def _repo_path(src_uri: str) -> str:
    """Where the page's file is in the repository, relative to the root (index.md is README.md)."""
    return "README.md" if src_uri == "index.md" else src_uri


def rewrite_links(markdown: str, src_uri: str) -> str:
    """``markdown`` of the page ``src_uri`` with its relative links into ``docs/`` made relative to the page."""
    repo_dir = posixpath.dirname(_repo_path(src_uri))
    site_dir = posixpath.dirname(src_uri)

    def fix(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return match.group(0)
        in_repo = posixpath.normpath(posixpath.join(repo_dir, target))
        if not in_repo.startswith("docs/"):
            return match.group(0)
        return match.group(1) + posixpath.relpath(in_repo[len("docs/"):], site_dir or ".") + match.group(3)

    return _LINK.sub(fix, markdown)


def on_files(files: Files, config) -> Files:
    """Add ``index.md``: README.md as the home page."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        files.append(File.generated(config, "index.md", content=f.read()))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (mkdocs hook signature)
    src_uri = page.file.src_uri
    if src_uri == "index.md" or src_uri.startswith(OUTSIDE):
        return rewrite_links(markdown, src_uri)
    return markdown
