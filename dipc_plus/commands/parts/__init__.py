"""What `dipc merge` checks in the parts of a sharded run: their schema (`schema`) and, when its files
are here, their claim (`claim`) - a helper package of that command, not a command: `commands/*.py` are
the sub-commands."""
