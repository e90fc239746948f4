"""Write a Colab rehearsal pins file from the package list Colab publishes for one runtime version.

Colab publishes what its runtimes hold in the googlecolab/backend-info repository: `pip-freeze.gpu.txt`
(the GPU runtime's `pip freeze`), `os-info-gpu.txt` (its Ubuntu and Python), and in README.md the
commit of each past runtime version that Colab's runtime-version chooser offers. From a clone of that
repository this prints a pins file for tests/colab_runtimes/: every distribution the release notebooks
and their kernel import, and everything those need in turn, at the version in Colab's list.

    git clone https://github.com/googlecolab/backend-info /tmp/backend-info
    python tests/colab_runtimes/read_backend_info.py /tmp/backend-info latest > tests/colab_runtimes/current.txt
    python tests/colab_runtimes/read_backend_info.py /tmp/backend-info 2026.07 > tests/colab_runtimes/previous.txt

"latest" is the newest commit (what a new Colab session gets by default); a version such as 2026.07 is
looked up in the README's list of past runtime versions. pip, run by that runtime's Python from pyenv,
finds what the roots below need (`pip install --dry-run` with Colab's list as constraints: nothing is
installed). The rehearsal installs the file with `pip --no-deps`, so nothing else decides a version.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# What the release notebooks import (their setup cells and the parts that load checkpoints and images), and
# what Colab has that changes how those behave when present: transformers uses accelerate and, for CLIP's
# image processor, torchvision.
NOTEBOOK_ROOTS = (
    "torch",
    "torchvision",
    "transformers",
    "datasets",
    "tokenizers",
    "huggingface_hub",
    "safetensors",
    "accelerate",
    "numpy",
    "matplotlib",
    "pillow",
    "tqdm",
)
# What runs the notebooks: Colab's kernel (IPython and ipykernel) and the widgets that tqdm.auto draws
# its progress bars with.
KERNEL_ROOTS = ("ipython", "ipykernel", "ipywidgets")
# PyPI serves torch built against one CUDA release and bringing that release's libraries as dependencies;
# Colab installs a build for another CUDA release from PyTorch's own index. These libraries therefore come
# as PyPI's torch asks (the rehearsal runs on the CPU, where none of them is loaded).
CUDA_LIBRARY = re.compile(r"^(nvidia-|cuda-)")
FREEZE, OS_INFO = "pip-freeze.gpu.txt", "os-info-gpu.txt"


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def runtime_commit(repo: Path, runtime: str) -> str:
    """The commit of `runtime`: the newest one for "latest", else the one Colab's README names for it."""
    if runtime == "latest":
        return git(repo, "rev-parse", "HEAD").strip()
    readme = git(repo, "show", "HEAD:README.md")
    section = re.search(rf"^### {re.escape(runtime)}\n(.*?)(?=^### |^## |\Z)", readme, re.M | re.S)
    if section is None:
        sys.exit(
            f"Colab's README names no runtime version {runtime!r}; it lists {re.findall(r'^### (.+)', readme, re.M)}"
        )
    return re.search(r"backend-info/tree/([0-9a-f]{40})", section.group(1)).group(1)


def colab_versions(freeze: str) -> dict[str, tuple[str, str]]:
    """{normalized name: (name as Colab spells it, version)} for the `name==version` lines of a pip freeze."""
    versions = {}
    for line in freeze.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$", line.strip())
        if match:
            versions[normalize(match.group(1))] = match.group(1), match.group(2)
    return versions


def pyenv_python(minor: str) -> Path:
    found = sorted(
        Path.home().glob(f".pyenv/versions/{minor}.*/bin/python"),
        key=lambda p: [int(x) for x in p.parts[-3].split(".")],
    )
    if not found:
        sys.exit(f"Python {minor} is not in ~/.pyenv/versions: pyenv install {minor}")
    return found[-1]


