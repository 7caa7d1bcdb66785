"""The sum of a join (pytensor #2132 / PR #2130):

    Sum(Join(0, ExpandDims(a), ExpandDims(b), ExpandDims(c))) -> Sum(a) + Sum(b) + Sum(c)

The reduction-of-join relation splits the Sum over the pieces; the
full-reduction relation then drops each ExpandDims the Sum does not see.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations

a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
y = pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))

print("--- before")
pytensor.dprint(y)
z = relations.normalize(y)
print("--- after relations.normalize")
pytensor.dprint(z)

vals = [np.arange(3.0), np.ones(3), np.full(3, 2.0)]
f = pytensor.function([a, b, c], [y, z], mode="FAST_COMPILE")
before, after = f(*vals)
print(f"values: before={before} after={after}")
assert np.allclose(before, after)
