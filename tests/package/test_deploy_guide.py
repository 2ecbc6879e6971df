"""docs/deploy.md against what it names: every `vespa` command in its code blocks against `vespa ... --help`
of the pinned CLI (the subcommands exist, every flag is one the (sub)command takes, a flag that takes a value
has one), its other commands (`./dwell`, `python -m dwell_feed`) against theirs, and the files, host names,
config values and functions it names against the repository. No runtime, no network; a few seconds.

The XML of the guide (services.xml's <nodes>, deployment.xml) is checked against application/ by
tests/package/java/ai/dwell/application/DeploymentGuideIT.java, which also builds Vespa's config model of the package
for each zone the guide names."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from dwell_client import vespa_binary

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "deploy.md"


# ---- the guide's code blocks and commands

def code_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(info string, lines) of each fenced block; a block indented in a list item loses its indentation."""
    blocks, lines, info, indent = [], None, "", 0
    for line in text.splitlines():
        stripped = line.strip()
        if lines is None and stripped.startswith("```"):
            lines, info, indent = [], stripped[3:].strip(), len(line) - len(line.lstrip())
        elif lines is not None and stripped == "```":
            blocks.append((info, lines))
            lines = None
        elif lines is not None:
            lines.append(line[indent:] if line[:indent].strip() == "" else line.strip())
    assert lines is None, "an unclosed code block"
    return blocks


def shell_lines(text: str) -> list[str]:
    """The command lines of the guide's shell blocks (those without a language), comments removed."""
    out = []
    for info, lines in code_blocks(text):
        if info:
            continue
        for line in lines:
            words = shlex.split(line, comments=True)
            if words:
                out.append(shlex.join(words))
    return out


INLINE_VESPA = re.compile(r"(?<!`)`(vespa [^`]+)`")


def vespa_commands(text: str) -> list[list[str]]:
    """The arguments of every `vespa ...` command line of the code blocks, and of every inline `vespa ...`."""
    lines = [line for line in shell_lines(text) if shlex.split(line)[0] == "vespa"] + INLINE_VESPA.findall(text)
    return [shlex.split(line)[1:] for line in lines]


# ---- what the pinned CLI says about itself

@dataclass(frozen=True)
class Help:
    subcommands: frozenset[str]
    flags: dict[str, bool]   # "-t" and "--target" -> whether it takes a value


FLAG = re.compile(r"^\s+(?:(-[A-Za-z]), )?(--[a-z][a-z0-9-]*)(?: (\w+))?\s")
COMMAND = re.compile(r"^\s+([a-z][a-z-]*)\s{2,}\S")


