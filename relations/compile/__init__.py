"""PyTensor compile passes: the relational passes, the lowering of the toolkit's Ops, site replacement, their registration in optdb."""
