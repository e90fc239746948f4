"""Hidden tests: BERT's masked-LM corruption (mask_inputs).

Statistical bounds. Each seed corrupts N = 64 * 1024 = 65,536 real tokens (plus 64 * 256 pads). For a
binomial proportion p over n trials sigma = sqrt(p (1 - p) / n); the bounds are about 5 sigma, so the
reference fails a bound with probability below 1e-6 per check (three seeds, a few checks each):
  selected (labelled)  p = 0.15   sigma = 0.00139  bound 0.0070
  replaced by [MASK]   p = 0.12   sigma = 0.00127  bound 0.0065
  changed at all       p = 0.135  sigma = 0.00134  bound 0.0067 (0.12 + 0.015 * 998/999 with V = 1000)
  among ~9,830 selected: random p = 0.0999, kept p = 0.1001, sigma = 0.0030, bound 0.015
  [MASK] among the ~980 selected tokens of one tenth of the positions: p = 0.8, sigma = 0.0128, bound 0.07
Independence of the selection: with each token selected on its own, the 64 row counts (1,024 tokens each)
and the 1,024 column counts (64 tokens each) are binomial, so D = sum (count - n p)^2 / (n p (1 - p)) is
about chi-square with 64 and 1,024 degrees of freedom. Wilson-Hilferty puts 5.3 sigma (probability 1e-7 on
each side) at [20.5, 143.5] for the rows and [801.8, 1282.3] for the columns. Exactly 15% of every row
gives D close to 0 for the rows; the same positions in every row give column counts of 0 or 64, D near
65,000.
Other rates (mask_rate 0.4 and 0.05 over 65,536 tokens): sigma 0.0019 and 0.00085, bounds 0.01 and 0.0045;
[MASK] among the ~26,000 and ~3,300 selected: sigma 0.0025 and 0.0070, bounds 0.0125 and 0.035.
A rate off the whole-percent grid (mask_rate 0.0125 over 256 * 1024 = 262,144 tokens): sigma = 0.000217, bound
0.0011 (5 sigma); a rate quantised to whole percents (1% or 2%) is off by 0.0025 or more, over 11 sigma.
Small vocabulary (6 ids, pad 3, [MASK] 9; every real token is id 1; rate 0.5 over 16,384 tokens): among
the ~1,640 selected tokens that are not [MASK], each of the ids 0, 2, 4, 5 is p = 0.1 (sigma 0.0074, bound
0.04) and id 1 p = 0.6 (kept, or drawn again; sigma 0.0121, bound 0.06); [MASK] among the ~8,190 selected
p = 0.8, sigma 0.0044, bound 0.025.
"""

import torch

from assignments.grading.testkit import behaviour, expect, question

V, MASK_ID, PAD = 1000, 1000, 0
SMALL_V, SMALL_MASK, SMALL_PAD = 6, 9, 3
ROWS, REAL, PADS = 64, 1024, 256
SEEDS = (11, 12, 13)

CALL = (
    "g = torch.Generator().manual_seed(seed)\n"
    "before = tokens.clone()\n"
    "masked, labels = mask_inputs(tokens, vocab, mask_id, pad_token_id=pad, mask_rate=rate,\n"
    "                             only_mask=only_mask, generator=g)\n"
    "result = {'masked': masked, 'labels': labels, 'unchanged': bool(torch.equal(before, tokens))}"
)


def batch(seed, low=1, high=V):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(low, high, (ROWS, REAL + PADS), generator=g)
    tokens[:, REAL:] = PAD
    return tokens


def corrupt(student, tokens, seed, vocab=V, mask_id=MASK_ID, pad=PAD, rate=0.15, only_mask=False):
    out = student.run(
        CALL, tokens=tokens, seed=seed, vocab=vocab, mask_id=mask_id, pad=pad, rate=rate, only_mask=only_mask
    )
    for key in ("masked", "labels"):
        expect(
            isinstance(out[key], torch.Tensor) and out[key].shape == tokens.shape,
            f"mask_inputs must return two tensors shaped like the input {tuple(tokens.shape)} ({key})",
        )
    return out


def dispersion(counts, n, p):
    """sum (count - n p)^2 / (n p (1 - p)): about chi-square with len(counts) degrees of freedom."""
    return (((counts.double() - n * p) ** 2).sum() / (n * p * (1 - p))).item()


