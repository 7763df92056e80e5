"""Sub-commands of `dipc`; see dipc_plus.cli."""
