"""What a host builds and runs, checked by reading it (this machine has no Docker engine):
the Dockerfile and ``.env.example`` together put the database on the ``/data`` volume, the
image installs exactly the lock file, and the lock pins every dependency of
``pyproject.toml`` to a version its specifier admits. Deterministic and offline: a new
release of a dependency changes nothing here until the lock is regenerated."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from bot.__main__ import build_parser
from bot.config import StorageSettings

PROJECT = Path(__file__).resolve().parents[2]
REGENERATE = "regenerate the lock files with `bash .ci/lock` and commit them"
# The image's interpreter (python:3.11-slim, linux x86_64 or arm64).
IMAGE_PYTHON = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.0"}
IMAGE_PLATFORMS = [
    {**IMAGE_PYTHON, "sys_platform": "linux", "platform_system": "Linux", "platform_machine": m}
    for m in ("x86_64", "aarch64")
]


# -- the lock files ---------------------------------------------------------------------------


def project_requirements(extra: str | None = None) -> list[Requirement]:
    data = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    listed = data["optional-dependencies"][extra] if extra else data["dependencies"]
    return [Requirement(line) for line in listed]


def parse_lock(text: str, name: str) -> dict[str, list[Requirement]]:
    """Package -> its pinned lines (several when markers split it, e.g. per Python)."""
    pins: dict[str, list[Requirement]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        assert not line.startswith("-"), f"{name}: options have no place in a lock: {raw!r}"
        requirement = Requirement(line)
        pins.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    return pins


def read_lock(name: str) -> dict[str, list[Requirement]]:
    return parse_lock((PROJECT / name).read_text(), name)


def applies(requirement: Requirement, environment: dict[str, str]) -> bool:
    return requirement.marker is None or requirement.marker.evaluate(environment)


def lock_problems(
    pins: dict[str, list[Requirement]], wanted: list[Requirement], lock: str
) -> list[str]:
    """Every way ``pins`` fails ``wanted``: a dependency missing, not pinned to exactly one
    version, pinned outside its specifier, or without exactly one pin for the image."""
    problems = []
    for pin in (pin for lines in pins.values() for pin in lines):
        specifiers = list(pin.specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==":
            problems.append(f"{lock}: {pin} is not pinned to one version")
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{requirement} (pyproject.toml) is not in {lock}")
            continue
        for pin in pins[name]:
            version = Version(next(iter(pin.specifier)).version)
            if not requirement.specifier.contains(version, prereleases=True):
                problems.append(f"{lock} pins {pin} but pyproject.toml asks for {requirement}")
        for environment in IMAGE_PLATFORMS:
            chosen = [pin for pin in pins[name] if applies(pin, environment)]
            if len(chosen) != 1:
                problems.append(
                    f"{lock}: {requirement.name} needs one pin for Python 3.11 on Linux "
                    f"{environment['platform_machine']}, has {[str(c) for c in chosen]}"
                )
    return problems


@pytest.mark.parametrize(
    ("lock", "extras"),
    [("requirements.lock", [None]), ("requirements-dev.lock", [None, "dev"])],
)
def test_every_dependency_is_pinned_to_a_version_its_specifier_admits(
    lock: str, extras: list[str | None]
) -> None:
    wanted = [r for extra in extras for r in project_requirements(extra)]
    problems = lock_problems(read_lock(lock), wanted, lock)
    assert not problems, "\n".join(problems) + f"\n{REGENERATE}"


def test_a_stale_lock_is_caught() -> None:
    """What the check above reports when pyproject.toml moved on and the lock did not."""
    stale = parse_lock(
        "openskill==5.0.1\nnumpy>=1.26\npillow==13.0.0 ; python_version < '3.10'\n", "stale"
    )
    wanted = [Requirement(r) for r in ("openskill>=6,<7", "numpy>=1.26", "pillow>=10", "yarl")]
    assert lock_problems(stale, wanted, "stale.lock") == [
        "stale.lock: numpy>=1.26 is not pinned to one version",
        "stale.lock pins openskill==5.0.1 but pyproject.toml asks for openskill<7,>=6",
        "stale.lock: pillow needs one pin for Python 3.11 on Linux x86_64, has []",
        "stale.lock: pillow needs one pin for Python 3.11 on Linux aarch64, has []",
        "yarl (pyproject.toml) is not in stale.lock",
    ]


def test_the_dev_lock_runs_what_the_image_runs() -> None:
    """CI tests the very versions the Docker image installs."""
    runtime, dev = read_lock("requirements.lock"), read_lock("requirements-dev.lock")
    for name, pins in runtime.items():
        assert name in dev, f"{name} is in requirements.lock but not the dev lock; {REGENERATE}"
        assert sorted(map(str, pins)) == sorted(map(str, dev[name])), (
            f"{name} differs between the two locks; {REGENERATE}"
        )


# -- the Dockerfile ---------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    text = (PROJECT / "Dockerfile").read_text()
    text = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")),
    )
    instructions = []
    for line in text.splitlines():
        if line.strip():
            keyword, _, arguments = line.strip().partition(" ")
            instructions.append((keyword.upper(), " ".join(arguments.split())))
    return instructions


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, arguments in dockerfile_instructions():
        if keyword == "ENV":
            for part in shlex.split(arguments):
                key, _, value = part.partition("=")
                env[key] = value
    return env


def only(keyword: str) -> str:
    (arguments,) = [a for k, a in dockerfile_instructions() if k == keyword]
    return arguments


def env_file(text: str) -> dict[str, str]:
    """What ``docker run --env-file`` sets: KEY=VALUE lines taken literally (an empty
    value too), comments and blank lines skipped."""
    values = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value
    return values


def database_in_container(env_file_text: str, monkeypatch: pytest.MonkeyPatch) -> PurePosixPath:
    """Where the bot in the container puts its database, given the image's ENV and the
    host's env file (which wins over the image, as with docker run --env-file)."""
    for name in StorageSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    for key, value in {**image_env(), **env_file(env_file_text)}.items():
        monkeypatch.setenv(key, value)
    path = StorageSettings(_env_file=None).database_path  # type: ignore[call-arg]
    return PurePosixPath(only("WORKDIR")) / PurePosixPath(path)