@question("mask_inputs_tests")
@behaviour("mask_inputs", "rates: 15% selected, 80/10/10", mutant="mask_random_tokens_from_batch")
@behaviour(
    "mask_inputs",
    "randomness: each token selected on its own (row and column counts binomial)",
    mutant="mask_exact_count_per_row",
)
@behaviour(
    "mask_inputs", "randomness: sentences selected independently of one another", mutant="mask_same_positions_every_row"
)
def test_rates(student):
    for seed in SEEDS:
        tokens = batch(seed)
        out = corrupt(student, tokens, seed)
        real = tokens != PAD
        n = real.sum().item()
        chosen = (out["labels"] != -100) & real
        rows, columns = dispersion(chosen.sum(1), REAL, 0.15), dispersion(chosen[:, :REAL].sum(0), ROWS, 0.15)
        expect(
            20.5 <= rows <= 143.5 and 801.8 <= columns <= 1282.3,
            "the selection is not independent from token to token: the number of selected tokens varies "
            f"{'too little' if rows < 20.5 or columns < 801.8 else 'too much'} across the rows or the columns of "
            "a 64 x 1024 batch (each token must be selected on its own, with probability mask_rate: one random "
            "number per token, not a fixed count per row or the same positions in every row)",
        )
        selected = chosen.sum().item() / n
        masked = ((out["masked"] == MASK_ID) & real).sum().item() / n
        changed = ((out["masked"] != tokens) & real).sum().item() / n
        expect(
            abs(selected - 0.15) < 0.0070,
            f"about 15% of real tokens should be selected (labelled); got {100 * selected:.2f}%",
        )
        expect(
            abs(masked - 0.12) < 0.0065,
            f"about 12% of real tokens should become [MASK] (80% of 15%); got {100 * masked:.2f}%",
        )
        expect(
            abs(changed - 0.135) < 0.0067,
            f"about 13.5% of real tokens should change (12% [MASK] + 1.5% random); got {100 * changed:.2f}%",
        )


@question("mask_inputs_tests")
@behaviour("mask_inputs", "input mutation: tokens left unmodified", mutant="mask_input_modified_in_place")
@behaviour("mask_inputs", "pads never selected", mutant="mask_pads_selected")
@behaviour("mask_inputs", "labels -100 where nothing was selected", mutant="mask_labels_not_ignored")
@behaviour("mask_inputs", "dtype: outputs keep the input's integer dtype", mutant="mask_labels_not_ignored")
def test_invariants(student):
    tokens = batch(21)
    out = corrupt(student, tokens, 21)
    labels, masked = out["labels"], out["masked"]
    expect(out["unchanged"], "mask_inputs must not modify its input tensor (work on a copy)")
    expect(
        masked.dtype == tokens.dtype and labels.dtype == tokens.dtype,
        f"masked tokens and labels should keep the input's dtype ({tokens.dtype}); got {masked.dtype} and "
        f"{labels.dtype}",
    )
    selected = labels != -100
    expect(
        bool((labels[selected] == tokens[selected]).all()),
        "where a token is selected its label must be the original token id",
    )
    expect(
        bool((masked[~selected] == tokens[~selected]).all()),
        "tokens that were not selected (label -100) must stay as they were",
    )
    expect(not bool(selected[:, REAL:].any()), "padding tokens must never be selected (their label stays -100)")
    # a different pad id, and only_mask=True: every selected token becomes [MASK]
    other = batch(22)
    other[other == 7] = 8  # id 7 becomes the pad id: it must occur only in the padding
    other[:, REAL:] = 7
    out = corrupt(student, other, 22, pad=7, only_mask=True)
    selected = out["labels"] != -100
    expect(not bool(selected[:, REAL:].any()), "with pad_token_id=7 the pads (id 7) must never be selected")
    expect(bool((out["masked"][:, REAL:] == 7).all()), "padding tokens must come back unchanged")
    expect(
        bool((out["masked"][selected] == MASK_ID).all()) and bool((out["masked"][~selected] == other[~selected]).all()),
        "with only_mask=True every selected token must become [MASK] and nothing else may change",
    )
    fraction = selected.sum().item() / (ROWS * REAL)
    expect(
        abs(fraction - 0.15) < 0.0070,
        f"with only_mask=True about 15% of real tokens should still be selected; got {100 * fraction:.2f}%",
    )


