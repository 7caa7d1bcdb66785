"""relations.patterns.orders: DimShuffle orders and reduction axes, as functions and as relations."""

import itertools

import numpy as np
import pytest
from kanren import run
from unification import var

from graph_bridge.node_relations import compose_orders, is_identity_order
from logic_core import NotReady
from relations.patterns.orders import (
    compose_orderso,
    dimshuffle_orders,
    dropped_dims,
    expansions,
    identity_ordero,
    reduce_through,
    reduce_througho,
    valid_ordero,
)


def _shuffle(a: np.ndarray, order: tuple) -> np.ndarray:
    """numpy's DimShuffle: drop the (length-1) dims not in ``order``, then place them, 'x' adding one."""
    kept = [d for d in order if d != "x"]
    dropped = tuple(d for d in range(a.ndim) if d not in kept)
    a = a.squeeze(dropped) if dropped else a
    rank = {d: i for i, d in enumerate(sorted(kept))}
    a = a.transpose([rank[d] for d in kept])
    for j, d in enumerate(order):
        if d == "x":
            a = np.expand_dims(a, j)
    return a


def test_expansions_insert_one_dim_leftmost_first():
    assert list(expansions(2)) == [("x", 0, 1), (0, "x", 1), (0, 1, "x")]
    assert list(expansions(0)) == [("x",)]
    assert len(list(expansions(2, max_added=2))) == 3 + 6


def test_dimshuffle_orders_start_with_the_identity():
    assert list(dimshuffle_orders(1)) == [(0,), ("x", 0), (0, "x")]


def test_dropped_dims_and_is_identity():
    assert dropped_dims(3, (0, "x", 2)) == (1,)
    assert dropped_dims(2, (1, 0)) == ()
    assert is_identity_order(2, (0, 1)) and not is_identity_order(2, (1, 0)) and not is_identity_order(2, (0, 1, "x"))


def test_compose_orders_on_values():
    a = np.arange(6.0).reshape(2, 3)
    for inner in [(1, 0), (0, "x", 1), ("x", 1, 0)]:
        for outer in itertools.permutations(range(len(inner))):
            want = _shuffle(_shuffle(a, inner), outer)
            got = _shuffle(a, compose_orders(inner, outer))
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_reduce_through_on_values(n):
    """CAReduce{axes}(DimShuffle{order}(x)) == DimShuffle{order2}(CAReduce{axes2}(x)), with length-1 dims."""
    rng = np.random.default_rng(0)
    shape = tuple([1] + [2, 3][: n - 1])
    x = rng.normal(size=shape)
    for order in itertools.chain(dimshuffle_orders(n), [tuple(range(n))[::-1]]):
        width = len(order)
        for k in range(1, width + 1):
            for axes in itertools.combinations(range(width), k):
                axes2, order2 = reduce_through(n, order, axes)
                want = _shuffle(x, order).sum(axis=axes)
                got = _shuffle(x.sum(axis=axes2, keepdims=False), order2) if axes2 else None
                if got is None:
                    continue
                np.testing.assert_allclose(got, want)


def test_reduce_througho_forward_backward_and_check():
    a2, o2 = var(), var()
    [(axes2, order2)] = run(0, (a2, o2), reduce_througho(2, ("x", 0, 1), (2,), a2, o2))
    assert (axes2, order2) == reduce_through(2, ("x", 0, 1), (2,)) == ((1,), ("x", 0))
    o, a = var(), var()
    back = run(0, (o, a), reduce_througho(2, o, a, (1,), ("x", 0)))
    assert (("x", 0, 1), (2,)) in back
    assert all(reduce_through(2, oo, aa) == ((1,), ("x", 0)) for oo, aa in back)
    assert run(0, var(), reduce_througho(2, ("x", 0, 1), (2,), (1,), ("x", 0)))
    assert not run(0, var(), reduce_througho(2, ("x", 0, 1), (2,), (0,), ("x", 0)))
    # reducing only an added dim is a cast, not a reduction: no answer
    assert not run(0, (a2, o2), reduce_througho(2, ("x", 0, 1), (0,), a2, o2))


def test_reduce_througho_waits_for_n_and_for_one_side():
    with pytest.raises(NotReady):
        next(iter(reduce_througho(var(), (0,), (0,), var(), var())({})))
    with pytest.raises(NotReady):
        next(iter(reduce_througho(2, var(), var(), var(), var())({})))


def test_identity_ordero_both_ways():
    n = var()
    assert run(0, n, identity_ordero(n, (0, 1, 2))) == (3,)
    assert run(0, n, identity_ordero(n, (1, 0))) == ()
    o = var()
    assert run(0, o, identity_ordero(2, o)) == ((0, 1),)
    with pytest.raises(NotReady):
        next(iter(identity_ordero(var(), var())({})))


def test_valid_ordero_checks_and_enumerates():
    assert run(0, var(), valid_ordero(2, (1, 0)))
    assert not run(0, var(), valid_ordero(2, (0, 1)))  # the identity
    assert not run(0, var(), valid_ordero(2, (0, 0)))  # a repeated dim
    assert not run(0, var(), valid_ordero(2, (0, 2)))  # out of range
    o = var()
    assert run(0, o, valid_ordero(1, o)) == tuple(expansions(1))


def test_compose_orderso_forward_backward_and_check():
    c = var()
    assert run(0, c, compose_orderso((0, "x", 1), (2, 0), c, 2)) == ((1, 0),)
    i, o = var(), var()
    splits = run(0, (i, o), compose_orderso(i, o, (1, "x", 0), 2))
    assert splits
    assert all(compose_orders(ii, oo) == (1, "x", 0) for ii, oo in splits)
    assert run(0, var(), compose_orderso((0, "x", 1), (2, 0), (1, 0), 2))
    assert not run(0, var(), compose_orderso((0, "x", 1), (2, 0), (0, 1), 2))
