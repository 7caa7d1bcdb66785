"""What the measured stabilizing stage decided, kept on disk across processes.

The measured stage (:mod:`relations.compile.stabilize`, ``relational_measured``) spends seconds on a
region its screens flag (mpmath, the numerics theory, Herbie's regimes) and keeps the outcome per
region structure in memory.  :class:`OutcomeStore` keeps the same outcomes in PyTensor's compile
directory, as PyTensor keeps its compiled modules there, so a model compiled again in a new process
(a script run again, a sampler's worker) pays a file read instead.

Before (a new process, latent AR(1)'s logp + dlogp)::

    relational_measured: 3 regions measured, 11 s

After (the same graph in the next process)::

    relational_measured: 3 regions read from the store, milliseconds

An entry's name is the SHA-256 of the region's structure (its Ops, constants, wiring and input types,
pickled) and of :func:`source_digest`: the source of this package and PyTensor's version, so an
outcome found by other code is never read.  An entry that cannot be read is a miss; a directory that
cannot be written keeps nothing (the stage works as before).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytensor
from pytensor import config

__all__ = ["OutcomeStore", "source_digest"]

#: The packages whose source :func:`source_digest` reads (the stage, the theory, the exact values).
SOURCES = ("relations", "graph_bridge")

_DIGEST: list[bytes] = []


def source_digest() -> bytes:
    """SHA-256 of every ``.py`` file of :data:`SOURCES` (paths and bytes, sorted) and PyTensor's version:
    any change to the theory, the screens or the measurement names other entries.  Read once per process."""
    if not _DIGEST:
        h = hashlib.sha256(pytensor.__version__.encode())
        root = Path(__file__).resolve().parent.parent.parent
        for package in SOURCES:
            for path in sorted((root / package).rglob("*.py")):
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
        _DIGEST.append(h.digest())
    return _DIGEST[0]


class OutcomeStore:
    """Outcomes of the measured stage per region structure, one file each under ``directory`` (default:
    ``relations_measured`` in PyTensor's ``config.compiledir``)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self._directory = Path(directory) if directory is not None else None

    @property
    def directory(self) -> Path:
        """Where the entries are (PyTensor's compile directory is read when first needed)."""
        if self._directory is None:
            self._directory = Path(config.compiledir) / "relations_measured"
        return self._directory

    def _path(self, key: Hashable) -> Path | None:
        try:
            raw = pickle.dumps(key, protocol=4)
        except (pickle.PicklingError, TypeError, AttributeError):
            return None
        return self.directory / f"{hashlib.sha256(source_digest() + raw).hexdigest()}.pkl"

    def get(self, key: Hashable) -> Any | None:
        """The outcome kept for ``key`` (``None``: none, or one that cannot be read)."""
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            with path.open("rb") as f:
                return pickle.load(f)
        except Exception:  # a truncated or foreign file: a miss, measured again and written anew
            return None

    def put(self, key: Hashable, outcome: Any) -> None:
        """Keep ``outcome`` for ``key`` (written whole or not at all: a reader never sees half a file)."""
        path = self._path(key)
        if path is None:
            return
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as f:
                tmp = f.name
                pickle.dump(outcome, f, protocol=4)
            os.replace(tmp, path)
            tmp = None
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            return
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def clear(self) -> None:
        """Remove every entry."""
        if self.directory.is_dir():
            for path in self.directory.glob("*.pkl"):
                path.unlink(missing_ok=True)
