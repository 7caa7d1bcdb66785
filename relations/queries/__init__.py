"""The user-facing queries and checks behind the public calls: explanations, value tests, the form search, progress reports."""
