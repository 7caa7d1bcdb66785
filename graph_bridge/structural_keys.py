"""Structural keys and hashes of PyTensor variables: equal keys (or 16-byte hashes), equal graphs.

:class:`StructuralKeys` interns a key per variable (what extraction, explanations and
the queries compare forms by); :class:`StructuralHashes` keeps only hashes.

An open search (the test baseline ``tests/form_search.py``) keeps, for every form it has
yielded, a 16-byte structural hash (:class:`StructuralHashes`), never the
form itself: about 100 bytes (a 16-byte hash in a set) per distinct form.
The hashes of sub-graphs are cached only while their variables are alive
(weak references), so forms that leave the search are freed.

Two different forms whose hashes collide (BLAKE2b, 128 bits) would be taken
for one; the chance is negligible next to any run's length.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from hashlib import blake2b
from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable

from graph_bridge.traverse import bottom_up

__all__ = ["StructuralHashes", "StructuralKeys"]


class _KeyedRef(weakref.ref):
    """A weak reference that knows its memo key (cheaper than a closure per variable)."""

    __slots__ = ("key",)
    key: int

    def __new__(cls, obj: Variable, callback: Callable, key: int) -> _KeyedRef:
        self = super().__new__(cls, obj, callback)
        self.key = key
        return self

    def __init__(self, obj: Variable, callback: Callable, key: int) -> None:
        # typeshed declares no weakref.ref.__init__; ref.__init__(obj, callback) is there at run time
        super().__init__(obj, callback)  # type: ignore[call-arg]


class StructuralHashes:
    """128-bit structural hashes of variables: equal graphs, equal hashes.

    Root inputs hash by identity, constants by type, dtype, shape and data,
    nodes by their Op (class, props hash and printed form) and their inputs'
    hashes.  A variable's hash is cached while the variable is alive.
    """

    def __init__(self) -> None:
        self._memo: dict[int, tuple[_KeyedRef, bytes]] = {}

    def __len__(self) -> int:
        return len(self._memo)

    def _forget(self, ref: _KeyedRef) -> None:
        entry = self._memo.get(ref.key)
        if entry is not None and entry[0] is ref:
            del self._memo[ref.key]

    def _cached(self, v: Variable) -> bytes | None:
        entry = self._memo.get(id(v))
        if entry is not None and entry[0]() is v:
            return entry[1]
        return None

    def digest(self, root: Variable) -> bytes:
        found = self._cached(root)
        if found is not None:
            return found
        stack = [root]
        while stack:
            v = stack[-1]
            if self._cached(v) is not None:
                stack.pop()
                continue
            node = v.owner
            h = blake2b(digest_size=16)
            if node is None:
                if isinstance(v, Constant):
                    data = np.asarray(v.data)
                    h.update(repr(("const", str(v.type), data.dtype.str, data.shape)).encode())
                    h.update(data.tobytes())
                else:
                    h.update(repr(("input", id(v))).encode())
            else:
                missing = [i for i in node.inputs if self._cached(i) is None]
                if missing:
                    stack.extend(missing)
                    continue
                op = node.op
                h.update(
                    repr((type(op).__qualname__, hash(op), str(op), node.outputs.index(v))).encode()
                )
                for i in node.inputs:
                    h.update(self._cached(i))  # type: ignore[arg-type]
            stack.pop()
            self._memo[id(v)] = (_KeyedRef(v, self._forget, id(v)), h.digest())
        return self._memo[id(root)][1]

    def form_key(self, outputs: list[Variable]) -> bytes:
        """One hash for a list of outputs (their order counts)."""
        if len(outputs) == 1:
            return self.digest(outputs[0])
        h = blake2b(digest_size=16)
        for o in outputs:
            h.update(self.digest(o))
        return h.digest()


class StructuralKeys:
    """Interned structural keys of variables: equal keys, equal graphs.

    Root variables are keyed by identity, constants by dtype, shape and data,
    nodes by their Op (props equality) and their inputs' keys.  Keys persist
    across forms, so a form that shares most of its nodes with the input
    costs only its new nodes.
    """

    def __init__(self) -> None:
        #: ``id(variable)`` -> its key, for every variable keyed so far
        self.by_var: dict[int, int] = {}
        #: the variables keyed so far, in the order they were (kept alive: ``by_var`` holds their ids)
        self.kept: list[Variable] = []
        self._intern: dict[Any, int] = {}

    def _id(self, k: Any) -> int:
        found = self._intern.get(k)
        if found is None:
            found = self._intern[k] = len(self._intern)
        return found

    def key(self, root: Variable) -> int:
        memo = self.by_var
        for v in bottom_up([root], lambda u: id(u) in memo):
            node = v.owner
            if node is None:
                if isinstance(v, Constant):
                    data = np.asarray(v.data)
                    k: Any = ("const", str(v.type), data.dtype.str, data.shape, data.tobytes())
                else:
                    k = ("input", id(v))
            else:
                k = (node.op, tuple(memo[id(i)] for i in node.inputs), node.outputs.index(v))
            memo[id(v)] = self._id(k)
            self.kept.append(v)
        return memo[id(root)]
