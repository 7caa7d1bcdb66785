"""The greedy normalizer: the fixpoint ``normalize`` runs, and the planner of each rule's forward and backward modes."""
