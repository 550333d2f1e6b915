"""`python -m affray`: the same as the `affray` command."""

import sys

from affray.cli import main

sys.exit(main())
