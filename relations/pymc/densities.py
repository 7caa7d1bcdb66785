"""PyMC's log-density modulo the rules: :func:`logp` derives equivalent spellings, and cross-checks them.

PyMC derives a density only where a graph matches one of its measurable
rewrites: ``pm.logp(2 * x, v)`` derives, ``pm.logp(x + x, v)`` fails with
"Logprob method not implemented for Add" (pymc #6371, #6398, #6360, #7553,
#8363; aeppl #177: "those types of graphs are equivalent for the purpose of
logprobs").  :func:`logp` has ``pm.logp``'s signature.  Stock derivation
runs first, at no extra cost where it works; where it fails, the graph is
saturated with the ``measurable`` rule set
(:data:`relations.rules.measurable.MEASURABLE_RULES`) and stock derivation
is tried on the e-graph's forms, the cheapest first, within
:data:`FORMS` forms and :data:`SECONDS` seconds.  The first form that
derives gives the density; where a second one derives too, both densities
are evaluated at draws of the variable and must agree
(:class:`DensityMismatch` names both forms otherwise).  Where nothing
derives, :class:`NotDerivable` lists the forms tried (pymc #6691).

Valued variables are respected (pymc #6917): in :func:`conditional_logp`
every valued variable other than the one derived is a leaf of its e-graph
(a placeholder of its type), so no rewrite moves or merges across it; a
variable rewritten is rebuilt over the rewritten forms of the valued
variables it reads.

:func:`install` makes ``pm.logp``, a model's logp (``model.logp()``, through
``pymc.logprob.basic.conditional_logp``) and ``pm.CustomDist(dist=...)``
go through these; :func:`uninstall` restores PyMC's own functions exactly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pymc
import pymc.logprob as _logprob_package
import pymc.logprob.basic as _basic_module
import pytensor
import pytensor.tensor as pt
from pymc.distributions.distribution import SymbolicRandomVariable
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.replace import clone_replace, graph_replace
from pytensor.graph.traversal import ancestors, graph_inputs, toposort
from pytensor.scalar.basic import Add, Clip, Maximum, Minimum, Neg, Sub, Switch
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.random.op import RandomVariable

from graph_bridge.structural_keys import StructuralKeys
from relations.pymc.iid import merge_iid_draws
from relations.pymc.mass import MASS_TOLERANCE, total_mass
from relations.queries.why_not import why_not_in
from relations.rules.measurable import MEASURABLE_RULES
from relations.saturation.egraph import Limits, saturate
from relations.saturation.foreign import RewriterSpec, resolve_rewriters

__all__ = [
    "CHECK_DRAWS",
    "DensityMismatch",
    "FORMS",
    "NotDerivable",
    "TransformedCensoring",
    "SECONDS",
    "STOCK",
    "STOCK_FAILURES",
    "conditional_logp",
    "cross_check",
    "describe",
    "BroadcastRandomVariable",
    "broadcast_random",
    "broken_density",
    "censored_points",
    "density_mass",
    "derivable_forms",
    "why_not_measurable",
    "install",
    "installed",
    "switches_random",
    "transforms_censoring",
    "logp",
    "uninstall",
]

log = logging.getLogger("relations.pymc")

#: Forms of the e-graph tried, the cheapest first, before :class:`NotDerivable`.
FORMS = 24
#: Seconds of saturation and derivation attempts, per variable.
SECONDS = 5.0
#: Draws of the variable at which two derived densities are compared.
CHECK_DRAWS = 16
#: Draws of a scalar variable that locate its point masses and its range for ``check=True``'s total.
MASS_DRAWS = 400
#: The e-graph's bounds (forward saturation of the measurable rules).
LIMITS = Limits(nodes=4000, iterations=8, seconds=2.0, growth=None)
#: What a stock derivation that could not match raises ("Logprob method not implemented for Add",
#: "could not be derived"; NotImplementedError is a RuntimeError): only these send a graph to the rules,
#: so any other error (a value of the wrong type, ...) is PyMC's own, unchanged.
STOCK_FAILURES = (RuntimeError,)
#: What an attempt on one of the e-graph's forms may raise and still leave the next form to try.
DERIVATION_ERRORS = (RuntimeError, ValueError, TypeError)

#: PyMC's own functions, read when this module is imported (before any :func:`install`).
STOCK = {"logp": _basic_module.logp, "conditional_logp": _basic_module.conditional_logp}
_PATCHES: list[tuple[Any, str, Any]] = []  # (module, attribute, the object it held)


class NotDerivable(NotImplementedError):
    """No form of the graph derives: the message lists the forms tried and why each failed (pymc #6691)."""


class BroadcastRandomVariable(NotDerivable):
    """A random variable broadcast along a dimension of the graph: its entries there are equal, so the
    graph has no density on the value's space (stock PyMC sums independent terms: a wrong density)."""


def broadcast_random(var: Variable) -> str | None:
    """Where ``var`` broadcasts a random variable along one of its dimensions (an Elemwise input that
    reads a random variable and is broadcast where the output is not, or a factor of an outer product
    -- a ``dot`` over a dimension of length 1 -- that reads one), or ``None``.

    Read off the types (of the graph PyMC derives from: ``CustomDist(dist=...)`` inlined): an input
    broadcast along a dimension (length 1, or missing on the left) where the output's length is not
    known to be 1.  An explicit ``alloc`` / ``broadcast_to`` of a random variable is not one: PyMC
    derives its density on the line of equal entries (pymc #6808).
    """
    order = list(toposort([_inlined(var)]))
    reads = _random_readers(order)
    for node in order:
        out = node.outputs[0]
        if getattr(out.type, "ndim", 0) == 0:
            continue
        if _is_dot(node):
            found = _outer_factor(node, reads)
            if found is not None:
                return found
            continue
        if not isinstance(node.op, Elemwise):
            continue
        for i in node.inputs:
            if i not in reads:
                continue
            pad = out.type.ndim - i.type.ndim
            for d, out_b in enumerate(out.type.broadcastable):
                in_b = True if d < pad else i.type.broadcastable[d - pad]
                if in_b and not out_b:
                    return f"{describe(i)} is broadcast along dimension {d} of {describe(out)}"
    return None


def _is_dot(node: Any) -> bool:
    op = node.op
    core = getattr(op, "core_op", op)
    return type(core).__name__ in ("Dot", "Dot22") and len(node.inputs) == 2 and node.inputs[0].type.ndim == 2


def _outer_factor(node: Any, reads: set[Variable]) -> str | None:
    """A matrix product over a contracted dimension of length 1 is an outer product: each factor is
    repeated along the other's free dimension (where its length is not 1)."""
    a, b = node.inputs
    if a.type.ndim != 2 or b.type.ndim != 2 or a.type.shape[1] != 1:
        return None
    out = node.outputs[0]
    for factor, d, other in ((a, 1, b.type.shape[1]), (b, 0, a.type.shape[0])):
        if factor in reads and other != 1:
            return f"{describe(factor)} is repeated along dimension {d} of {describe(out)} (an outer product)"
    return None


class TransformedCensoring(NotDerivable):
    """PyMC derives a density for a transform of a censored variable (wrong at the censored points: the
    transform's Jacobian is added to a probability mass, pymc #8363) and no form with the censoring
    outermost derives to give the right one."""


class DensityMismatch(ValueError):
    """Two forms of one graph derive densities that differ at a draw: PyMC derived one wrongly."""


def describe(var: Variable, depth: int = 6) -> str:
    """A one-line formula of ``var`` (Ops and their inputs, ``depth`` levels; RVs by their Op's name)."""
    node = var.owner
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        return str(data.item()) if data.size == 1 else f"const{data.shape}"
    if node is None:
        return var.name or f"<{var.type}>"
    op = node.op
    if isinstance(op, RandomVariable | SymbolicRandomVariable):
        return var.name or getattr(op, "name", None) or type(op).__name__
    name = str(op.scalar_op) if isinstance(op, Elemwise) else str(op)
    if depth == 0:
        return f"{name}(...)"
    args = [describe(i, depth - 1) for i in node.inputs if not isinstance(i, SharedVariable)]
    return f"{name}({', '.join(args)})"


def _inlined(var: Variable) -> Variable:
    """``var`` with every SymbolicRandomVariable PyMC inlines for its logp (``CustomDist(dist=...)``)
    replaced by its inner graph, so the rules see the graph PyMC derives from."""
    replace = {}
    for node in toposort([var]):
        op = node.op
        if isinstance(op, SymbolicRandomVariable) and getattr(op, "inline_logprob", False):
            outs = op.fgraph.bind(node.inputs)
            replace.update({o: n for o, n in zip(node.outputs, outs) if o.type == n.type})
    if not replace:
        return var
    return graph_replace(var, replace, strict=False)


def derivable_forms(
    var: Variable,
    value: Variable,
    want: int = 2,
    forms: int | None = None,
    seconds: float | None = None,
    rewriters: RewriterSpec = (),
    accept: Callable[[Variable], bool] | None = None,
    **kwargs: Any,
) -> tuple[list[tuple[Variable, Variable]], list[tuple[str, str]]]:
    """Forms of ``var`` (other than ``var`` itself) whose stock logp derives: ``(form, logp)`` pairs,
    at most ``want``, and the forms tried that did not derive, as ``(formula, error)``.

    The graph is saturated forward with :data:`MEASURABLE_RULES` within :data:`LIMITS`; the
    e-graph's forms come cheapest first, at most ``forms`` (default :data:`FORMS`), within
    ``seconds`` (default :data:`SECONDS`).  Random variables and other leaves stay themselves.
    ``rewriters``: PyTensor node rewriters run on the e-nodes too (``saturate``'s ``rewriters=``,
    an optdb name such as ``"canonicalize"``); none by default, as stock derivation runs PyMC's
    own canonicalization on every form it is given.  ``accept``: only forms it is true of are tried.
    """
    forms = FORMS if forms is None else forms
    deadline = time.perf_counter() + (SECONDS if seconds is None else seconds)
    graph = _inlined(var)
    egraph = saturate(graph, rules=MEASURABLE_RULES, backward=False, limits=LIMITS, rewriters=rewriters)
    keys = StructuralKeys()
    given = keys.key(var)
    derived: list[tuple[Variable, Variable]] = []
    failed: list[tuple[str, str]] = []
    for form in egraph.forms(limit=forms):
        if time.perf_counter() > deadline or len(derived) >= want:
            break
        if keys.key(form) == given or (accept is not None and not accept(form)):
            continue
        try:
            lp = _stock_logp(form, value, **kwargs)
        except DERIVATION_ERRORS as err:
            failed.append((describe(form), f"{type(err).__name__}: {_first_line(err)[:120]}"))
            continue
        broken = broken_density(form, value, lp)
        if broken is not None:  # never returned: the next form is tried, or NotDerivable names it
            failed.append((describe(form), f"derived, but its density {broken}"))
            continue
        derived.append((form, lp))
    log.info("measurable forms of %s: %d derive, %d fail", describe(var), len(derived), len(failed))
    return derived, failed


def _first_line(err: BaseException) -> str:
    """The first line of an error's message (an error may carry none: its type's name then)."""
    lines = str(err).splitlines()
    return lines[0] if lines and lines[0] else type(err).__name__


def _stock_logp(var: Variable, value: Variable, **kwargs: Any) -> Variable:
    kwargs.setdefault("warn_rvs", False)
    return STOCK["logp"](var, value, **kwargs)


def transforms_censoring(var: Variable) -> bool:
    """Whether ``var`` transforms a censored random variable with a Jacobian term (a scaling, an exp, a
    square root): stock derivation adds that term at the censored points too, a wrong value (pymc
    #8363).  A censoring is a ``clip``, ``maximum`` or ``minimum`` of a random variable and a bound
    that is not random, or a ``switch`` with a branch that is not random (a point mass); a shift or a
    negation (Add, Sub, Neg) has no Jacobian term."""
    censored: set[Variable] = set()
    for node in toposort([_inlined(var)]):  # pm.Censored is a clip inside
        if not isinstance(node.op, Elemwise):
            continue
        if _censoring_bounds(node):
            censored.update(node.outputs)
            continue
        if any(i in censored for i in node.inputs):
            if not isinstance(node.op.scalar_op, Add | Sub | Neg):
                return True
            censored.update(node.outputs)
    return False


def _censoring_bounds(node: Any) -> list[Variable]:
    """The bounds of a censoring node: the inputs that read no random variable of a ``clip``, ``maximum``
    or ``minimum`` (the branches of a ``switch``) whose other inputs do read one; empty for any other
    node (all inputs random, or none: no point mass)."""
    op = getattr(node.op, "scalar_op", None)
    if not isinstance(op, Clip | Maximum | Minimum | Switch):
        return []
    values = node.inputs[1:] if isinstance(op, Switch) else node.inputs
    bounds = [b for b in values if not _random(b)]
    return bounds if 0 < len(bounds) < len(values) else []


def switches_random(var: Variable) -> bool:
    """Whether ``var`` holds a switch whose two branches both read a random variable (PyMC derives some
    such switches -- ``where(x >= 0, x, -x)`` -- into densities that raise at every point, pymc #8049):
    only then is stock's density evaluated at draws before it is returned."""
    for node in toposort([_inlined(var)]):
        if isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, Switch):
            if all(_random(i) for i in node.inputs[1:]):
                return True
    return False


