import sys

from tenet.cli import main

sys.exit(main())
