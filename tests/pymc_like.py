"""Graphs with the opaque Ops a PyMC model contains (Scan, CheckParameterValue)."""

import pytensor
import pytensor.tensor as pt


def check_parameters_graph(x):
    try:
        from pytensor.tensor.random.utils import CheckParameterValue  # type: ignore
    except ImportError:
        CheckParameterValue = None
    if CheckParameterValue is None:
        from pytensor.raise_op import CheckAndRaise as _C

        class CheckParameterValue(_C):  # same shape as PyMC's Op
            def __init__(self, msg=""):
                super().__init__(ValueError, msg)

    checked = CheckParameterValue("x > 0")(x, pt.all(x > 0))
    seq = pytensor.scan(lambda a, acc: acc + a, sequences=[checked], outputs_info=[pt.zeros(())], return_updates=False)
    out = pt.exp(seq).sum()
    return out, seq