def _random(v: Variable) -> bool:
    random = (RandomVariable, SymbolicRandomVariable)
    return any(a.owner is not None and isinstance(a.owner.op, random) for a in ancestors([v]))


def logp(
    var: Variable,
    value: Any,
    warn_rvs: bool = True,
    *,
    check: bool | None = None,
    rewriters: RewriterSpec = (),
    **kwargs: Any,
) -> Variable:
    """The log-density of ``var`` at ``value``: ``pm.logp``'s, derived from an equal form where stock fails.

    ``check``: ``True`` compares the densities of two derived forms (stock's included) at
    :data:`CHECK_DRAWS` draws, and for a scalar variable checks that the density integrates to one
    (point masses included, :func:`relations.pymc.mass.total_mass`), raising
    :class:`DensityMismatch` where either fails; ``None``
    (default) does so where stock fails and a second form derives, and where ``var`` transforms a
    censored variable (stock PyMC's Jacobian at the censored points); ``False`` never.
    ``rewriters``: PyTensor node rewriters for the e-graph too (:func:`derivable_forms`).
    Other keywords go to ``pm.logp``.  :class:`NotDerivable` lists the forms tried.

    Before/After (``x = pm.Normal.dist()``)::

        logp(x + x, v)   ->   pm.logp(x * 2, v)
    """
    if not isinstance(var, Variable):
        raise TypeError(f"var must be a PyTensor Variable, got {type(var).__name__}")
    if check not in (None, True, False):
        raise TypeError(f"check must be True, False or None, got {check!r}")
    if not isinstance(value, Variable):
        value = pt.as_tensor_variable(value, dtype=var.type.dtype)
    spread = broadcast_random(var)
    refusal = None if spread is None else BroadcastRandomVariable(
        f"the logp of {describe(var)} has no density on its value's space: {spread}, so the value's "
        f"entries along it are equal; take the logp of the random variable before it is broadcast"
    )
    try:
        stock = STOCK["logp"](var, value, warn_rvs=warn_rvs, **kwargs)
    except STOCK_FAILURES as err:
        if refusal is not None:  # PyMC refuses it too: its own error, and no form is derived over the broadcast
            raise
        return _derived_logp(var, value, err, check, rewriters, **kwargs)
    except ValueError as err:  # PyMC's shapes do not fit the broadcast: say why
        if refusal is None:
            raise
        raise refusal from err
    if refusal is not None:  # PyMC sums independent terms over the broadcast dimension: not returned
        raise refusal
    broken = broken_density(var, value, stock) if check is not False and switches_random(var) else None
    if broken is not None:  # a switch of two readers of one variable: PyMC's density may raise where it is read
        return _derived_logp(var, value, NotImplementedError(f"PyMC's density {broken}"), check, rewriters, **kwargs)
    if check is not False and transforms_censoring(var):
        safe = _censored_outermost(var, value, rewriters, **kwargs)
        cross_check(var, value, [(var, stock), safe], at=censored_points(safe[0]))
    elif check:
        derived, _ = derivable_forms(var, value, want=1, rewriters=rewriters, **kwargs)
        for other in derived:
            cross_check(var, value, [(var, stock), other])
    if check:
        _check_mass(var, value, stock)
    return stock


