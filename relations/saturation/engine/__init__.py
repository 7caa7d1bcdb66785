"""A relational equality-saturation engine: e-nodes without PyTensor nodes, semi-naive e-matching.

Rooms, as egg has them:

- :mod:`.egraph`: union-find, hash-cons of e-nodes ``(op id, child class ids...)``, per-class
  parents, egg's deferred rebuild, types per class inferred once per (Op, input types), union
  justifications (a proof forest);
- :mod:`.analysis`: the e-class analysis, a value interval with the transfer functions of
  :mod:`graph_bridge.intervals` (sign and constant read from it), merged on union;
- :mod:`.query`: a rule's left side compiled once to a conjunctive query over per-Op tables,
  answered by backtracking join, semi-naively;
- :mod:`.runner`: :class:`Runner` with absolute :class:`Limits`, egg's BackoffScheduler and a
  :class:`Report`;
- :mod:`.extract`: a bottom-up tree-cost extractor that reifies the chosen form to PyTensor.

Import from the modules (``from relations.saturation.engine.runner import Runner``): a name
has one home.  Only plain pattern rules (``p.var``, ``p.const`` and the scalar Elemwise builders ``p.add``,
``p.exp``, ...) run here; rules with goal nodes or ``where=`` goals are refused by name.

Design (issue 42).  Matching is a backtracking join generated as Python source per rule and
pivot, not a generic join: the algebra rules' queries are trees of two or three atoms, where a
backtracking join over per-class indexes (``nodes``, ``parents``) is worst-case optimal already
(generic join pays off on cyclic queries, which tree patterns never are), and in Python the
constant factor decides: one nested loop with dict lookups beats the per-variable intersections
generic join needs.  egglog's Rust core was not taken for the pattern rules: right-hand sides
must be typed per (Op, input types) and refused when their dtype or broadcastable differ,
guards read Python analyses, and unions must carry the rule and substitution for proofs, all
of which would need Python callbacks per match (or a second pass that cannot undo a union).
The price is speed: on ``benchmarks/saturation.py --table algebra`` the e-node counts equal
egglog's at every iteration, and the CPU time per e-node is 3-6x egglog's at 10^3-10^5 e-nodes
(2.9x in instructions over the 8 iterations on poly(2), ``benchmarks/instructions.py --algebra 2 8``;
the interval analysis costs 2% of them); memory is about 730 bytes per e-node at 1.4 * 10^5.  The
time goes to applying (a new e-node is a hash-cons entry, a table row, list entries and a proof
record, about 1 us in CPython), searching and rebuilding, in about 5 : 2 : 2.
"""
