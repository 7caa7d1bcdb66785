"""Terms: PyTensor graphs as etuples, and back.

A variable computed by a vocabulary Op is the etuple
``etuple(etuple(builder, *props), *input_terms)``; a root variable, a constant,
a shared variable and the output of an opaque Op are atoms (the variable
itself).  Every sub-term keeps the variable it came from as ``evaled_obj``,
so reifying an untouched term returns the very same PyTensor objects.  An
output of a multi-output node is ``etuple(OutputOf(i), node_term)``.

Before / after::

    >>> x = pt.vector("x"); y = pt.exp(x).sum()
    >>> etuplize(y)
    e(e(Sum, Add, None, 'float64', 'float64', True), e(e(Elemwise, Exp, {}), x))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from etuples.core import ExpressionTuple, InvalidExpression, KwdPair, trampoline_eval
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op

from graph_bridge.building import call_op
from graph_bridge.traverse import bottom_up
from graph_bridge.vocabulary import builder_of, in_vocabulary
from logic_core.memo import remember, type_check
from logic_core.term_kinds import is_ground, is_term

__all__ = [
    "OutputOf",
    "Term",
    "term",
    "TermError",
    "elemwise_term",
    "etuplize",
    "node_term",
    "op_term",
    "reify",
    "term_variable",
]


#: What a term compares equal to, item by item: a tuple or an etuple (``__eq__``).
_SEQUENCES: tuple[type[Any], ...] = (tuple, ExpressionTuple)


class TermError(ValueError):
    """A term that does not describe a valid PyTensor graph."""


class Term(ExpressionTuple):
    """An etuple whose hash is cached and whose equality shortcuts on identity.

    ``ExpressionTuple`` hashes and compares by walking its whole tree, which
    is exponential on a graph with shared sub-graphs (``v = v * v + v``) and
    recursive on deep ones.  Terms of PyTensor graphs are DAGs, so the bridge
    builds them with this subclass; it is an ``ExpressionTuple`` in every other
    respect (kanren, unification and etuples treat it as one).
    """

    __slots__ = ("_hash",)

    def __init__(self, seq=None, **kwargs):
        super().__init__(seq, **kwargs)
        self._hash = None

    def __hash__(self) -> int:
        if self._hash is None:
            # post-order, iterative: every Term hashes its tuple once
            stack = [self]
            while stack:
                top = stack[-1]
                pending = [
                    a for a in top._tuple if isinstance(a, Term) and a._hash is None
                ]
                if pending:
                    stack.extend(pending)
                    continue
                stack.pop()
                if top._hash is None:
                    top._hash = hash(top._tuple)
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, (tuple, ExpressionTuple)):
            return NotImplemented
        seen: set[tuple[int, int]] = set()
        stack: list[tuple[Any, Any]] = [(self, other)]
        keep = []
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            a_seq = is_term(a)
            b_seq = is_term(b)
            if a_seq or b_seq:
                if not (isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES)):
                    return False
                key = (id(a), id(b))
                if key in seen:
                    continue
                seen.add(key)
                keep.append((a, b))
                ta = a._tuple if a_seq else a
                tb = b._tuple if b_seq else b
                if len(ta) != len(tb):
                    return False
                if (
                    isinstance(a, Term)
                    and isinstance(b, Term)
                    and a._hash is not None
                    and b._hash is not None
                    and a._hash != b._hash
                ):
                    return False
                stack.extend(zip(ta, tb))
            elif not _atoms_equal(a, b):
                return False
        return True

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    @property
    def evaled_obj(self) -> Any:
        """The value of this term: its head called on its evaluated arguments (cached).

        Evaluated iteratively, children first (deep terms do not recurse);
        terms with keyword pairs, and plain etuples inside, evaluate the way
        ``etuples`` does.
        """
        null = self.null
        if self._evaled_obj is not null:
            return self._evaled_obj
        stack = [self]
        while stack:
            t = stack[-1]
            if t._evaled_obj is not null:
                stack.pop()
                continue
            # one pass: the values of evaluated Term children and atoms; the
            # children still to evaluate; anything else takes the general step
            values: list = []
            waiting = []
            special = False
            for a in t._tuple:
                cls = type(a)
                if cls is Term:
                    v = a._evaled_obj
                    if v is null:
                        waiting.append(a)
                    values.append(v)
                    continue
                if _special(a):
                    special = True
                    break
                values.append(a)
            if special:
                _general_step(t, stack)
                continue
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            op = values[0]
            if not callable(op):
                raise InvalidExpression("ExpressionTuple does not have a callable operator.")
            t._evaled_obj = call_op(op, values[1:])
        return self._evaled_obj

    def _eval_step(self):
        # ``ExpressionTuple._eval_step`` calls ``inspect.signature`` on every
        # head to bind keyword pairs; terms have none, so call the head.
        if self._evaled_obj is not self.null:
            yield self._evaled_obj
            return
        if any(isinstance(a, KwdPair) for a in self._tuple):
            yield (yield super()._eval_step())
            return
        op = self._tuple[0]
        if isinstance(op, ExpressionTuple):
            op = yield op._eval_step()
        if not callable(op):
            raise InvalidExpression("ExpressionTuple does not have a callable operator.")
        args = []
        for a in self._tuple[1:]:
            if isinstance(a, ExpressionTuple):
                a = yield a._eval_step()
            args.append(a)
        self._evaled_obj = op(*args)
        yield self._evaled_obj


_special = type_check(
    (KwdPair, ExpressionTuple),
    "An argument :attr:`Term.evaled_obj` leaves to :func:`_general_step`: a ``KwdPair`` or another etuple.",
)


def _general_step(t: Term, stack: list) -> None:
    """One step of :attr:`Term.evaled_obj` on ``t`` (top of ``stack``), for any kind of arguments.

    Pushes ``t``'s Term children still to evaluate; otherwise pops ``t``
    and evaluates it (keyword pairs the way ``etuples`` does; plain etuple
    arguments by their own ``evaled_obj``).
    """
    null = t.null
    items = t._tuple
    waiting = [a for a in items if type(a) is Term and a._evaled_obj is null]
    if waiting:
        stack.extend(waiting)
        return
    stack.pop()
    if any(isinstance(a, KwdPair) for a in items):
        t._evaled_obj = trampoline_eval(t._eval_step())
        return
    values = [a.evaled_obj if is_term(a) else a for a in items]
    op = values[0]
    if not callable(op):
        raise InvalidExpression("ExpressionTuple does not have a callable operator.")
    t._evaled_obj = call_op(op, values[1:])


def _atoms_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


_new = object.__new__


#: the value of a term not evaluated yet (etuples' marker)
_NULL = ExpressionTuple.null


def term(*args: Any, evaled_obj: Any = ExpressionTuple.null) -> Term:
    """Build a term (the bridge's ``etuple``): ``term(head, *args)``.

    ``Term(args, evaled_obj=...)`` made directly: ``ExpressionTuple``'s
    ``__new__`` and ``__init__`` handle keyword pairs and a term given as the
    sequence, neither of which a tuple of arguments holds, and are most of
    the cost of a small term.
    """
    t = _new(Term)
    t._tuple = args
    t._evaled_obj = evaled_obj
    t._parent = None
    t._hash = None
    return t


@dataclass(frozen=True)
class OutputOf:
    """Head that picks output ``index`` of a multi-output node term."""

    index: int

    def __call__(self, outputs):
        return outputs[self.index]

    def __repr__(self) -> str:
        return f"OutputOf({self.index})"


#: ``id(op) -> (op, its term)``, bounded; the entry keeps the Op alive, so its id is not reused
_OP_TERMS_BY_ID: dict[int, tuple[Op, Any]] = {}


def op_term(op: Op) -> ExpressionTuple | Op:
    """``term(builder, *props)`` for a vocabulary Op, else the Op itself (remembered per Op object).

    Equal Ops of different objects get equal terms (they unify alike);
    building one costs less than hashing the Op's props to share it.
    """
    hit = _OP_TERMS_BY_ID.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    builder = builder_of(op)
    if builder is None:
        t = op
    else:
        if builder.prop_names:
            get = _PROPS_GETTERS.get(type(op))
            if get is None:
                get = _PROPS_GETTERS[type(op)] = _props_getter(type(op))
            props = get(op)
        else:
            props = ()
        t = term(builder, *props, evaled_obj=op)
    remember(_OP_TERMS_BY_ID, id(op), (op, t))
    return t


#: Op class -> what its ``_props`` computes, as a C-level attribute getter where it can be
_PROPS_GETTERS: dict[type, Callable[[Op], tuple]] = {}
#: the name PyTensor's ``MetaType`` gives the ``_props`` it writes for a class with ``__props__``
_GENERATED_PROPS = "MetaType.__new__.<locals>._props"


def _props_getter(cls: type) -> Callable[[Op], tuple]:
    """``cls._props``: the tuple of the ``__props__`` attributes; an ``attrgetter`` when PyTensor wrote it."""
    names = getattr(cls, "__props__", ())
    props = getattr(cls, "_props")  # made by PyTensor's MetaType for a class with __props__
    if getattr(props, "__qualname__", None) != _GENERATED_PROPS or not names:
        return props
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda op: (one(op),)
    return attrgetter(*names)


_ELEMWISE_TERMS: dict[Any, Any] = {}


def elemwise_term(scalar_op: Any) -> Any:
    """``op_term(Elemwise(scalar_op))``, remembered per scalar op (building an Elemwise is slow)."""
    t = _ELEMWISE_TERMS.get(scalar_op)
    if t is None:
        from pytensor.tensor.elemwise import Elemwise

        t = remember(_ELEMWISE_TERMS, scalar_op, op_term(Elemwise(scalar_op)))
    return t


def _output_term(var: Variable, input_terms: Iterable[Any], node_terms: dict[Apply, Any]) -> Any:
    node = var.owner
    head = op_term(node.op)
    if len(node.outputs) == 1:
        return term(head, *input_terms, evaled_obj=var)
    node_t = node_terms.get(node)
    if node_t is None:
        node_t = term(head, *input_terms, evaled_obj=list(node.outputs))
        node_terms[node] = node_t
    return term(OutputOf(node.outputs.index(var)), node_t, evaled_obj=var)


def node_term(var: Variable) -> Any:
    """A one-level view of ``var``: its head term over its raw input variables.

    Unification expands the input variables on demand, so a relation sees as
    deep as its pattern asks and no deeper.  Atoms are returned as they are.
    """
    node = var.owner
    if node is None or not in_vocabulary(node.op):
        return var
    return _output_term(var, node.inputs, {})


def _term_inputs(v: Variable) -> Any:
    """What a term looks inside: the inputs of a vocabulary node (other nodes are atoms)."""
    node = v.owner
    return node.inputs if node is not None and in_vocabulary(node.op) else ()


def etuplize(x: Any) -> Any:
    """Turn a PyTensor variable (or Op) into a term, converting each node once.

    Shared sub-graphs become shared sub-terms; the walk is iterative, so deep
    graphs do not hit Python's recursion limit.
    """
    if isinstance(x, ExpressionTuple):
        return x
    if isinstance(x, Op):
        return op_term(x)
    if not isinstance(x, Variable):
        raise TypeError(
            f"etuplize: x must be a PyTensor Variable or Op, got {type(x).__name__}"
        )
    memo: dict[Variable, Any] = {}  # (a Variable hashes by identity)
    node_terms: dict[Apply, Any] = {}
    for v in bottom_up([x], memo.__contains__, _term_inputs):
        node = v.owner
        if node is None or not in_vocabulary(node.op):
            memo[v] = v
        else:
            memo[v] = _output_term(v, [memo[i] for i in node.inputs], node_terms)
    return memo[x]


is_variable = type_check(Variable, "``isinstance(x, Variable)``, the answer cached per type (the ABC check is slow).")


def reify(term: Any) -> Variable:
    """Turn a term back into a PyTensor variable.

    Untouched sub-terms give back the original objects; new sub-terms are
    built with their builders and ``Op.__call__``.  Raises :class:`TermError`
    when the term holds logic variables or describes an invalid graph.
    """
    if is_variable(term):
        return term
    if type(term) is Term and is_variable(term._evaled_obj):
        return term._evaled_obj  # evaluated already (so ground)
    if not isinstance(term, ExpressionTuple):
        raise TypeError(
            f"reify: term must be an etuple or a PyTensor Variable, got {type(term).__name__}"
        )
    if not is_ground(term):
        raise TermError(f"reify: term holds logic variables: {term}")
    try:
        out = term.evaled_obj
    except Exception as exc:
        raise TermError(f"reify: cannot build {term}: {exc}") from exc
    if not isinstance(out, Variable):
        raise TermError(f"reify: {term} evaluates to {type(out).__name__}, not a Variable")
    return out


def term_variable(term: Any) -> Variable | None:
    """The variable a ground term stands for, or ``None`` if it has none."""
    if type(term) is Term:
        out = term._evaled_obj
        if out is not _NULL:  # evaluated already (so ground)
            return out if is_variable(out) else None
    elif is_variable(term):
        return term
    if is_term(term) and is_ground(term):
        try:
            out = term.evaled_obj
        except Exception:
            return None
        return out if is_variable(out) else None
    return None
