"""Colab rehearsal: each notebook, solutions filled in, runs top to bottom in student mode on a stand-in hub.

Student mode means no NBGRADER_EXECUTION, so every notebook takes its online branch: the unchanged
`from_pretrained("<id>")` / `load_dataset("<id>")` calls are answered offline by the stand-in hub
(assignments/demo/standin_hub.py). Sizes are the notebooks' own Colab settings; only the data the hub serves
is small. CPU only. The notebooks run in Colab's kernel: COLAB_PYTHON names the interpreter of a venv
built from one pins file in tests/colab_runtimes/ (Colab's IPython, ipykernel and libraries), while this
harness runs from the grading venv. `make rehearsal` (the current runtime, every test here) and `make
rehearsal-previous` (the previous runtime, the tests marked previous_runtime) set it; without it the
notebooks run in this interpreter's own kernel.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import subprocess
from datetime import datetime
from pathlib import Path

import nbclient
import nbformat
import psutil
import pytest

from assignments.course import REPO, default
from assignments.demo import standin_hub
from assignments.notebooks import grade_id
from tests.rehearsals.test_colab_runtimes import normalize, pins

# The line each online branch prints: it names what was loaded and how many examples came.
LEGAL_BERT_LINE = (
    r"Loaded google/bert_uncased_L-4_H-256_A-4 and nlpaueb/legal-bert-small-uncased from the "
    r"Hugging Face hub"
)
ONLINE_LINES = {
    "transformers": [
        r"Loaded google-bert/bert-base-uncased and stanfordnlp/imdb from the Hugging Face hub: "
        r"\d+ training and \d+ test examples"
    ],
    "rnn_attention": [
        r"Loaded google/bert_uncased_L-4_H-256_A-4 and nyu-mll/glue \(sst2\) from the Hugging Face "
        r"hub: \d+ training and \d+ validation examples",
        LEGAL_BERT_LINE,
        r"Loaded openai/clip-vit-base-patch32 from the Hugging Face hub: [\d,]+ parameters",
    ],
    "transfer_lm": [
        r"Loaded Salesforce/wikitext \(wikitext-2-raw-v1\) from the Hugging Face hub: \d+ training",
        r"Loaded cornell-movie-review-data/rotten_tomatoes from the Hugging Face hub: \d+ training",
    ],
}
# rnn_attention's optional corpus comparison is off as released. `make rehearsal` switches it on, so legal-bert's
# path runs on the current runtime; `make rehearsal-previous` (REHEARSE_OPTIONAL_PARTS=0) runs the notebooks
# as a student opens them, where that line is not printed.
WITH_OPTIONAL_PARTS = os.environ.get("REHEARSE_OPTIONAL_PARTS", "1") == "1"
OPTIONAL_LINES = {LEGAL_BERT_LINE}
# The line each notebook prints on a runtime without a GPU (this rehearsal has none): what it shrinks or keeps.
CPU_LINES = {
    "transformers": r"CPU RUNTIME \(no GPU\): Part 3 uses [\d,]+ training and [\d,]+ test reviews cut to 128 tokens",
    "rnn_attention": r"CPU RUNTIME \(no GPU\): Part 4's two experiments keep their sizes",
    "transfer_lm": r"CPU RUNTIME \(no GPU\): pre-training sees [\d,]+ of the [\d,]+ windows of WikiText-2, drawn at "
    r"random from the whole corpus \(seed 0; windows from each quarter of it: [\d,]+ / [\d,]+ / [\d,]+ / [\d,]+\), "
    r"for 2 epochs",
}
# A cell that runs longer than this must show a progress bar. Generous because this machine's 2 cores are
# shared; the setup cell is exempt (its time is importing torch, not a loop).
PROGRESS_AFTER_S = 20
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
OUR_WARNING = re.compile(r"ipykernel_\d+/\d+\.py:\d+: \w*Warning.*")


class RehearsalFailed(AssertionError):
    pass


# The interpreter of the Colab runtime's venv (absolute: the kernel starts in the notebook's folder).
COLAB_PYTHON = os.environ.get("COLAB_PYTHON")
KERNEL_NAME = "colab" if COLAB_PYTHON else "python3"


@pytest.fixture(scope="session")
def hub(tmp_path_factory):
    """The environment a rehearsed notebook runs in: the stand-in hub, written once per session by the
    runtime's own libraries (a checkpoint saved by a newer transformers may not load in Colab's), and the
    kernel spec that starts Colab's kernel."""
    root = tmp_path_factory.mktemp("standin_hub")
    if not COLAB_PYTHON:
        return standin_hub.build(root)
    subprocess.run(
        [COLAB_PYTHON, "-m", "assignments.demo.standin_hub", str(root)], cwd=REPO, check=True, capture_output=True
    )
    kernels = tmp_path_factory.mktemp("jupyter")
    spec = kernels / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [COLAB_PYTHON, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Colab", "language": "python"}))
    return {**standin_hub.cache_env(root), "JUPYTER_PATH": str(kernels)}


def student_notebook(assignment: str):
    """The source notebook with the solutions in place and the hidden tests removed."""
    nb = copy.deepcopy(default().assignment(assignment).source_notebook())
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = HIDDEN.sub("", cell.source)
    return nb


def _text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output["text"])
        elif "data" in output and "text/plain" in output["data"]:
            parts.append(output["data"]["text/plain"])
    return "".join(parts)


