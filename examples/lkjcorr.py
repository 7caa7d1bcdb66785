"""pytensor #2138: the LKJCorr Cholesky factor's Sqr lifted through the SetSubtensors.

After ``normalize``, Sqr applies to ``params`` (length n(n-1)/2) and to
scalars (Sqr(0), Sqr(1)) that PyTensor's constant folding turns into
constants, instead of to the whole (n, n) matrix.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations


def lkjcorr_sqr(n: int):
    """``(params, sqr(L))`` for the LKJCorr Cholesky factor ``L`` of size ``n``."""
    params = pt.vector("params")
    L = pt.zeros((n, n))
    L = pt.set_subtensor(L[np.tril_indices(n, -1)], params)
    L = pt.set_subtensor(L[np.diag_indices(n)], 1)
    return params, pt.sqr(L)


def main(n: int = 4) -> None:
    params, y = lkjcorr_sqr(n)
    print("--- before")
    pytensor.dprint(y)
    z = relations.normalize(y)
    print("--- after relations.normalize")
    pytensor.dprint(z)
    p = np.linspace(-0.5, 0.5, n * (n - 1) // 2)
    f = pytensor.function([params], [y, z], mode="FAST_COMPILE")
    before, after = f(p)
    assert np.allclose(before, after)
    print("values agree:", np.allclose(before, after))


if __name__ == "__main__":
    main()
