"""Dispatch registrations that make PyTensor objects behave as terms.

PyTensor keeps its cons/unify registrations for Variables and Ops in an
optional module (``pytensor.graph.rewriting.unify`` up to 3.0,
``pytensor.graph.rewriting.kanren`` from 3.3 on).  Importing this module
loads whichever exists, then makes ``car``/``cdr`` of a vocabulary Op its
builder and props, so ``etuples.etuplize(pt.add)`` and the bridge's terms use
the same heads and unify with each other.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from cons.core import ConsError, _car, _cdr
from etuples import etuple
from etuples.core import ExpressionTuple
from pytensor.graph.basic import Variable
from unification.core import _unify

from graph_bridge.terms import Term, node_term
from graph_bridge.vocabulary import builder_of, on_register
from logic_core.term_kinds import is_term

for _name in ("pytensor.graph.rewriting.unify", "pytensor.graph.rewriting.kanren"):
    try:
        importlib.import_module(_name)
    except ImportError:  # pragma: no cover - depends on the pytensor line
        pass

_REGISTERED: set[type] = set()


def _car_vocabulary_op(op):
    builder = builder_of(op)
    if builder is None:
        if hasattr(op, "__props__"):
            return type(op)
        raise ConsError("Not a cons pair.")
    return builder


def _cdr_vocabulary_op(op):
    builder = builder_of(op)
    props = op._props() if getattr(op, "__props__", ()) else ()
    if builder is None and not hasattr(op, "__props__"):
        raise ConsError("Not a cons pair.")
    return etuple(builder or type(op), *props, evaled_obj=op)[1:]


def register_cons(op_class: type) -> None:
    """Make car/cdr of ``op_class`` instances its builder and its props."""
    if op_class in _REGISTERED:
        return
    _REGISTERED.add(op_class)
    _car.add((op_class,), _car_vocabulary_op)
    _cdr.add((op_class,), _cdr_vocabulary_op)


#: (class_a, class_b) -> names of the props on which heads of the two classes unify
_HEAD_VIEWS: dict[tuple[type, type], tuple[str, ...]] = {}
#: the Op classes that have a head view (a compiled plan asks :func:`head_views` only for them)
VIEWED_CLASSES: set[type] = set()


def register_head_view(class_a: type, class_b: type, props: tuple[str, ...]) -> None:
    """Let application terms headed by ``class_a`` and ``class_b`` Ops unify on ``props``.

    ``register_head_view(Elemwise, ExplicitElemwise, ("scalar_op",))`` makes
    the pattern ``add(a, b)`` match ``add{x,*}(x, y)`` with ``a = x``: the
    explicit form is the same operation with its broadcasting made explicit.
    """
    _HEAD_VIEWS[(class_a, class_b)] = props
    _HEAD_VIEWS[(class_b, class_a)] = props
    VIEWED_CLASSES.update((class_a, class_b))


def head_views(u, v):
    """Both terms with their heads cut down to the shared props, or ``None``."""
    tu, tv = getattr(u, "_tuple", u), getattr(v, "_tuple", v)
    if not (tu and tv) or len(tu) != len(tv):
        return None
    hu, hv = tu[0], tv[0]
    bu = getattr(hu, "_tuple", (None,))[0] if is_term(hu) else None
    bv = getattr(hv, "_tuple", (None,))[0] if is_term(hv) else None
    cu, cv = getattr(bu, "op_class", None), getattr(bv, "op_class", None)
    if cu is None or cv is None or cu is cv:
        return None
    props = _HEAD_VIEWS.get((cu, cv))
    if props is None:
        return None
    pu = tuple(hu._tuple[1 + bu.prop_names.index(p)] for p in props)
    pv = tuple(hv._tuple[1 + bv.prop_names.index(p)] for p in props)
    return (pu, *tu[1:]), (pv, *tv[1:])


def _unify_Term(u, v, s):
    # identical sub-terms are common (shared sub-graphs): skip their walk
    if u is v:
        yield s
        return
    viewed = head_views(u, v) if _HEAD_VIEWS else None
    if viewed is not None:
        yield _unify(viewed[0], viewed[1], s)
        return
    yield _unify(getattr(u, "_tuple", u), getattr(v, "_tuple", v), s)


for _pair in ((Term, Term), (Term, ExpressionTuple), (ExpressionTuple, Term)):
    _unify.add((*_pair, Mapping), _unify_Term)
on_register(register_cons)


def _unify_Variable_ExpressionTuple(u, v, s):
    """A variable against a term: the variable's one-level view (:func:`graph_bridge.terms.node_term`),
    which names the output of a node of several outputs (a random variable's draw is its node's output 1;
    PyTensor's own registration reads every output as the node's term, so a term of a draw never
    unified with the draw itself)."""
    if u.owner is None:
        yield False
        return
    view = node_term(u)
    yield _unify(view if view is not u else etuplize_shallow(u), v, s)


def etuplize_shallow(u):
    """PyTensor's one-level etuple of ``u`` (a node outside the bridge's vocabulary)."""
    return etuple(u.owner.op, *u.owner.inputs, evaled_obj=u)


_unify.add((Variable, ExpressionTuple, Mapping), _unify_Variable_ExpressionTuple)
_unify.add((ExpressionTuple, Variable, Mapping), lambda u, v, s: _unify_Variable_ExpressionTuple(v, u, s))
