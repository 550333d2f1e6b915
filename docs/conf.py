"""Sphinx configuration of affray's reference site (docs/decisions.md says why Sphinx).

Build (README, "Development"; CI runs the same in .ci/run):

    sphinx-build -W --keep-going -b html docs docs/_build/html

The Markdown pages are read by MyST-Parser; the API reference is autodoc and autosummary
over the *installed* `affray` package (`pip install ".[docs]"`), never the source folders,
so it documents what users import.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import affray

ROOT = Path(__file__).resolve().parent.parent
# The example game's walk-through is its own README (examples/dungeon/): the example page
# includes it when it is there, and says it is to come when it is not.
EXAMPLE_README = ROOT / "examples" / "dungeon" / "README.md"

project = "affray"
author = "the affray developers"
copyright = "the affray developers"
release = affray.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
templates_path = ["_templates"]
# decisions-NAME.md: a working note of one part, folded into decisions.md: not a page.
exclude_patterns = ["_build", "decisions-*.md", "Thumbs.db", ".DS_Store"]

# Docstrings are prose in reStructuredText, and use `single backticks` for names and
# expressions throughout: RST's default role, shown as inline code.
default_role = "code"

# MyST: the existing pages are plain GitHub Markdown (tables, fenced code, relative links).
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The API reference.
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
python_maximum_signature_line_length = 110
add_module_names = False
# A signature's annotation names a class by its short name; where two modules define one
# of that name (`affray.core.actions.Cast`, the action, and `affray.core.events.Cast`, its event),
# Sphinx warns that the link is ambiguous and takes the first. That is the only warning
# of this type ("more than one target found"); every other warning stays an error.
suppress_warnings = ["ref.python"]

# A code block without a language (the CLI's usage, a screen, a table printed by a
# command) is shown as text, not guessed at as Python.
highlight_language = "text"

html_theme = "furo"
html_title = f"affray {release}"
html_static_path = ["_static"]
html_css_files = ["affray.css"]
html_show_sourcelink = False


def _drop_field_alias_docs(app: Any, what: str, name: str, obj: Any, options: Any,
                           lines: list[str]) -> None:
    """A NamedTuple field's generated docstring ("Alias for field number 0") says nothing
    an event's page needs: keep the field and its type, drop the sentence."""
    text = [line for line in lines if line.strip()]
    if len(text) == 1 and text[0].startswith("Alias for field number"):
        lines.clear()


_LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)(\))")


def _from_docs(target: str, folder: Path) -> str:
    """A link target of a file in `folder`, rewritten relative to docs/ (web addresses,
    anchors and absolute paths as they are)."""
    if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):
        return target
    path, hash_, anchor = target.partition("#")
    moved = os.path.relpath(os.path.normpath(folder / path), ROOT / "docs")
    return f"{Path(moved).as_posix()}{hash_}{anchor}"


def example_walkthrough(text: str, folder: Path) -> str:
    """The example's README as a section of docs/example.md: headings two levels down,
    links and images pointing where they point from the README's own folder."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            if line.startswith("#"):
                line = "##" + line
            line = _LINK.sub(lambda m: m[1] + _from_docs(m[2], folder) + m[3], line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def _include_example_walkthrough(app: Any, docname: str, source: list[str]) -> None:
    """Put the example's README under docs/example.md's walk-through heading, in place
    of the paragraph that says it is to come (only when the README exists)."""
    if docname != "example" or not EXAMPLE_README.is_file():
        return
    heading = "## The walk-through\n"
    before = source[0].partition(heading)[0]
    app.env.note_dependency(str(EXAMPLE_README))  # an edit of the README rebuilds the page
    readme = EXAMPLE_README.read_text(encoding="utf-8")
    source[0] = f"{before}{heading}\n{example_walkthrough(readme, EXAMPLE_README.parent)}"


# A README link to a file the site shows as a page of its own: the page instead.
_SHOWN_AS_PAGE = {"examples/dungeon/README.md": "docs/example.md"}


def _readme_links_to_pages(app: Any, relative_path: Path, parent_docname: str,
                           content: list[str]) -> None:
    """docs/readme.md includes the README: a link there to a file the site shows as a
    page (the example's README, on docs/example.md) points at that page, since the
    include's `relative-docs` rewrites only links into docs/."""
    if Path(relative_path).name != "README.md" or parent_docname != "readme":
        return
    for source, page in _SHOWN_AS_PAGE.items():
        content[0] = content[0].replace(f"]({source})", f"]({page})")


def _drop_object_base(app: Any, name: str, obj: Any, options: Any, bases: list[type]) -> None:
    """"Bases: object" on every plain class says nothing: a class's bases are shown only
    when it has some (autodoc still writes an empty "Bases:", which `_drop_empty_bases`
    removes)."""
    bases[:] = [base for base in bases if base is not object]


def _drop_empty_bases(app: Any, doctree: Any) -> None:
    """Remove the empty "Bases:" paragraph a class with no base but object is left with."""
    from docutils import nodes
    from sphinx import addnodes

    for content in doctree.findall(addnodes.desc_content):
        for paragraph in list(content.findall(nodes.paragraph)):
            if paragraph.parent is content and paragraph.astext().strip() == "Bases:":
                content.remove(paragraph)


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _drop_field_alias_docs)
    app.connect("autodoc-process-bases", _drop_object_base)
    app.connect("doctree-read", _drop_empty_bases)
    app.connect("source-read", _include_example_walkthrough)
    app.connect("include-read", _readme_links_to_pages)
