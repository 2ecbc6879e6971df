"""Where the dwell repository and the runtime's endpoints are."""
from __future__ import annotations

import os
from pathlib import Path

CONTAINER = "http://localhost:8080"
CONFIG_SERVER = "http://localhost:19071"


def is_root(path: Path) -> bool:
    """Whether path is a dwell checkout: it has the ./dwell script and runtime/."""
    return (path / "dwell").is_file() and (path / "runtime").is_dir()


def find_root(start: Path | None = None) -> Path:
    """The dwell checkout: $DWELL_ROOT if set; else the checkout this package lives in (an
    editable install, as ./dwell makes); else the first parent of start (the working directory)
    that is one."""
    if os.environ.get("DWELL_ROOT"):
        return Path(os.environ["DWELL_ROOT"]).resolve()
    here = Path(__file__).resolve().parents[2]
    if is_root(here):
        return here
    start = (start or Path.cwd()).resolve()
    for candidate in (start, *start.parents):
        if is_root(candidate):
            return candidate
    raise FileNotFoundError(f"no dwell checkout at or above {start}; set DWELL_ROOT")


ROOT = find_root()
