"""`python -m dipc_plus`: the same as the `dipc` command."""
import sys

from dipc_plus.cli import main

sys.exit(main())