def _seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    try:
        start = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    except KeyError:
        return 0.0
    return (end - start).total_seconds()


def _has_progress_bar(cell) -> bool:
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "application/vnd.jupyter.widget-view+json" in data:
            return True
        if output.get("output_type") == "stream" and re.search(r"\d+%\|", output.get("text", "")):
            return True
    return False


def rehearse(nb, hub_env: dict, workdir: Path, monkeypatch, stop_after: str | None = None) -> dict:
    """Run `nb` in a fresh kernel in student mode on the stand-in hub; raise RehearsalFailed on any problem.

    Returns {"seconds": per-cell seconds, "figures": saved PNG paths, "text": all printed text}."""
    if stop_after is not None:
        keep = next(i for i, cell in enumerate(nb.cells) if grade_id(cell) == stop_after)
        nb.cells = nb.cells[: keep + 1]
    for key, value in hub_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    # Each cell's kernel CPU seconds beside its wall seconds: a cell's wait on an idle machine is about the
    # smaller of the two (one busy thread: wall = CPU; several threads: CPU > wall; a machine shared with
    # other test workers: wall > CPU), so the progress-bar rule does not depend on what else runs here.
    cpu_before, cpu_seconds = {}, {}

    def kernel_cpu():
        try:
            times = psutil.Process(client.km.provisioner.pid).cpu_times()
            return times.user + times.system
        except Exception:  # noqa: BLE001 - no reading: the rule falls back to wall time
            return None

    def on_cell_start(cell, cell_index):
        cpu_before[cell_index] = kernel_cpu()

    def on_cell_complete(cell, cell_index):
        before, after = cpu_before.get(cell_index), kernel_cpu()
        if before is not None and after is not None:
            cpu_seconds[cell_index] = after - before

    client = nbclient.NotebookClient(
        nb,
        timeout=1800,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(workdir)}},
        on_cell_start=on_cell_start,
        on_cell_complete=on_cell_complete,
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as error:
        failing = next(
            (c for c in nb.cells if any(o.get("output_type") == "error" for o in c.get("outputs", []))), None
        )
        where = grade_id(failing) if failing is not None else "?"
        message = ANSI.sub("", str(error))
        raise RehearsalFailed(
            f"cell {where!r} raised in student mode on the stand-in hub:\n{message[-1500:]}"
        ) from None
    text, seconds, figures, problems = "", {}, [], []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        name = grade_id(cell) or f"cell {index}"
        text += _text(cell)
        seconds[name] = _seconds(cell)
        for warning in OUR_WARNING.findall(_text(cell)):
            problems.append(f"{name}: the notebook's own code raised a warning: {warning}")
        pngs = [o["data"]["image/png"] for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        skipped = "Optional part skipped" in _text(cell)  # an optional part switched off draws nothing
        if "plt.show()" in cell.source and not pngs and not skipped:
            problems.append(f"{name}: calls plt.show() but rendered no figure")
        for k, png in enumerate(pngs):
            path = workdir / f"{name}-{k}.png"
            path.write_bytes(base64.b64decode(png))
            if not path.read_bytes().startswith(b"\x89PNG") or path.stat().st_size < 1000:
                problems.append(f"{name}: figure {k} is empty or not a PNG ({path.stat().st_size} bytes)")
            figures.append(path)
        waited = min(seconds[name], cpu_seconds.get(index, seconds[name]))
        if index > 1 and waited > PROGRESS_AFTER_S and not _has_progress_bar(cell):
            problems.append(f"{name}: ran {waited:.0f} s without a progress bar")
    if "OFFLINE FALLBACK" in text:
        line = next(line for line in text.splitlines() if "OFFLINE FALLBACK" in line)
        problems.append(f"the online branch did not run; the notebook fell back: {line}")
    if problems:
        raise RehearsalFailed("\n".join(problems))
    return {"seconds": seconds, "figures": figures, "text": text}


def assert_online(assignment: str, text: str) -> None:
    for pattern in ONLINE_LINES[assignment]:
        if pattern in OPTIONAL_LINES and not WITH_OPTIONAL_PARTS:
            continue
        assert re.search(pattern, text), (
            f"{assignment}: expected the online branch to print a line matching {pattern!r}; it did not"
        )


# What the kernel's interpreter reports: its Python and every distribution installed beside it.
INSTALLED = (
    "import json, platform; from importlib import metadata; "
    "print(json.dumps([platform.python_version(), {d.metadata['Name']: d.version for d in metadata.distributions()}]))"
)


@pytest.mark.previous_runtime
def test_the_kernel_holds_exactly_what_its_pins_file_says():
    """`make rehearsal` and `make rehearsal-previous` name the pins file in COLAB_PINS and the kernel's
    interpreter in COLAB_PYTHON. The kernel must hold every pinned version and nothing unpinned beside pip,
    or the rehearsal rehearses some other runtime."""
    if not (os.environ.get("COLAB_PINS") and COLAB_PYTHON):
        pytest.skip("run through `make rehearsal` or `make rehearsal-previous`, which name the runtime")
    python, pinned = pins(Path(os.environ["COLAB_PINS"]))
    reply = subprocess.run([COLAB_PYTHON, "-c", INSTALLED], check=True, capture_output=True, text=True).stdout
    version, installed = json.loads(reply)
    installed = {normalize(name): v for name, v in installed.items() if normalize(name) != "pip"}
    pinned = {normalize(name): v for name, v in pinned.items()}
    wrong = [
        f"{name} {installed.get(name, 'missing')} (pinned {v})"
        for name, v in pinned.items()
        if installed.get(name) != v
    ]
    wrong += [f"{name} {v} (not pinned)" for name, v in installed.items() if name not in pinned]
    if not version.startswith(python + "."):
        wrong.append(f"Python {version} (pinned {python})")
    assert not wrong, f"the kernel is not the runtime {os.environ['COLAB_PINS']} describes: {sorted(wrong)}"


def with_install_report(nb):
    """`nb` with a cell after the setup cell that prints what the setup cell had to install, and which
    interpreter the kernel runs."""
    report = 'print(f"setup cell installed: {_missing}")\nprint(f"kernel interpreter: {sys.executable}")'
    nb.cells.insert(2, nbformat.v4.new_code_cell(report))
    return nb


@pytest.mark.previous_runtime
@pytest.mark.parametrize("assignment", sorted(ONLINE_LINES))
def test_notebook_runs_its_online_branch_end_to_end_in_student_mode(assignment, hub, tmp_path, monkeypatch):
    nb = student_notebook(assignment)
    if assignment == "rnn_attention" and WITH_OPTIONAL_PARTS:
        nb = _corrupt(nb, "RUN_CORPUS_COMPARISON = False", "RUN_CORPUS_COMPARISON = True")
    if assignment == "transfer_lm":  # a sample smaller than the stand-in corpus, so that it is a sample
        nb = _corrupt(nb, "CPU_WINDOWS, CPU_EPOCHS = 4800, 2", f"CPU_WINDOWS, CPU_EPOCHS = {SAMPLED_WINDOWS}, 2")
    result = rehearse(with_install_report(nb), hub, tmp_path, monkeypatch)
    assert "setup cell installed: []" in result["text"], (
        f"{assignment}: on this runtime the setup cell should install nothing (Colab has every library), "
        f"but it printed: {next(line for line in result['text'].splitlines() if 'setup cell installed' in line)}"
    )
    if COLAB_PYTHON:
        assert f"kernel interpreter: {COLAB_PYTHON}\n" in result["text"], (
            f"{assignment}: the notebook should run in the Colab runtime's kernel ({COLAB_PYTHON})"
        )
    assert_online(assignment, result["text"])
    if assignment == "transformers":  # its change run (cell train_change) trains on the first run's features
        assert result["text"].count("BERT features cached in") == 1 and "BERT features reused" in result["text"], (
            "transformers: the second run should reuse the BERT features the first computed, once per session"
        )
    assert re.search(CPU_LINES[assignment], result["text"]), (
        f"{assignment}: without a GPU the notebook should announce its CPU configuration ({CPU_LINES[assignment]!r})"
    )
    if assignment == "transfer_lm":
        assert_sampled_across_the_corpus(result["text"])
    if assignment == "rnn_attention":  # cell cached_decoding: the key/value cache decodes as the full prefix does
        agree = re.search(r"cached and full decoding agree on (\d+) of (\d+) validation words", result["text"])
        assert agree and agree[1] == agree[2], "rnn_attention: cached decoding should give every word's translation"
    slowest = sorted(result["seconds"].items(), key=lambda item: -item[1])[:5]
    print(
        f"{assignment}: {sum(result['seconds'].values()):.0f} s in all; slowest cells {slowest}; "
        f"{len(result['figures'])} figures"
    )


# transfer_lm's CPU pre-training in the end-to-end rehearsal: the stand-in WikiText-2 holds fewer windows than
# the 4,800 the notebook samples (which would take them all), so the rehearsal asks for this many.
SAMPLED_WINDOWS = 24


def assert_sampled_across_the_corpus(text: str) -> None:
    """Colab's CPU runtime pre-trains transfer_lm on a seeded sample of WikiText-2's windows drawn from the whole
    corpus, not on its opening articles (#34): the CPU line counts the sample's windows in each quarter of the
    corpus. The first 24 windows would all lie in the first quarter; a sample of 24 out of the stand-in's windows
    (seed 0) has some in every quarter."""
    line = re.search(CPU_LINES["transfer_lm"], text).group(0)
    sampled, total = (int(n.replace(",", "")) for n in re.search(r"sees ([\d,]+) of the ([\d,]+)", line).groups())
    quarters = [int(n.replace(",", "")) for n in re.search(r"quarter of it: ([^)]*)\)", line).group(1).split(" / ")]
    print(f"transfer_lm: CPU pre-training sample of {sampled} of {total} windows, per quarter of the corpus {quarters}")
    assert sampled == SAMPLED_WINDOWS < total and sum(quarters) == sampled, (
        f"transfer_lm: expected a sample of {SAMPLED_WINDOWS} windows out of more, counted in the four quarters; "
        f"the CPU line says {sampled} of {total}, per quarter {quarters}"
    )
    assert all(quarters), f"transfer_lm: every quarter of the corpus should give windows to the sample: {quarters}"
    assert f"{SAMPLED_WINDOWS} training windows" in text, "transfer_lm: pre-training should train on the sample"


def _corrupt(nb, old: str, new: str):
    hits = [cell for cell in nb.cells if old in cell.source]
    assert hits, f"{old!r} no longer occurs in the notebook: update this test"
    for cell in hits:
        cell.source = cell.source.replace(old, new)
    return nb


@pytest.mark.parametrize(
    "assignment, sizes_cell", [("transformers", "tokenize_and_split"), ("transfer_lm", "pretrain_run")]
)
def test_full_size_on_cpu_keeps_the_gpu_configuration(assignment, sizes_cell, hub, tmp_path, monkeypatch):
    """The switch a student flips to run the GPU sizes on a CPU anyway: nothing shrinks, nothing is announced.
    Run up to the cell that decides the sizes (the full run itself is the GPU's)."""
    nb = _corrupt(student_notebook(assignment), "FULL_SIZE_ON_CPU = False", "FULL_SIZE_ON_CPU = True")
    result = rehearse(nb, hub, tmp_path, monkeypatch, stop_after=sizes_cell)
    assert "CPU RUNTIME" not in result["text"], f"{assignment}: FULL_SIZE_ON_CPU = True still shrank a part"
    assert re.search(ONLINE_LINES[assignment][0], result["text"]), f"{assignment}: the online branch did not run"


def test_a_wrong_dataset_id_fails_the_rehearsal_with_the_fallback_named(hub, tmp_path, monkeypatch):
    nb = _corrupt(student_notebook("transfer_lm"), '"Salesforce/wikitext"', '"Salesforce/wikitxt"')
    with pytest.raises(RehearsalFailed, match=r"online branch did not run; the notebook fell back"):
        rehearse(nb, hub, tmp_path, monkeypatch, stop_after="data_run")


def test_a_wrong_column_name_fails_the_rehearsal_with_the_error_message(hub, tmp_path, monkeypatch):
    nb = _corrupt(student_notebook("transformers"), 'tokenizer(batch["text"]', 'tokenizer(batch["review"]')
    with pytest.raises(RehearsalFailed, match=r"(?s)tokenize_and_split.*review"):
        rehearse(nb, hub, tmp_path, monkeypatch, stop_after="tokenize_and_split")
