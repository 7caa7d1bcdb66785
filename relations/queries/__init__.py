"""The user-facing queries and checks behind the public calls.

Explanations, value tests, the form search, progress reports.
"""