def _check_mass(var: Variable, value: Variable, lp: Variable) -> None:
    """Raise :class:`DensityMismatch` where the density ``lp`` of a scalar ``var`` does not integrate to
    one (point masses included, :func:`relations.pymc.mass.total_mass`)."""
    found = density_mass(var, value, lp)
    if found is not None and abs(found - 1.0) > MASS_TOLERANCE:
        raise DensityMismatch(
            f"the density derived for {describe(var)} integrates to {found:.6g}, not 1 (point masses "
            f"included): it is not the density of the variable"
        )


def density_mass(var: Variable, value: Variable, lp: Variable) -> float | None:
    """The total probability of ``lp`` over a scalar ``var``'s values (its other inputs at one drawn
    point), or ``None`` where it is not checked (a tensor variable, a constant value, no draws)."""
    if var.type.ndim != 0 or isinstance(value, Constant):
        return None
    found = _drawn_point(var, value, [lp], MASS_DRAWS)
    if found is None:
        return None
    others, point, values = found
    fn = pytensor.function([value, *others], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    args = [point[v] for v in others]
    dtype = value.type.dtype

    def logp_at(t: float) -> float:
        try:
            return float(fn(np.asarray(t, dtype=dtype), *args))
        except Exception:  # noqa: BLE001 - a value the density's own checks refuse has no mass
            return -np.inf

    return total_mass(logp_at, np.array(values), discrete=not dtype.startswith("float"))


def _censored_outermost(
    var: Variable, value: Variable, rewriters: RewriterSpec, **kwargs: Any
) -> tuple[Variable, Variable]:
    """The first derivable form of ``var`` with no Jacobian-bearing transform of a censored variable
    (its density is right by construction), or :class:`TransformedCensoring`."""
    derived, failed = derivable_forms(
        var, value, want=1, rewriters=rewriters, accept=lambda form: not transforms_censoring(form), **kwargs
    )
    if not derived:
        raise TransformedCensoring(
            f"the logp of {describe(var)} transforms a censored variable: PyMC's derivation adds the "
            f"transform's Jacobian at the censored points too (a wrong value, pymc #8363), and none of the "
            f"{len(failed)} equivalent forms tried has the censoring outermost and derives (the transform "
            f"is not monotone on the variable's known range); logp(..., check=False) takes PyMC's value"
        )
    return derived[0]


def _derived_logp(
    var: Variable, value: Variable, err: Exception, check: bool | None, rewriters: RewriterSpec, **kwargs: Any
) -> Variable:
    derived, failed = derivable_forms(var, value, want=1 if check is False else 2, rewriters=rewriters, **kwargs)
    merged = merge_iid_draws(_inlined(var)) if not derived else var
    if merged is not var:  # iid scalar draws as one vector draw: the same joint distribution
        derived, more = derivable_forms(merged, value, want=1 if check is False else 2, rewriters=rewriters, **kwargs)
        failed += more
    if not derived:
        tried = "\n".join(f"  {f}: {e}" for f, e in failed) or "  (the rules give no other form)"
        raise NotDerivable(
            f"the logp of {describe(var)} could not be derived ({type(err).__name__}: "
            f"{_first_line(err)}), nor from any of its {len(failed)} equivalent forms tried "
            f"(relations.rules.measurable):\n{tried}\n{why_not_measurable(var)}"
        ) from err
    at: list[Variable] = []
    if check is not False and transforms_censoring(var):
        # the censored form is right by construction: it first, checked against the others like it
        # (a form with the transform outside derives PyMC's wrong Jacobian: no check of anything)
        safe = _censored_outermost(var, value, rewriters, **kwargs)
        derived = [safe, *(d for d in derived if d[0] is not safe[0] and not transforms_censoring(d[0]))]
        at = censored_points(safe[0])
    if check is not False:
        for other in derived[1:]:
            cross_check(var, value, [derived[0], other], at=at)
    if check:
        _check_mass(var, value, derived[0][1])
    return derived[0][1]


def _random_readers(order: Sequence[Any]) -> set[Variable]:
    """The variables of the nodes ``order`` (a topological order) that read a random variable."""
    reads: set[Variable] = set()
    for node in order:
        if isinstance(node.op, RandomVariable) or any(i in reads for i in node.inputs):
            reads.update(node.outputs)
    return reads


def _random_inputs(node: Any) -> int:
    """How many of ``node``'s inputs read a random variable."""
    reads = _random_readers(list(toposort(node.inputs)))
    return sum(1 for i in node.inputs if i in reads)


def why_not_measurable(var: Variable, n: int = 4) -> str:
    """PyMC's measurable rewriters that were tried on the forms of ``var`` (the e-graph of the measurable
    rules), each at the class where it came closest, with what it lacked (``relations.why_not``; pymc #6691)."""
    from pymc.logprob.rewriting import measurable_ir_rewrites_db

    egraph = saturate(_inlined(var), rules=MEASURABLE_RULES, backward=False, limits=LIMITS)
    classes = egraph.classes()
    attempts = []
    for fr in resolve_rewriters(measurable_ir_rewrites_db):
        attempts += [(fr.name, a) for a in why_not_in(egraph, fr, closest=1, classes=classes).closest]
    attempts.sort(key=lambda na: (na[1].matched / na[1].size, na[1].missing is None), reverse=True)
    lines = ["PyMC's measurable rewriters where they came closest:"]
    for name, a in attempts[:n]:
        node = classes[a.root][0].var.owner
        inputs = f" ({_random_inputs(node)} of its inputs read a random variable)" if node is not None else ""
        lines.append(f"  {name} at {a}{inputs}".replace("\n", "\n    "))
    return "\n".join(lines) if attempts else "no measurable rewriter of PyMC tracks an Op of any form"


def _free_inputs(graphs: Sequence[Variable]) -> list[Variable]:
    return [v for v in graph_inputs(graphs) if not isinstance(v, Constant | SharedVariable) and v.owner is None]


def _fill(v: Variable, rng: np.random.Generator) -> np.ndarray:
    shape = tuple(2 if s is None else s for s in v.type.shape)
    if v.type.dtype.startswith(("int", "uint")):
        return rng.integers(0, 2, size=shape).astype(v.type.dtype)
    if v.type.dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.uniform(0.5, 1.5, size=shape).astype(v.type.dtype)


def censored_points(form: Variable) -> list[Variable]:
    """The values of ``form`` at its point masses: where its outermost censoring (below shifts and
    negations only) takes one of its bounds, as graphs of the other inputs (empty where ``form`` has
    no such censoring).  Draws of a variable reach a small mass seldom; these reach it always."""
    v = form
    while v.owner is not None and isinstance(v.owner.op, Elemwise):
        op = v.owner.op.scalar_op
        if isinstance(op, Clip | Maximum | Minimum | Switch):
            at = pt.as_tensor_variable(v)
            points: list[Variable] = []
            for b in _censoring_bounds(v.owner):
                held: dict[Variable, Variable] = {v: pt.broadcast_to(pt.cast(b, at.dtype), at.shape)}
                points.append(graph_replace(form, held, strict=False))
            return points
        random = [i for i in v.owner.inputs if _random(i)]
        if not isinstance(op, Add | Sub | Neg) or len(random) != 1:
            return []
        v = random[0]
    return []


def cross_check(
    var: Variable,
    value: Variable,
    derived: Sequence[tuple[Variable, Variable]],
    draws: int | None = None,
    at: Sequence[Variable] = (),
) -> None:
    """Raise :class:`DensityMismatch` where the densities of the first two ``(form, logp)`` pairs
    differ at draws of ``var`` and at the values ``at`` (graphs of the other inputs: the censored
    points, :func:`censored_points`), the other inputs drawn once, positive; a point that neither can
    evaluate is skipped."""
    (f1, lp1), (f2, lp2) = derived[:2]
    found = _drawn_point(var, value, [lp1, lp2, *at], CHECK_DRAWS if draws is None else draws)
    if found is None:
        return
    others, point, values = found
    if at and not isinstance(value, Constant):
        try:
            fixed = pytensor.function(others, list(at), mode="FAST_COMPILE", on_unused_input="ignore")
            values = [np.asarray(p, dtype=value.type.dtype) for p in fixed(*[point[v] for v in others])] + values
        except Exception:  # noqa: BLE001 - a bound the drawn point does not fit: the draws alone
            pass
    given = [] if isinstance(value, Constant) else [value]
    ins = [*given, *others]
    fns = [pytensor.function(ins, lp, mode="FAST_COMPILE", on_unused_input="ignore") for lp in (lp1, lp2)]
    for val in values:
        args = [val][: len(given)] + [point[v] for v in others]
        try:
            a, b = (np.asarray(fn(*args)) for fn in fns)
        except Exception:  # noqa: BLE001 - a point outside both densities' domain says nothing
            continue
        if not np.allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True):
            raise DensityMismatch(
                f"two forms of {describe(var)} derive different densities at value {val!r}: "
                f"{describe(f1)} gives {a!r}, {describe(f2)} gives {b!r} (PyMC derived one of them "
                f"wrongly; a transform of a censored variable takes a Jacobian term at the censored point)"
            )


