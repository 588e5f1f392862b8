"""``python -m soundness``: the long differential run (``campaign``; its functions live there, where
the worker processes it spawns can import them)."""
import sys

from soundness.campaign import main

sys.exit(main())
