"""A relational equality-saturation engine: e-nodes without PyTensor nodes, semi-naive e-matching.

Rooms, as egg has them:

- :mod:`.egraph`: union-find, hash-cons of e-nodes ``(op id, child class ids...)``, per-class
  parents, egg's deferred rebuild, types per class inferred once per (Op, input types), union
  justifications (a proof forest);
- :mod:`.analysis`: e-class analyses (type, constant, sign, interval) merged on union;
- :mod:`.query`: a rule's left side compiled once to a conjunctive query over per-Op tables,
  answered by backtracking join, semi-naively;
- :mod:`.runner`: :class:`Runner` with absolute :class:`Limits`, egg's BackoffScheduler and a
  :class:`Report`;
- :mod:`.extract`: a bottom-up tree-cost extractor that reifies the chosen form to PyTensor.

Import from the modules (``from relations.saturation.engine.runner import Runner``): a name
has one home.  Only plain pattern rules (``p.var``, ``p.const`` and the scalar Elemwise builders ``p.add``,
``p.exp``, ...) run here; rules with goal nodes or ``where=`` goals are refused by name.
"""
