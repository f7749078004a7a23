"""`python -m c45rules`: the same as the `c45rules` command."""
import sys

from .cli import main

sys.exit(main())
