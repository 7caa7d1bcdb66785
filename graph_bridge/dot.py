"""Graphviz drawings: DOT source written by the toolkit, SVG made by a ``dot`` program.

:class:`Dot` writes DOT source (nodes, edges, clusters, with ids and
classes that the SVG keeps, so a drawing's structure can be read back from
its SVG).  :class:`Drawing` holds one drawing's source: :meth:`Drawing.dot`
is that text (always available), :meth:`Drawing.svg` runs a ``dot`` program
on it, and ``_repr_svg_`` shows it in Jupyter.

The ``dot`` program is looked up (:func:`find_dot`) in this order: the
``RELATIONS_DOT`` environment variable (a path or a command name), the
``graphviz-pure`` command installed by the ``draw`` extra
(``pip install 'pytensor-relations[draw]'``; a self-contained port of
Graphviz's ``dot``, wheels for Linux, macOS and Windows), beside the running
Python first, then on ``PATH``, then a system Graphviz's ``dot`` on ``PATH``.
Where none is found, :meth:`Drawing.svg` raises :class:`DotNotFound` naming
the extra, and ``_repr_svg_`` returns ``None`` (Jupyter then shows the text).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

__all__ = ["DOT_SECONDS", "Dot", "DotNotFound", "Drawing", "find_dot", "render_svg"]

#: Seconds a ``dot`` run may take before :func:`render_svg` gives up.
DOT_SECONDS = 60.0
#: The commands tried, in order, after ``RELATIONS_DOT``.
DOT_COMMANDS = ("graphviz-pure", "dot")
#: What :class:`DotNotFound` tells the user to install.
INSTALL_HINT = (
    "drawing to SVG needs a Graphviz 'dot' program: install the 'draw' extra "
    "(pip install 'pytensor-relations[draw]', which brings graphviz-pure), put Graphviz's dot on PATH, "
    "or set RELATIONS_DOT to a dot program; .dot() gives the Graphviz source without it"
)


class DotNotFound(RuntimeError):
    """No ``dot`` program was found to render a drawing (see :func:`find_dot`)."""


def find_dot() -> str | None:
    """The path of the ``dot`` program drawings are rendered with, or ``None`` (see the module docstring)."""
    given = os.environ.get("RELATIONS_DOT")
    if given:
        return shutil.which(given) or (given if os.access(given, os.X_OK) else None)
    folders = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    for name in DOT_COMMANDS:
        for folder in folders:
            found = shutil.which(name, path=folder)
            if found:
                return found
        found = shutil.which(name)
        if found:
            return found
    return None


def render_svg(source: str, program: str | None = None) -> str:
    """The SVG text ``dot -Tsvg`` makes of DOT ``source``; ``program`` default :func:`find_dot`.

    Raises :class:`DotNotFound` when there is no ``dot`` program, and
    ``RuntimeError`` with dot's own message when it refuses the source.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be DOT text (a str), got {type(source).__name__}")
    program = program or find_dot()
    if program is None:
        raise DotNotFound(INSTALL_HINT)
    done = subprocess.run(
        [program, "-Tsvg"], input=source.encode(), capture_output=True, timeout=DOT_SECONDS, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{program} -Tsvg failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return done.stdout.decode()


def quote(text: object) -> str:
    """``text`` as a DOT double-quoted string (quotes and backslashes escaped, newlines as ``\\n``)."""
    s = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + s.replace("\r", "").replace("\n", "\\n") + '"'


def _attributes(attrs: dict[str, object]) -> str:
    items = [f"{k}={quote(v)}" for k, v in attrs.items() if v is not None]
    return f" [{', '.join(items)}]" if items else ""


class Dot:
    """DOT source under construction: a directed graph of nodes, edges and clusters.

    Node and cluster names are the caller's; every attribute value is quoted.
    ``id`` and ``class`` attributes are kept by ``dot -Tsvg`` as the ``id``
    and ``class`` of the SVG group of the node, edge or cluster.
    """

    def __init__(self, name: str = "G", **attrs: object) -> None:
        self.name = name
        self.head = [f"{k}={quote(v)};" for k, v in attrs.items()]
        self.lines: list[str] = []
        self.nodes = 0

    def defaults(self, kind: str, **attrs: object) -> None:
        """Default attributes of every ``kind`` (``"node"``, ``"edge"``, ``"graph"``) from here on."""
        self.lines.append(f"{kind}{_attributes(attrs)};")

    def node(self, name: str, **attrs: object) -> None:
        """A node ``name`` with ``attrs`` (``label``, ``shape``, ``id``, ``class``, ...)."""
        self.nodes += 1
        self.lines.append(f"{quote(name)}{_attributes(attrs)};")

    def edge(self, tail: str, head: str, **attrs: object) -> None:
        """An edge ``tail -> head`` with ``attrs``."""
        self.lines.append(f"{quote(tail)} -> {quote(head)}{_attributes(attrs)};")

    def open_cluster(self, name: str, **attrs: object) -> None:
        """Start the cluster ``cluster_<name>`` (its nodes follow, then :meth:`close_cluster`)."""
        self.lines.append(f"subgraph {quote('cluster_' + name)} {{")
        self.lines.extend(f"{k}={quote(v)};" for k, v in attrs.items() if v is not None)

    def close_cluster(self) -> None:
        """End the cluster opened last."""
        self.lines.append("}")

    def extend(self, lines: Iterable[str]) -> None:
        """Raw DOT statements."""
        self.lines.extend(lines)

    def source(self) -> str:
        """The DOT text."""
        body = "\n".join("  " + line for line in [*self.head, *self.lines])
        return f"digraph {quote(self.name)} {{\n{body}\n}}\n"


class Drawing:
    """A drawing: its DOT source (:meth:`dot`), its SVG (:meth:`svg`), shown by Jupyter.

    ``boxes`` is how many boxes (nodes) the drawing has; ``notes`` says what
    was folded or left out, in words (empty when nothing was).
    """

    def __init__(self, source: str, boxes: int = 0, notes: str = "") -> None:
        self.source = source
        self.boxes = boxes
        self.notes = notes
        self._svg: str | None = None

    def dot(self) -> str:
        """The Graphviz DOT source (no ``dot`` program needed)."""
        return self.source

    def svg(self) -> str:
        """The SVG text (rendered once, then kept); :class:`DotNotFound` where there is no ``dot`` program."""
        if self._svg is None:
            self._svg = render_svg(self.source)
        return self._svg

    def save(self, path: str | os.PathLike) -> Path:
        """Write the SVG (a path ending ``.svg``) or the DOT source (any other suffix) to ``path``."""
        path = Path(path)
        path.write_text(self.svg() if path.suffix == ".svg" else self.source)
        return path

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture: the SVG, or ``None`` (the text is shown) where there is no ``dot`` program."""
        try:
            return self.svg()
        except DotNotFound:
            return None

    def __repr__(self) -> str:
        extra = f"; {self.notes}" if self.notes else ""
        return f"Drawing({self.boxes} boxes{extra}; .dot() for the source, .svg() for the picture)"