@question("mask_inputs_tests")
@behaviour(
    "mask_inputs",
    "mask_rate followed (0.4, 0.05, and 0 and 1 at the ends), 80% [MASK] whatever it is",
    mutant="mask_ignores_rate",
)
@behaviour(
    "mask_inputs",
    "mask_rate 0 selects nothing, even in sentences of one token (no minimum of one per sentence)",
    mutant="mask_at_least_one_per_sentence",
    kind="degenerate",
)
def test_mask_rate_is_followed(student):
    for rate, seed, bound, mask_bound in ((0.4, 61, 0.01, 0.0125), (0.05, 62, 0.0045, 0.035)):
        tokens = batch(seed)
        out = corrupt(student, tokens, seed, rate=rate)
        real = tokens != PAD
        chosen = (out["labels"] != -100) & real
        selected = chosen.sum().item() / real.sum().item()
        expect(
            abs(selected - rate) < bound,
            f"with mask_rate={rate} about {100 * rate:g}% of the real tokens should be selected (labelled); got "
            f"{100 * selected:.2f}%",
        )
        share = ((out["masked"] == MASK_ID) & chosen).sum().item() / max(chosen.sum().item(), 1)
        expect(
            abs(share - 0.8) < mask_bound,
            f"with mask_rate={rate}, {100 * share:.1f}% of the selected tokens became [MASK]; mask_rate sets "
            "how many are selected, and 80% of those become [MASK] whatever it is",
        )
    # The ends of the range, on the edge shapes (one sentence; one-token sentences): rate 1 selects every
    # real token, rate 0 none, whatever the random numbers.
    one = torch.tensor([[5, 9, 2, 7, 4, PAD, PAD]])
    out = corrupt(student, one, 63, rate=1.0, only_mask=True)
    real = one != PAD
    expect(
        bool((out["labels"][real] == one[real]).all()) and bool((out["masked"][real] == MASK_ID).all()),
        "with mask_rate=1.0 and only_mask=True every real token must be selected and become [MASK] "
        "(checked on a batch of one sentence)",
    )
    column = torch.tensor([[3], [8], [1], [6], [2]])
    out = corrupt(student, column, 64, rate=0.0)
    expect(
        bool((out["labels"] == -100).all()) and torch.equal(out["masked"], column),
        "with mask_rate=0.0 no token may be selected or changed (checked on five sentences of one token)",
    )


@question("mask_inputs_tests", points=0.5)
@behaviour("mask_inputs", "randomness: independent choice per position", mutant="mask_first_80_percent_in_order")
def test_choices_independent_of_position(student):
    # Each selected token picks [MASK]/random/keep on its own; so [MASK] is ~80% of the selected tokens
    # in any region of the batch, for example the last rows and the last columns.
    for seed in SEEDS:
        tokens = batch(seed + 30)
        out = corrupt(student, tokens, seed + 30)
        selected = out["labels"] != -100
        is_mask = out["masked"] == MASK_ID
        regions = {
            "the last 6 rows": (slice(ROWS - 6, ROWS), slice(0, REAL)),
            "the last 102 real columns": (slice(0, ROWS), slice(REAL - 102, REAL)),
            "the first 102 columns": (slice(0, ROWS), slice(0, 102)),
        }
        for name, (rows, cols) in regions.items():
            n = selected[rows, cols].sum().item()
            expect(n > 0, f"no token was selected in {name} of a 64 x 1024 batch")
            share = (is_mask[rows, cols] & selected[rows, cols]).sum().item() / n
            expect(
                abs(share - 0.8) < 0.07,
                f"in {name} of the batch {100 * share:.1f}% of the selected tokens "
                f"became [MASK]; every selected token should choose independently "
                f"(80% [MASK] everywhere)",
            )