@lru_cache(maxsize=None)
def cli_help(*path: str) -> Help:
    """`vespa PATH --help`, parsed: the subcommands it lists and the flags (local and global) it takes."""
    done = subprocess.run([vespa_binary(), *path, "--help"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, f"vespa {' '.join(path)} --help failed: {done.stderr}"
    subcommands, flags, section = set(), {}, ""
    for line in done.stdout.splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
            continue
        if section == "Available Commands" and (m := COMMAND.match(line)):
            subcommands.add(m.group(1))
        elif section in ("Flags", "Global Flags") and (m := FLAG.match(line)):
            takes_value = m.group(3) is not None
            flags[m.group(2)] = takes_value
            if m.group(1):
                flags[m.group(1)] = takes_value
    return Help(frozenset(subcommands), flags)


def check_vespa_command(args: list[str]) -> list[str]:
    """What is wrong with `vespa ARGS` by the CLI's help: an unknown subcommand, an unknown flag, a flag without its value."""
    if not args or args[0] not in cli_help().subcommands:
        return [f"vespa {shlex.join(args)}: no such command (vespa --help lists {sorted(cli_help().subcommands)})"]
    path = []
    for word in args:
        if word.startswith("-") or word not in cli_help(*path).subcommands:
            break
        path.append(word)
    known = cli_help(*path).flags
    problems = []
    for i, word in enumerate(args):
        if not word.startswith("-") or word == "-":
            continue
        name, has_value = word.split("=", 1)[0], "=" in word
        if name not in known:
            problems.append(f"vespa {shlex.join(args)}: `vespa {' '.join(path)} --help` has no flag {name}")
        elif known[name] and not has_value and (i + 1 == len(args) or args[i + 1].startswith("-")):
            problems.append(f"vespa {shlex.join(args)}: {name} takes a value")
    return problems


def test_the_guide_has_the_commands_it_should() -> None:
    commands = vespa_commands(GUIDE.read_text())
    first_words = {c[0] for c in commands}
    assert {"config", "auth", "deploy", "prod", "status", "feed", "document", "query"} <= first_words, first_words
    assert len(commands) >= 25, commands


@pytest.mark.parametrize("args", vespa_commands(GUIDE.read_text()), ids=shlex.join)
def test_a_vespa_command_of_the_guide_is_one_the_pinned_cli_takes(args: list[str]) -> None:
    assert check_vespa_command(args) == []


def test_a_misspelt_flag_or_command_is_found() -> None:
    assert check_vespa_command(["deploy", "--add-cert", "--wait", "900", "target/application"]) == []
    assert check_vespa_command(["deploy", "--add-certs", "--wait", "900", "target/application"]) != []
    assert check_vespa_command(["deploy", "--wait", "--add-cert", "target/application"]) != []   # --wait without its seconds
    assert check_vespa_command(["auth", "cert", "-N"]) == []
    assert check_vespa_command(["auth", "-N"]) != []                                              # -N is cert's, not auth's
    assert check_vespa_command(["deploys", "target/application"]) != []


def test_the_guide_names_the_cli_version_it_was_checked_against() -> None:
    version = subprocess.run([vespa_binary(), "version"], capture_output=True, text=True, timeout=30).stdout
    number = re.search(r"Vespa CLI version (\S+)", version)
    assert number, version
    assert f"Vespa CLI {number.group(1)}" in " ".join(GUIDE.read_text().split()), f"the pinned CLI is {number.group(1)}: update the guide"


# ---- its other commands

def test_its_dwell_commands_exist() -> None:
    script = (ROOT / "dwell").read_text()
    named = {shlex.split(line)[1] for line in shell_lines(GUIDE.read_text()) if shlex.split(line)[0] == "./dwell"}
    assert named, "the guide runs ./dwell"
    for command in named:
        assert re.search(rf"^\s+{re.escape(command)}\)", script, re.M), f"./dwell has no command {command}"
    for command in re.findall(r"`\./dwell (\w+)", GUIDE.read_text()):
        assert re.search(rf"^\s+{re.escape(command)}\)", script, re.M), f"./dwell has no command {command}"


def test_its_dwell_feed_command_takes_its_flags() -> None:
    lines = [shlex.split(line) for line in shell_lines(GUIDE.read_text()) if "dwell_feed" in line]
    assert lines, "the guide feeds with dwell_feed"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}{os.pathsep}{ROOT / 'learning'}"}
    for words in lines:
        module = words.index("dwell_feed")
        subcommand = words[module + 1]
        done = subprocess.run([sys.executable, "-m", "dwell_feed", subcommand, "--help"], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=60)
        assert done.returncode == 0, done.stderr
        for word in words[module + 2:]:
            if word.startswith("--"):
                assert re.search(rf"\s{re.escape(word)}\b", done.stdout), f"dwell_feed {subcommand} has no {word}"


# ---- what it names in the repository

REPO_PATH = re.compile(r"(?<![\w/.])((?:application|learning|runtime|searchers|docprocs|tests|feed|client|bench|embedder)"
                       r"/[\w./-]*[\w])")


def test_its_from_logs_command_takes_its_flags() -> None:
    lines = [shlex.split(line) for line in shell_lines(GUIDE.read_text()) if "dwell_learning.from_logs" in line]
    assert lines, "the guide runs dwell_learning.from_logs"
    done = subprocess.run([sys.executable, "-m", "dwell_learning.from_logs", "--help"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "learning")}, timeout=60)
    assert done.returncode == 0, done.stderr
    for words in lines:
        for word in words:
            if word.startswith("--"):
                assert re.search(rf"\s{re.escape(word)}\b", done.stdout), f"from_logs has no {word}"


def test_the_repository_files_it_names_exist() -> None:
    named = set(REPO_PATH.findall(GUIDE.read_text()))
    assert "application/hosts.xml" in named and "learning/dwell_learning/service.py" in named, named
    assert [p for p in sorted(named) if not (ROOT / p).exists()] == []


