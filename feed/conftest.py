import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "feed"))
sys.path.insert(0, str(ROOT / "feed" / "tests"))
sys.path.insert(0, str(ROOT / "learning"))