def broken_density(var: Variable, value: Variable, lp: Variable, draws: int = 4) -> str | None:
    """Why the density ``lp`` of ``var`` is wrong where ``var`` has support, or ``None``: evaluated at
    ``draws`` draws of ``var`` (each in its support), none of its own checks may fail (PyMC's
    ``ParameterValueError``) and it must be finite.  A ``value`` given as a constant (maybe outside the
    support), a graph that cannot be drawn, and a point the other inputs' drawn values do not fit (a
    shape error) are not checked."""
    if isinstance(value, Constant):
        return None
    found = _drawn_point(var, value, [lp], draws)
    if found is None:
        return None
    others, point, values = found
    from pymc.logprob.utils import ParameterValueError

    fn = pytensor.function([value, *others], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    for val in values:
        try:
            out = np.asarray(fn(val, *[point[v] for v in others]))
        except ParameterValueError as err:  # a check of the density's own failing: the reason it is refused
            return f"raises {type(err).__name__} at a draw ({_first_line(err)[:80]})"
        except Exception:  # noqa: BLE001 - the point drawn for the other inputs does not fit: no verdict there
            continue
        if not np.all(np.isfinite(out)):
            return f"is {out.ravel()[~np.isfinite(out.ravel())][0]} at a draw {val!r}, where the variable has support"
    return None


def _drawn_point(
    var: Variable, value: Variable, densities: Sequence[Variable], draws: int
) -> tuple[list[Variable], dict, list[np.ndarray]] | None:
    """The free inputs of ``var`` and ``densities`` other than ``value``, a point for them (drawn once,
    positive), and draws of ``var`` at it (:func:`_values_at`); ``None`` where nothing can be drawn."""
    rng = np.random.default_rng(0)
    others = [v for v in _free_inputs([var, *densities]) if v is not value]
    point = {v: _fill(v, rng) for v in others}
    values = _values_at(var, value, point, draws)
    return None if values is None else (others, point, values)


def _values_at(var: Variable, value: Variable, point: dict, draws: int) -> list[np.ndarray] | None:
    """Draws of ``var`` with its other inputs at ``point`` (or the constant ``value`` itself)."""
    if isinstance(value, Constant):
        return [np.asarray(value.data)]
    if value.owner is not None:
        return None
    try:  # a point whose shapes the graph does not fit, or a graph that cannot be drawn: no draw
        fixed = clone_replace(var, {v: pt.constant(x) for v, x in point.items() if v in set(graph_inputs([var]))})
        drawn = pymc.draw(fixed, draws=draws, random_seed=1, mode="FAST_COMPILE")
    except Exception:  # noqa: BLE001 - a graph that cannot be drawn is compared at no point
        return None
    return [np.asarray(d, dtype=value.type.dtype) for d in drawn]


def conditional_logp(
    rv_values: dict, warn_rvs: bool = True, ir_rewriter: Any = None, extra_rewrites: Any = None, **kwargs: Any
) -> dict:
    """``pymc.logprob.conditional_logp``, with a variable stock cannot derive replaced by an equal form.

    Stock first; where it fails, each valued variable whose own logp (the other valued variables
    held as placeholder leaves, so no rewrite crosses them: pymc #6917) does not derive is
    replaced by a form that does (:func:`derivable_forms`), the variables after it rebuilt over
    the replacements, and stock runs again on the same value variables.
    """
    stock = STOCK["conditional_logp"]
    try:
        return stock(rv_values, warn_rvs=warn_rvs, ir_rewriter=ir_rewriter, extra_rewrites=extra_rewrites, **kwargs)
    except STOCK_FAILURES as err:
        replaced = _rewritten_rv_values(rv_values, err)
    return stock(replaced, warn_rvs=warn_rvs, ir_rewriter=ir_rewriter, extra_rewrites=extra_rewrites, **kwargs)


def _rewritten_rv_values(rv_values: dict, err: Exception) -> dict:
    """``rv_values`` with each variable that does not derive given the others replaced by a form that does."""
    rvs = list(rv_values)
    order = [v for v in _topological(rvs)]
    holders = {rv: rv.type(name=f"{rv.name or 'valued'}_held") for rv in rvs}
    new: dict[Variable, Variable] = {}
    changed = False
    for rv in order:
        others = {o: holders[o] for o in rvs if o is not rv}
        held = graph_replace(rv, others, strict=False) if others else rv
        form = _derivable_form(rv, held, rv_values[rv], err)
        back = {holders[o]: new[o] for o in rvs if o is not rv and o in new}
        rebuilt = graph_replace(form, back, strict=False) if form is not held else None
        if rebuilt is None:
            # unchanged: the variable itself, unless a valued variable it reads was rewritten
            needs = [o for o in rvs if o is not rv and new.get(o, o) is not o and o in set(ancestors([rv]))]
            rebuilt = graph_replace(rv, {o: new[o] for o in needs}, strict=False) if needs else rv
        changed |= rebuilt is not rv
        new[rv] = rebuilt
    if not changed:
        raise err
    return {new[rv]: rv_values[rv] for rv in rvs}


def _derivable_form(rv: Variable, held: Variable, value: Variable, err: Exception) -> Variable:
    """``held`` itself where its stock logp derives, else its first form that does (NotDerivable otherwise)."""
    try:
        _stock_logp(held, value)
        return held
    except DERIVATION_ERRORS:
        pass
    derived, failed = derivable_forms(held, value, want=2)
    if not derived:
        tried = "\n".join(f"  {f}: {e}" for f, e in failed) or "  (the rules give no other form)"
        raise NotDerivable(
            f"the logp of {describe(rv)} could not be derived ({_first_line(err)}), nor from any "
            f"of its {len(failed)} equivalent forms tried (relations.rules.measurable):\n{tried}"
        ) from err
    if len(derived) > 1:
        cross_check(held, value, derived)
    return derived[0][0]


def _topological(rvs: Sequence[Variable]) -> Iterator[Variable]:
    """``rvs`` with every variable after the valued variables it reads."""
    wanted = set(rvs)
    seen: set = set()
    for node in toposort(list(rvs)):
        for o in node.outputs:
            if o in wanted and o not in seen:
                seen.add(o)
                yield o
    yield from (v for v in rvs if v not in seen)


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return bool(_PATCHES)


def install() -> None:
    """Make ``pm.logp``, a model's logp and ``pm.CustomDist(dist=...)`` derive through :func:`logp`.

    Patched: ``pymc.logp``, ``pymc.logprob.logp``, ``pymc.logprob.basic.logp`` (what
    ``pm.logp`` is) and ``pymc.logprob.basic.conditional_logp`` with ``pymc.logprob.conditional_logp``
    (what ``transformed_conditional_logp``, hence ``Model.logp``, calls; a ``CustomDist`` with
    ``dist=`` is inlined there).  Opt-in and idempotent; :func:`uninstall` restores them.
    """
    if _PATCHES:
        return
    targets = [
        (pymc, "logp", logp),
        (_logprob_package, "logp", logp),
        (_basic_module, "logp", logp),
        (_basic_module, "conditional_logp", conditional_logp),
        (_logprob_package, "conditional_logp", conditional_logp),
    ]
    for module, name, fn in targets:
        _PATCHES.append((module, name, getattr(module, name)))
        setattr(module, name, fn)


def uninstall() -> None:
    """Undo :func:`install`: every patched attribute holds exactly the object it held before."""
    while _PATCHES:
        module, name, original = _PATCHES.pop()
        setattr(module, name, original)
