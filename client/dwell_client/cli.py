"""The vespa CLI (pip install vespacli), run as its Go binary against the local target."""
from __future__ import annotations

import subprocess

from .paths import ROOT


def vespa_binary() -> str:
    """The Go binary itself: the vespacli package's Python wrapper does not pass on its exit code."""
    from vespacli import get_binary_path

    return get_binary_path()


def vespa(*args: str, check: bool = True, timeout: float | None = 600) -> subprocess.CompletedProcess:
    """`vespa ARGS --target local`, run in the repository root, output captured as text.
    check=True raises CalledProcessError on a non-zero exit."""
    return subprocess.run([vespa_binary(), *args, "--target", "local"], capture_output=True, text=True,
                          check=check, timeout=timeout, cwd=ROOT)
