"""Goal combinators for relations that run in more than one direction.

:func:`lall_ready` lives with the rest of the logic core in
``graph_bridge.logic``; this module keeps the name where rules import it.
"""

from __future__ import annotations

from graph_bridge.logic import lall_ready

__all__ = ["lall_ready"]