def test_its_host_names_and_aliases_are_those_of_hosts_xml() -> None:
    hosts = (ROOT / "application" / "hosts.xml").read_text()
    guide = GUIDE.read_text()
    names = set(re.findall(r"dwell-[a-z0-9]+\.example\.com", guide))
    assert names, "the guide names the hosts of hosts.xml"
    assert {n for n in names if f'name="{n}"' not in hosts} == set()
    aliases = set(re.findall(r"`(admin0|container\d|content\d)`", guide)) | {"content1"}   # `content0`..`content2`
    assert {a for a in aliases if f"<alias>{a}</alias>" not in hosts} == set()


def test_the_settings_it_quotes_are_the_packages() -> None:
    services = (ROOT / "application" / "services.xml").read_text()
    guide = " ".join(GUIDE.read_text().split())
    assert "<impressionLog>logs/dwell/impressions.jsonl</impressionLog>" in services
    assert "`logs/dwell/impressions.jsonl`" in guide
    assert '<jvm options="-Xms1g -Xmx2g"/>' in services and "`-Xms1g -Xmx2g`" in guide
    assert "<min-redundancy>2</min-redundancy>" in services and "`min-redundancy` 2" in guide
    for document in ("author", "rankingmodel"):
        assert f'<document type="{document}" mode="index" global="true"/>' in services
    assert 'xmlns:deploy="vespa"' in services, "the guide says the deploy namespace is declared"
    ranking_model_def = (ROOT / "searchers/src/main/resources/configdefinitions/ranking-model.def").read_text()
    assert re.search(r"^refreshIntervalMillis int default=250\b", ranking_model_def, re.M)
    assert "every 250 ms" in guide


# functions, methods and files the guide refers to by name, and where they are
NAMED_IN_CODE = {
    "Readers.read": ("learning/dwell_learning/simulator.py", r"^class Readers\b.*^    def read\("),
    "report.json": ("learning/dwell_learning/from_logs.py", r"\"report\.json\""),
    "RuntimeService": ("learning/dwell_learning/service.py", r"^class RuntimeService\b"),
    "rankingmodel_put": ("learning/dwell_learning/export.py", r"^def rankingmodel_put\("),
    "package_with_model": ("learning/dwell_learning/deploy.py", r"^def package_with_model\("),
    "rankingmodel.json": ("learning/dwell_learning/tf_export.py", r"\"rankingmodel\.json\""),
    "rankingmodel.jsonl": ("feed/dwell_feed/generate.py", r"\"rankingmodel\.jsonl\""),
    "ImpressionLog.resolve": ("searchers/src/main/java/ai/dwell/searchers/ImpressionLog.java",
                              r"static Path resolve\(String configuredPath\)[^}]*underVespaHome"),
    "PackageVariants": ("runtime/src/main/java/ai/dwell/runtime/serve/deploy/PackageVariants.java",
                        r"Zone zone = Zone\.defaultZone\(\);.*new XmlPreProcessor\("),
    "ReaderFailureGuard": ("runtime/README.md", r"ReaderFailureGuard"),
    "SearchWaitGuard": ("runtime/README.md", r"SearchWaitGuard"),
    "serve.access.AccessFilter": ("runtime/README.md", r"serve\.access\.AccessFilter"),
}


@pytest.mark.parametrize("name", sorted(NAMED_IN_CODE))
def test_what_it_names_in_the_code_is_there(name: str) -> None:
    path, pattern = NAMED_IN_CODE[name]
    assert name in GUIDE.read_text(), f"the guide no longer names {name}: drop it here"
    assert re.search(pattern, (ROOT / path).read_text(), re.M | re.S), f"{path} no longer has {name}"


def test_the_runtime_resolves_variants_before_it_builds_as_the_guide_says() -> None:
    guide = " ".join(GUIDE.read_text().split())
    assert "resolves the `deploy:` variants as a self-hosted config server does" in guide
    runtime = (ROOT / "runtime/src/main/java/ai/dwell/runtime/serve/Runtime.java").read_text()
    assert re.search(r"PackageVariants\.resolve\((\w+)\);[^\n]*\n\s*ModelBuilder\.Built \w+ = ModelBuilder\.build\(\1\)", runtime), \
        "Runtime no longer resolves the package's variants just before it builds the model: update the guide"
