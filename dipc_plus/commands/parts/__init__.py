"""What `dipc merge` checks in the parts of a sharded run beyond their schema (a helper package of
that command, not a command: `commands/*.py` are the sub-commands)."""