def resolve(python: Path, versions: dict[str, tuple[str, str]]) -> list[dict]:
    """What pip would install for the roots on `python` with Colab's versions as constraints."""
    with tempfile.TemporaryDirectory() as scratch:
        constraints = Path(scratch, "colab.txt")
        constraints.write_text(
            "".join(
                f"{name}=={version.split('+')[0]}\n"
                for key, (name, version) in versions.items()
                if not CUDA_LIBRARY.match(key)
            )
        )
        report = Path(scratch, "report.json")
        subprocess.run(
            [str(python), "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report",
             str(report), "-c", str(constraints), *NOTEBOOK_ROOTS, *KERNEL_ROOTS],
            check=True,
        )  # fmt: skip
        return [item["metadata"] for item in json.loads(report.read_text())["install"]]


def pins_file(runtime: str, commit: str, committed: str, colab_python: str, python: Path, resolved, versions) -> str:
    """The pins file's text: a header that says where each fact comes from, then one pin per line."""
    minor = ".".join(colab_python.split(".")[:2])
    here = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    pins, left_out = [], []
    cuda = next((m["version"] for m in resolved if normalize(m["name"]) == "cuda-toolkit"), "(none)")
    for meta in sorted(resolved, key=lambda m: normalize(m["name"])):
        key, version = normalize(meta["name"]), meta["version"]
        colab = versions.get(key)
        if CUDA_LIBRARY.match(key):
            pins.append(f"{meta['name']}=={version}  # for PyPI's torch; Colab's list: {colab[1] if colab else 'none'}")
        elif colab is None:
            left_out.append(meta["name"])
        elif colab[1] != version:  # only a local label can differ (the constraints fixed the release)
            pins.append(
                f"{meta['name']}=={version}  # Colab has {colab[1]}: PyPI serves this release without that build"
            )
        else:
            pins.append(f"{meta['name']}=={version}")
    name = "Latest" if runtime == "latest" else runtime
    lines = [
        f"# Colab's runtime version {name}: every distribution the release notebooks and their kernel import, and",
        "# everything those need, at Colab's versions. The rehearsal installs this file alone, --no-deps (Makefile).",
        f"# runtime: {name}",
        f"# source: googlecolab/backend-info commit {commit} ({committed}), {FREEZE} and {OS_INFO}",
        f"# read: {datetime.date.today().isoformat()} by tests/colab_runtimes/read_backend_info.py",
        f"# python: {minor}",
        f"# Colab's Python is {colab_python}; the rehearsal uses pyenv's {here} (the patch release pyenv has here).",
        f"# roots: {' '.join(NOTEBOOK_ROOTS + KERNEL_ROOTS)}",
        f"# torch: Colab's is {versions['torch'][1]}, from PyTorch's own index. PyPI serves that release built for the",
        f"# CUDA of cuda-toolkit {cuda}, and asks for that CUDA's libraries (nvidia-*, cuda-*), which stand here in",
        "# place of Colab's. The rehearsal runs on the CPU, where none of them loads.",
    ]
    if left_out:
        lines.append(
            f"# left out, as on Colab (asked for by a package above, absent from Colab's list): {' '.join(left_out)}"
        )
    return "\n".join(lines + pins) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a clone of googlecolab/backend-info")
    parser.add_argument("runtime", help='"latest", or a past runtime version from its README (e.g. 2026.07)')
    parser.add_argument("--python", type=Path, help="the interpreter that resolves (default: pyenv's, Colab's minor)")
    args = parser.parse_args(argv)
    commit = runtime_commit(args.repo, args.runtime)
    committed = git(args.repo, "log", "-1", "--format=%cs", commit).strip()
    versions = colab_versions(git(args.repo, "show", f"{commit}:{FREEZE}"))
    colab_python = re.search(r"^Python (\S+)", git(args.repo, "show", f"{commit}:{OS_INFO}"), re.M).group(1)
    python = args.python or pyenv_python(".".join(colab_python.split(".")[:2]))
    resolved = resolve(python, versions)
    sys.stdout.write(pins_file(args.runtime, commit, committed, colab_python, python, resolved, versions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
