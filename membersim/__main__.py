"""Command line: ``python -m membersim`` serves clusters; ``python -m membersim ctl`` applies faults."""

from membersim.cli import main

raise SystemExit(main())
