"""What transfer_lm's preference-tuning cell (`dpo_run`) costs on a CPU at the WikiText-2 sizes (issue #47, item 3).

The cell's work, at the real sizes with random weights (nothing downloaded, so no figure of quality): drawing
continuations token by token (a forward pass of the whole batch per token), the classifier's pass over them,
the reference's log-probabilities once, DPO steps (the policy's forward and backward over a batch of chosen and
rejected rows), the judging passes and the validation perplexity. Each piece is timed on a few repetitions and
scaled by how often the cell runs it. The language model is student_cpu.py's mirror of transfer_lm's Model.

    python benchmarks/dpo_cpu.py --threads 1 --out benchmarks/results/transfer_lm_dpo_cpu.json

CPU seconds over the thread count are reported beside wall seconds (a shared machine inflates the latter);
benchmarks/README.md multiplies by 1.9 for Colab's CPU runtime (results/colab_cpu_factor.json).
"""

import argparse
import json
import os
import platform
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from student_cpu import LM, LanguageModel  # noqa: E402

# transfer_lm.ipynb, cell `dpo_run` with WikiText-2 (mirrored, not imported: keep equal to the cell): 40 prompts of
# 3 words, continuations of up to 16 tokens, 4 pairs per prompt, 60 DPO steps per beta and two betas; on a CPU
# runtime batches of 16 pairs, 5 judged samples per prompt and 400 validation windows, else (a GPU, or
# FULL_SIZE_ON_CPU) 32, 10 and every window: WikiText-2's validation split, 217,646 tokens in Merity et al.'s count,
# makes about 3,400 windows of 64.
COMMON = dict(prompts=40, prompt_len=3, n_new=16, pairs_per_prompt=4, steps=60, betas=2, eval_batch=32)
CONFIGS = {
    "cpu": dict(COMMON, batch=16, judge_per_prompt=5, valid_windows=400),
    "full": dict(COMMON, batch=32, judge_per_prompt=10, valid_windows=3_400),
}


class Clock:
    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def timed(fn, repeats):
    fn()  # warm-up, untimed
    with Clock() as clock:
        for _ in range(repeats):
            fn()
    return clock.wall / repeats, clock.cpu / repeats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    ntoken, width = LM["ntoken"], COMMON["prompt_len"] + COMMON["n_new"]
    lm = LanguageModel(ntoken, LM["nhid"], LM["nhead"], LM["nlayers"], ntoken).eval()
    clf = LanguageModel(ntoken, LM["nhid"], LM["nhead"], LM["nlayers"], 2).eval()

    def mask(n):
        return nn.Transformer.generate_square_subsequent_mask(n)

    def sample(rows):  # one continuation of every row: a forward pass per token, as sample_continuations does
        ids = torch.randint(3, ntoken, (rows, COMMON["prompt_len"]))
        with torch.no_grad():
            for _ in range(COMMON["n_new"]):
                scores = lm(ids, mask(ids.size(1)))[:, -1]
                ids = torch.cat([ids, torch.multinomial(torch.softmax(scores, -1), 1)], dim=1)
            clf(ids, mask(ids.size(1)))

    def logprob_pass(rows):  # the reference's (or judge's) log-probabilities, no gradient
        with torch.no_grad():
            lm(torch.randint(3, ntoken, (rows, width)), mask(width)).log_softmax(-1)

    optimizer = torch.optim.Adam(lm.parameters(), lr=1e-3)

    def dpo_step(batch):  # chosen and rejected rows of one batch, forward and backward
        loss = sum(
            lm(torch.randint(3, ntoken, (batch, width)), mask(width)).log_softmax(-1)[..., 0].sum() for _ in range(2)
        )
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(lm.parameters(), 1.0)
        optimizer.step()

    def evaluate():  # one batch of evaluate_lm over 64-token windows
        with torch.no_grad():
            lm(torch.randint(3, ntoken, (COMMON["eval_batch"], LM["seq_len"])), mask(LM["seq_len"]))

    cache = {}

    def once(fn, *inputs):  # each distinct piece timed once, shared by the configurations
        if (fn, inputs) not in cache:
            cache[fn, inputs] = timed(lambda: fn(*inputs), args.repeats)
        return cache[fn, inputs]

    figures = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}, torch {torch.__version__}, {args.threads} thread(s)",
        "model": dict(ntoken=ntoken, nhid=LM["nhid"], nlayers=LM["nlayers"], nhead=LM["nhead"]),
    }
    for name, config in CONFIGS.items():
        pairs = config["prompts"] * config["pairs_per_prompt"]
        judged = config["prompts"] * config["judge_per_prompt"]
        runs = 1 + config["betas"]  # the pre-trained model and one policy per beta
        pieces = {  # name: ((seconds wall, seconds cpu) per call, calls in the cell)
            "sample the pairs' continuations": (once(sample, pairs), 2),
            "reference log-probabilities of chosen and rejected": (once(logprob_pass, pairs), 2),
            "DPO step": (
                once(dpo_step, config["batch"]),
                config["steps"] * config["betas"],
            ),
            "judge: fresh samples": (once(sample, judged), runs),
            "judge: model and reference log-probabilities": (
                once(logprob_pass, judged),
                2 * runs,
            ),
            "validation perplexity, one batch": (
                once(evaluate),
                -(-config["valid_windows"] // config["eval_batch"]) * runs,
            ),
        }
        figures[name] = {
            "configuration": config,
            "pieces": {
                piece: {"calls": calls, "wall_seconds_each": wall, "cpu_seconds_each": cpu}
                for piece, ((wall, cpu), calls) in pieces.items()
            },
            "total_minutes": sum(wall * calls for (wall, _), calls in pieces.values()) / 60,
            "total_minutes_from_cpu_time": sum(cpu * calls for (_, cpu), calls in pieces.values()) / args.threads / 60,
        }
    print(json.dumps(figures, indent=2))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
