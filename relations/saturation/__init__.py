"""Equality saturation: the e-graph, e-matching of relations and PyTensor rewriters, extraction, costs, proofs."""
