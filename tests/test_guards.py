"""Guards over pattern variables (``relations.patterns.guards``) and the value ranges they read
(``graph_bridge.intervals``): sound on values, composed with ``&``/``|``/``~``, refused when they read a
variable no side binds, and a guarded rule forward, backward and as a check, on values."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.interval_type import EVERYTHING
from graph_bridge.intervals import interval_of
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations import patterns as p
from relations.lang import (
    Guard,
    constant_where,
    guard,
    has_ndim,
    is_constant,
    is_float,
    is_integer,
    negative,
    nonnegative,
    nonzero,
    positive,
    same_type_of,
    within,
)

x, y = pt.dvector("x"), pt.dvector("y")
a, b, c = p.var("a"), p.var("b"), p.var("c")
EXTREMES = np.array([-800.0, -40.0, -1.0, -1e-10, 0.0, 1e-300, 1e-10, 0.5, 1.0, 40.0, 709.0, 800.0])

#: graphs over x and y whose range the analysis knows (or bounds)
GRAPHS = [
    pt.exp(x), pt.exp(x) + 1, pt.log1p(pt.exp(x)), pt.sigmoid(x) * pt.sigmoid(y), 3.0 * pt.exp(x),
    pt.erfc(x) * 0.5, pt.sqrt(pt.abs(x)), pt.sum(pt.exp(x)), pt.exp(x) - pt.exp(y), pt.exp(x)[None] / 2,
    pt.sqr(x), pt.cosh(x) - 1, pt.tanh(x) + pt.erf(y), pt.softplus(x), pt.reciprocal(1 + pt.exp(x)),
    pt.maximum(x, 0), pt.switch(x > 0, pt.exp(x), pt.sigmoid(y)), pt.log(pt.sigmoid(x)), pt.expm1(x),
    pt.prod(pt.exp(x)), pt.max(pt.exp(x)), pt.sqr(x) ** 0.5, pt.shape(x)[0] * 1.0, pt.join(0, pt.exp(x), pt.sigmoid(y)),
    # a reciprocal of an interval open at 0 (it once divided by that 0)
    pt.reciprocal(pt.exp(x)), pt.reciprocal(-pt.exp(x)), 1 / pt.sigmoid(x), pt.exp(x) ** -1.5, pt.sigmoid(x) ** -2.0,
    1 / -pt.exp(x), -x / pt.exp(y),
]


@pytest.mark.parametrize("i", range(len(GRAPHS)))
def test_the_interval_holds_every_value_on_extreme_inputs(i):
    g = GRAPHS[i]
    before = snapshot(g)
    box = interval_of(g)
    f = pytensor.function([x, y], g, mode="FAST_COMPILE", on_unused_input="ignore")
    rng = np.random.default_rng(i)
    for n in (0, 1, len(EXTREMES)):
        xs = EXTREMES[:n] if n else EXTREMES[:0]
        ys = rng.permutation(EXTREMES)[: len(xs)]
        with np.errstate(all="ignore"):
            try:
                out = np.asarray(f(xs, ys), dtype="float64")
            except ValueError:  # the max of no element raises: no value to bound
                assert n == 0
                continue
        vals = out[np.isfinite(out)]
        # exact arithmetic bounds: a float result may round onto a closed end (exp(-800) == 0.0)
        assert np.all(vals >= box.lo) and np.all(vals <= box.hi), (g, box, out)
    assert snapshot(g) == before


def test_assumed_intervals_hold_within_the_block_only():
    from graph_bridge.interval_type import Interval
    from graph_bridge.intervals import assuming

    with assuming({x: Interval(0.0, 1.0, True, False)}):
        assert interval_of(pt.log(x)).negative() or interval_of(pt.log(x)).nonpositive()
        assert interval_of(x + 1).positive()
    assert interval_of(x + 1) == EVERYTHING


def test_what_the_analysis_does_not_know_is_the_whole_line():
    assert interval_of(x) == EVERYTHING
    assert interval_of(pt.gammaln(x)) == EVERYTHING
    assert interval_of(pt.exp(x) - pt.exp(y)) == EVERYTHING
    assert interval_of(pt.constant(np.zeros(0))) == EVERYTHING  # an empty constant bounds nothing
    with pytest.raises(TypeError, match="v must be a PyTensor variable"):
        interval_of(3.0)


def test_signs_of_known_graphs():
    assert interval_of(pt.exp(x)).positive() and not interval_of(pt.exp(x)).nonpositive()
    assert interval_of(pt.sqrt(x)).nonnegative() and not interval_of(pt.sqrt(x)).positive()
    assert interval_of(pt.log(pt.sigmoid(x))).negative()
    assert interval_of(-pt.exp(x)).negative() and interval_of(-pt.exp(x)).nonzero()
    assert interval_of(pt.sigmoid(x)).within(0, 1) and not interval_of(pt.exp(x)).within(0, 1)
    assert interval_of(1 / pt.exp(x)).positive() and interval_of(1 / -pt.exp(x)).negative()  # an open end at 0
    assert interval_of(pt.sum(pt.exp(x))).nonnegative() and not interval_of(pt.sum(pt.exp(x))).positive()  # empty sum


def _value(g, guard_: Guard, **bound) -> bool:
    return guard_(**bound)


def test_library_guards_on_bound_values():
    i = pt.lvector("i")
    assert is_float(a)(a=x) and not is_float(a)(a=i) and is_integer(a)(a=i)
    assert same_type_of(a, b)(a=x, b=y) and not same_type_of(a, b)(a=x, b=pt.fvector())
    assert has_ndim(a, 1)(a=x) and not has_ndim(a, 0)(a=x)
    assert is_constant(c)(c=pt.constant(2.0)) and is_constant(c)(c=pt.constant(2.0)[None])
    assert not is_constant(c)(c=x)
    assert constant_where(c, lambda v: v > 0)(c=pt.constant([1.0, 2.0]))
    assert not constant_where(c, lambda v: v > 0)(c=pt.constant([1.0, -2.0]))
    assert positive(a)(a=pt.exp(x)) and not positive(a)(a=x) and nonnegative(a)(a=pt.sqr(x))
    assert negative(a)(a=-pt.exp(x)) and nonzero(a)(a=-pt.exp(x)) and within(a, 0, 1)(a=pt.sigmoid(x))


def test_guards_compose_and_print_as_written():
    both = is_float(a) & positive(b)
    assert isinstance(both, Guard) and both.names == ("a", "b") and repr(both) == "is_float(a) & positive(b)"
    assert both(a=x, b=pt.exp(y)) and not both(a=x, b=y)
    either = positive(a) | negative(a)
    assert repr(either) == "(positive(a) | negative(a))" and either(a=-pt.exp(x)) and not either(a=x)
    assert repr(~positive(a)) == "~positive(a)" and (~positive(a))(a=x)
    assert both.reads == "value" and (is_float(a) & same_type_of(a, b)).reads == "class"
    nodes = guard(lambda v: v.owner is not None)
    assert (both & nodes(a)).reads == "node" and (nodes(a) | is_float(b)).reads == "node"
    with pytest.raises(ValueError, match="reads must be"):
        guard(reads="graph")
    with pytest.raises(TypeError, match="right operand of & must be a Guard"):
        is_float(a) & (lambda a: True)


def test_a_guard_of_your_own():
    @guard(reads="class")
    def short(v):
        return v.type.ndim < 2

    assert repr(short(a)) == "short(a)" and short(a)(a=x) and not short(a)(a=pt.matrix())
    with pytest.raises(TypeError, match="needs at least one pattern variable"):
        short(3)
    with pytest.raises(ValueError, match="reads must be 'class', 'value' or 'node'"):
        guard(reads="types")


LOG_MUL = relations.rewrite_rule("log_mul_positive", p.log(p.mul(c, a)), p.add(p.log(c), p.log(a)),
                                 where=is_float(a) & positive(c), choice=True, doc="A log of a product.")


def test_a_guarded_rule_forward_backward_and_as_a_check_on_values():
    lhs = pt.log(pt.exp(x) * pt.sigmoid(y))
    before = snapshot(lhs)
    (rhs,) = forward(LOG_MUL, lhs, n=1)
    shapes = {x: [(0,), (1,), (5,)], y: [(0,), (1,), (5,)]}
    check_rewrite(lhs, rhs, shapes)
    assert snapshot(lhs) == before
    (back,) = backward(LOG_MUL, rhs, n=1)
    check_rewrite(back, rhs, shapes)
    assert holds(LOG_MUL, lhs, rhs)
    assert not holds(LOG_MUL, lhs, pt.log(pt.exp(x)) + pt.log(pt.exp(y)))


def test_a_range_guard_that_does_not_hold_leaves_the_graph_alone():
    # the sign of x is unknown: log(x * y) is not log(x) + log(y) (both negative: nan on the right)
    assert forward(LOG_MUL, pt.log(x * y)) == []
    assert backward(LOG_MUL, pt.log(x) + pt.log(y)) == []


def test_a_guard_over_a_variable_no_side_binds_is_refused():
    with pytest.raises(ValueError, match=r"where\[0\] \(positive\(z\)\) reads \['z'\], which neither side"):
        relations.rewrite_rule("bad", p.exp(a), p.exp(a), where=positive(p.var("z")), choice=True)


def test_the_guard_prints_in_the_rule_docstring():
    assert "Guards: is_float(a) & positive(c)" in LOG_MUL.__doc__


def test_an_interval_reads_through_an_input_of_no_tensor_type():
    # found by the thorough property run: SpecifyShape's NoneConst (shape entry not given) has no ndim
    m = pt.matrix("m")
    shaped = pt.specify_shape(pt.exp(m), (1, None))
    assert any(not hasattr(i.type, "ndim") for i in shaped.owner.inputs)
    assert interval_of(shaped).positive()
    assert nonzero(a)(a=shaped / 2.0)