@question("mask_inputs_tests")
@behaviour(
    "mask_inputs",
    "random ids are the real ids whatever the pad id (pad in mid-vocabulary)",
    mutant="mask_random_assumes_pad_zero",
)
@behaviour("mask_inputs", "[MASK] is mask_token_id, which need not be vocab_size", mutant="mask_vocab_size_as_mask_id")
@behaviour(
    "mask_inputs",
    "randomness: random ids uniform over the vocabulary, never pad or [MASK]",
    mutant="mask_random_tokens_from_batch",
)
@behaviour(
    "mask_inputs",
    "the shift past the pad id at its exact boundary (>= pad_token_id, not >)",
    mutant="mask_random_skip_past_pad_strict",
    kind="boundary",
)
def test_random_replacements(student):
    for seed in SEEDS:
        tokens = batch(seed + 40, low=1, high=11)  # the batch only uses ids 1..10 of a vocabulary of 1000
        out = corrupt(student, tokens, seed + 40)
        selected = out["labels"] != -100
        masked = out["masked"]
        replaced = selected & (masked != MASK_ID) & (masked != tokens)
        kept = selected & (masked == tokens)
        n = selected.sum().item()
        expect(
            abs(replaced.sum().item() / n - 0.0999) < 0.015,
            f"about 10% of selected tokens should become a random token; got {100 * replaced.sum().item() / n:.1f}%",
        )
        expect(
            abs(kept.sum().item() / n - 0.1001) < 0.015,
            f"about 10% of selected tokens should stay unchanged; got {100 * kept.sum().item() / n:.1f}%",
        )
        values = masked[replaced]
        expect(
            bool(((values >= 0) & (values < V) & (values != PAD)).all()),
            "random replacements must be real token ids: in [0, vocab_size), never the pad id or [MASK]",
        )
        outside = (values > 10).float().mean().item()
        # uniform over the 998 other real ids: 989 of them lie above 10 (p = 0.991, n ~ 980)
        expect(
            outside > 0.95,
            f"random replacements should be drawn uniformly from the whole vocabulary; only "
            f"{100 * outside:.1f}% were outside the ids that occur in the batch",
        )
    # A small vocabulary whose pad id is in the middle and whose [MASK] id is not vocab_size: the random ids
    # must be exactly the real ones, 0, 1, 2, 4 and 5, each as likely, and [MASK] must be mask_token_id.
    tokens = torch.ones(32, 640, dtype=torch.long)
    tokens[:, 512:] = SMALL_PAD
    out = corrupt(student, tokens, 44, vocab=SMALL_V, mask_id=SMALL_MASK, pad=SMALL_PAD, rate=0.5)
    selected = out["labels"] != -100
    share = ((out["masked"] == SMALL_MASK) & selected).sum().item() / max(selected.sum().item(), 1)
    expect(
        abs(share - 0.8) < 0.025,
        f"with mask_token_id={SMALL_MASK} and vocab_size={SMALL_V}, {100 * share:.1f}% of the selected tokens "
        f"became id {SMALL_MASK}; [MASK] is mask_token_id (80% of the selected tokens), which need not be vocab_size",
    )
    values = out["masked"][selected & (out["masked"] != SMALL_MASK)]
    expect(
        bool(((values >= 0) & (values < SMALL_V) & (values != SMALL_PAD)).all()),
        f"with vocab_size={SMALL_V} and pad_token_id={SMALL_PAD} a random replacement must be one of the real ids "
        "0, 1, 2, 4, 5: in [0, vocab_size) and never the pad id, wherever the pad id lies",
    )
    n = max(values.numel(), 1)
    shares = {i: (values == i).sum().item() / n for i in (0, 2, 4, 5)}
    expect(
        all(abs(x - 0.1) < 0.04 for x in shares.values()) and abs((values == 1).sum().item() / n - 0.6) < 0.06,
        f"with vocab_size={SMALL_V} and pad_token_id={SMALL_PAD} the random replacements should be uniform over "
        f"the five real ids (each about 10% of the selected tokens that are not [MASK]); ids 0, 2, 4, 5 got "
        + ", ".join(f"{100 * x:.1f}%" for x in shares.values()),
    )


