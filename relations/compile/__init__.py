"""PyTensor compile passes: the relational passes, the lowering of the toolkit's Ops, site replacement.

And their registration in optdb (:func:`relations.compile.defaults.register_all`).
"""
