# python3 -m scopeprof: the scope-profiler command.
import sys

from .cli import main

sys.exit(main())
