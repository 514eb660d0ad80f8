"""`python -m fakeapi`: the same as the `fakeapi` command."""

import sys

from fakeapi.cli import main

sys.exit(main())
