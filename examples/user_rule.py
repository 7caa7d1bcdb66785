"""A rule of your own: declare it as two patterns, verify it on values, use it.

Run: ``python examples/user_rule.py``
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations
from relations import patterns as p

a = p.var("a")

# a wrong rule first: verify finds the inputs on which it changes the values
exp_log = relations.rewrite_rule("exp_log", p.exp(p.log(a)), a)
print(relations.verify(exp_log))

# a true one, guarded to floats: sqrt(a**2) == |a|
sqrt_sqr = relations.rewrite_rule(
    "sqrt_of_square", p.sqrt(p.sqr(a)), p.abs(a), where=(lambda a: a.type.dtype.startswith("float"),)
)
assert relations.verify(sqrt_sqr) is None

x = pt.vector("x")
before = pt.sum(pt.expand_dims(pt.sqrt(pt.sqr(x)), 0))
after = relations.normalize(before, rules=relations.DEFAULT_RULES + (sqrt_sqr,))
print("--- before")
pytensor.dprint(before)
print("--- after relations.normalize with DEFAULT_RULES + (sqrt_of_square,)")
pytensor.dprint(after)
v = np.array([-2.0, 0.0, 3.0])
f = pytensor.function([x], [before, after], mode="FAST_COMPILE")
b, c = f(v)
print(f"values: before={b!r} after={c!r}")
assert np.allclose(b, c)