def test_with_env_example_the_database_lands_on_the_data_volume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    volume = PurePosixPath(shlex.split(only("VOLUME").strip("[]").replace(",", " "))[0])
    assert volume == PurePosixPath("/data")
    database = database_in_container((PROJECT / ".env.example").read_text(), monkeypatch)
    assert database == PurePosixPath("/data/dicebot.db")
    assert database.is_relative_to(volume)
    # The user the bot runs as owns the volume's folder.
    assert only("USER") == "dicebot"
    run = " ".join(a for k, a in dockerfile_instructions() if k == "RUN")
    assert "useradd --create-home --uid 10001 dicebot" in run
    assert "chown dicebot:dicebot /data" in run


@pytest.mark.parametrize("line", ["DATABASE_PATH=data/dicebot.db", "DATABASE_PATH="])
def test_a_database_path_in_the_env_file_would_leave_the_volume(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why .env.example keeps DATABASE_PATH commented out: either line below (an empty
    value too: Docker sets it, and empty means the default) puts the data in /app."""
    database = database_in_container(f"DISCORD_TOKEN=x\n{line}\n", monkeypatch)
    assert not database.is_relative_to(PurePosixPath("/data"))


def test_the_image_installs_exactly_the_lock_file() -> None:
    steps = dockerfile_instructions()
    copies = [a for k, a in steps if k == "COPY"]
    runs = [a for k, a in steps if k == "RUN"]
    assert "requirements.lock ./" in copies
    install_lock = next(i for i, (k, a) in enumerate(steps) if "-r requirements.lock" in a)
    assert "--no-deps -r requirements.lock" in steps[install_lock][1]
    project = next(i for i, (k, a) in enumerate(steps) if "pip install" in a and " . " in f"{a} ")
    assert install_lock < project
    assert "pip install --no-cache-dir --no-deps ." in steps[project][1]
    assert any("pip check" in run for run in runs)
    # The code is copied after the dependencies, so a code change reuses their layer.
    first_code = next(i for i, (k, a) in enumerate(steps) if k == "COPY" and a.startswith("bot "))
    assert install_lock < first_code


def test_the_image_has_what_the_pictures_load_at_run_time() -> None:
    """The pictures ask Pillow for Raqm layout, which needs the system's FriBiDi."""
    pictures = (PROJECT / "bot" / "pictures" / "text.py").read_text()
    assert "Layout.RAQM" in pictures
    run = " ".join(a for k, a in dockerfile_instructions() if k == "RUN")
    assert "apt-get install -y --no-install-recommends libfribidi0" in run


def test_the_healthcheck_and_the_command_exist() -> None:
    healthcheck = only("HEALTHCHECK")
    assert "--start-period=60s" in healthcheck
    command = healthcheck.split("CMD", 1)[1].strip()
    assert command == '["python", "-m", "bot", "healthcheck"]'
    assert build_parser().parse_args(["healthcheck"]).command == "healthcheck"
    assert only("CMD") == '["python", "-m", "bot"]'  # exec form: the bot gets SIGTERM


def test_secrets_and_local_data_stay_out_of_the_image() -> None:
    ignored = set((PROJECT / ".dockerignore").read_text().split())
    assert {".env", "data", "*.db", "*.db-wal", "*.health", ".git"} <= ignored


def test_ci_installs_from_the_dev_lock_and_checks_it_is_complete() -> None:
    script = (PROJECT / ".ci" / "run").read_text()
    assert ".venv/bin/pip install -q --no-deps -r requirements-dev.lock" in script
    assert ".venv/bin/pip install -q --no-deps -e ." in script
    assert ".venv/bin/pip check" in script