@question("mask_inputs_tests", points=0.5)
@behaviour("mask_inputs", "randomness: every draw from the given generator", mutant="mask_input_modified_in_place")
@behaviour(
    "mask_inputs",
    "randomness in every branch: the random replacement ids drawn from the generator too",
    mutant="mask_random_ids_ignore_generator",
    kind="randomness",
)
@behaviour(
    "mask_inputs",
    "state across calls: the caller's generator advances, so consecutive calls with it differ",
    mutant="mask_restarts_generator",
    kind="state",
)
def test_seeds(student):
    tokens = batch(50)[:8]
    code = (
        "outs = []\n"
        "for s in (1, 1, 2):\n"
        "    g = torch.Generator().manual_seed(s)\n"
        "    outs.append(mask_inputs(tokens, 1000, 1000, generator=g))\n"
        "g = torch.Generator().manual_seed(3)\n"
        "outs += [mask_inputs(tokens, 1000, 1000, generator=g), mask_inputs(tokens, 1000, 1000, generator=g)]\n"
        "result = [list(o) for o in outs]"
    )
    (m1, l1), (m1b, l1b), (m2, l2), (first, _), (second, _) = student.run(code, tokens=tokens)
    expect(
        torch.equal(m1, m1b) and torch.equal(l1, l1b),
        "two calls with generators seeded alike must give the same result (draw every random number from `generator`)",
    )
    expect(not torch.equal(l1, l2), "different generator seeds must select different tokens")
    expect(
        not torch.equal(first, second),
        "two consecutive calls with one generator gave the same masked tokens: draw from `generator` itself, so "
        "that it moves on from call to call (pre-training passes one generator to every step)",
    )


@question("mask_inputs_tests", points=0.5)
@behaviour(
    "mask_inputs",
    "a mask_rate off the whole-percent grid (0.0125) is followed",
    mutant="mask_rate_in_whole_percents",
    kind="non-integer",
)
@behaviour("mask_inputs", "mask_rate followed at 0.0125 too", mutant="mask_ignores_rate")
@behaviour("mask_inputs", "each token selected on its own at 0.0125 too", mutant="mask_same_positions_every_row")
def test_rate_off_the_percent_grid(student):
    # 0.0125 is 1.25%: a selection that compares a random whole percent with the rate (randint(0, 100) <
    # round(100 * mask_rate)) follows every rate the other tests use (0.05, 0.15, 0.4, 0.5, 0 and 1) and
    # selects 1% or 2% here. The bound is in the module docstring.
    g = torch.Generator().manual_seed(71)
    tokens = torch.randint(1, V, (256, 1024), generator=g)
    out = corrupt(student, tokens, 71, rate=0.0125)
    selected = (out["labels"] != -100).float().mean().item()
    expect(
        abs(selected - 0.0125) < 0.0011,
        f"with mask_rate=0.0125 about 1.25% of the real tokens should be selected (labelled); got "
        f"{100 * selected:.2f}%: select each token with probability mask_rate itself, e.g. torch.rand(...) < "
        "mask_rate, whatever the rate (not only whole percents)",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "mask_inputs",
        "randomness: which calls draw from the generator, in which order",
        "Only rates, independence and seeding are checked, so any order passes; variants mask_one_uniform_per_token and mask_bernoulli_multinomial keep full marks.",
    ),
    (
        "mask_inputs",
        "validation order",
        "It checks no argument, and its special cases (pads, only_mask) are separate masks with no order between them, each tested.",
        "validation-order",
    ),
    (
        "mask_inputs",
        "a sort's ties",
        "mask_inputs sorts nothing: each token's draw is compared with a rate.",
        "ties",
    ),
    (
        "mask_inputs",
        "device of what it makes",
        "tokens are a long CPU tensor by contract and the generator the caller passes is a CPU generator, whose draws live on the CPU: nothing it makes can be elsewhere (the dtype row checks the outputs keep the input's dtype).",
        "device",
    ),
    (
        "mask_inputs",
        "optimisation steps",
        "It takes no optimisation step.",
        "step-tolerance",
    ),
    (
        "mask_inputs",
        "a batch of one",
        "It works elementwise on (batch, seq) and reshapes nothing; a batch of one sentence (1, 7) and sentences of one token (5, 1) run in test_mask_rate_is_followed.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("mask_inputs", "tokens", "(64, 1280), (8, 1280), (32, 640), (256, 1024), (1, 7), (5, 1)", None),
    ("mask_inputs", "vocab_size", "6, 1000", None),
    ("mask_inputs", "mask_token_id", "9, 1000", None),
    ("mask_inputs", "pad_token_id", "0, 3, 7", None),
    ("mask_inputs", "mask_rate", "0.0, 0.0125, 0.05, 0.15, 0.4, 0.5, 1.0", None),
    ("mask_inputs", "only_mask", "False, True", None),
    (
        "mask_inputs",
        "generator",
        "generators seeded 1, 2, 11-13, 21, 22, 41-44, 51-53, 61-64, 71, and one generator seeded 3 passed to two calls",
        None,
    ),
]
