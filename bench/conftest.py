import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in ("bench", "feed", "learning"):
    sys.path.insert(0, str(ROOT / path))
