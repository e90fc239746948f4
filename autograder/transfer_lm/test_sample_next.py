"""sample_next_tests: greedy, temperature, top-k and top-p decoding against the distribution they should draw
from, with the given generator and nothing else. Top-p is compared with a plain-Python oracle
(oracles.decoding_distribution): sort, running sum, renormalise.

The sampling checks compare frequencies with the oracle's probabilities over many independent rows. Each
run draws N = 20,000 rows from one score row, for three generator seeds; a frequency's standard deviation
is sqrt(p(1 - p) / N) <= 0.5 / sqrt(20,000) = 0.0035, so a bound of 0.02 is more than 5 sigma for every
id: a correct answer fails with probability below 1e-6 per id and seed (and the draws are seeded, so a
correct answer gives the same verdict every time). The mistakes these checks catch move some probability
by 0.1 or more.
"""

import torch

from assignments.grading.testkit import behaviour, expect, expect_shape, kernel_shape, question
from autograder.transfer_lm.oracles import decoding_distribution, nucleus_margin

N = 20_000
SEEDS = (11, 12, 13)
BOUND = 0.02
# One row of scores over 9 ids, spread so that temperatures and top-k move the probabilities a lot. No two
# scores tie (nor do the random rows' below): the skeleton lets ids tied with the k-th score be kept or cut.
ROW = torch.tensor([2.0, 1.2, 0.9, 0.3, 0.0, -0.4, -1.0, -2.5, 0.6])


def _frequencies(draws, ntoken):
    return torch.bincount(draws, minlength=ntoken).double() / draws.numel()


def _draw(student, scores, seed, **options):
    """The student's draws for every row of `scores` with a generator seeded `seed`, and the scores after."""
    out = student.run(
        "g = torch.Generator().manual_seed(seed)\n"
        "ids = sample_next(scores, generator=g, **options)\n"
        "result = {'ids': ids, 'scores': scores}",
        scores=scores,
        seed=seed,
        options=options,
    )
    ids = expect_shape(out["ids"], (scores.shape[0],), "the returned ids")
    expect(ids.dtype == torch.long, f"the ids should be a LongTensor (torch.long); got dtype {ids.dtype}")
    expect(bool(((ids >= 0) & (ids < scores.shape[1])).all()), "some returned ids are outside the vocabulary")
    expect(torch.equal(out["scores"], scores), "sample_next changed the scores tensor it was given")
    return ids


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "greedy is each row's argmax over the vocabulary, whatever top_k and top_p are",
    mutant="decode_greedy_over_batch",
)
def test_greedy_takes_each_rows_argmax(student):
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(6, 31, generator=g)  # batch 6, ntoken 31: rows differ
    for options in ({"temperature": 0}, {"temperature": 0, "top_k": 4}, {"temperature": 0, "top_p": 0.3}):
        out = student.run("result = sample_next(scores, **options)", scores=scores, options=options)
        ids = expect_shape(out, (6,), "the greedy ids")
        expect(
            torch.equal(ids.long(), scores.argmax(dim=-1)),
            "with temperature 0 each row's id should be the position of that row's largest score "
            "(argmax over the vocabulary, one id per row)",
        )


@question("sample_next_tests")
@behaviour("sample_next", "temperature divides the scores before the softmax", mutant="decode_temperature_multiplies")
@behaviour(
    "sample_next", "each row is drawn on its own (randomness across rows)", mutant="decode_one_draw_for_every_row"
)
@behaviour("sample_next", "draws come from the given generator (seeding)", mutant="decode_ignores_generator")
@behaviour(
    "sample_next",
    "torch's global random state is left alone (no reseeding of it)",
    mutant="decode_reseeds_global_from_generator",
)
@behaviour("sample_next", "another generator seed gives other draws", mutant="decode_reseeds_global_fixed")
@behaviour("sample_next", "the scores tensor is not modified (input mutation)", mutant="decode_scales_scores_in_place")
@behaviour(
    "sample_next",
    "a single row comes back with its batch axis: shape (1,) (stated in the skeleton)",
    mutant="decode_squeeze_drops_batch_of_one",
)
def test_temperature_sampling_follows_softmax_of_scaled_scores(student):
    scores = ROW.expand(N, -1).clone()
    for temperature in (0.5, 2.0):
        expected = torch.softmax(ROW.double() / temperature, dim=-1)
        for seed in SEEDS:
            ids = _draw(student, scores, seed, temperature=temperature)
            gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
            expect(
                gap < BOUND,
                f"temperature {temperature:g}: over {N:,} rows with the same scores, the frequency of some "
                f"id is {gap:.3f} away from softmax(scores / temperature) (allowed {BOUND}); divide the "
                f"scores by the temperature and draw each row on its own",
            )
    # Draws follow the generator argument and nothing else: generators seeded alike repeat a draw, another
    # seed gives other draws, and torch's global random state is as it was. An answer that ignores the
    # generator and reseeds the global one itself (from a fixed number, or from the generator's own seed)
    # repeats draws too, so only the last two checks see it. Two seeds giving the same 500 draws by chance:
    # at most (sum of p_i^2)^500 < 0.3^500 for this row.
    # A batch of one row (how continue_text calls it) keeps its batch dimension: shape (1,).
    out = student.run(
        "before = torch.get_rng_state()\n"
        "a = sample_next(scores, temperature=1.0, generator=torch.Generator().manual_seed(7))\n"
        "untouched = torch.equal(torch.get_rng_state(), before)\n"
        "b = sample_next(scores, temperature=1.0, generator=torch.Generator().manual_seed(7))\n"
        "c = sample_next(scores, temperature=1.0, generator=torch.Generator().manual_seed(8))\n"
        "one = sample_next(scores[:1], temperature=1.0, generator=torch.Generator().manual_seed(9))\n"
        "result = {'a': a, 'b': b, 'c': c, 'untouched': untouched, 'one': one}",
        scores=scores[:500],
    )
    expect(
        tuple(getattr(out["one"], "shape", ())) == (1,),
        f"for a single row of scores sample_next should return shape (1,); got "
        f"{kernel_shape(out['one'])}: squeeze only the sample dimension (squeeze(-1)), not every "
        f"dimension of size 1",
    )
    a, b, c = (expect_shape(out[key], (500,), "the returned ids") for key in ("a", "b", "c"))
    expect(
        torch.equal(a, b),
        "two calls with generators seeded alike gave different draws: draw with the generator argument",
    )
    expect(
        not torch.equal(a, c),
        "generators seeded differently gave the same draws: draw with the generator argument, not a seed of your own",
    )
    expect(
        out["untouched"] is True,
        "sample_next changed torch's global random state: draw only with the generator argument "
        "(no torch.manual_seed, no draw without generator=)",
    )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-k keeps exactly the k largest of each row, in their softmax proportions",
    mutant="decode_top_k_drops_the_kth",
)
def test_top_k_draws_only_the_k_best_in_their_softmax_proportions(student):
    scores = ROW.expand(N, -1).clone()
    for k, temperature in ((3, 1.0), (1, 1.0), (5, 0.7)):
        kept = ROW.topk(k).indices
        masked = torch.full_like(ROW, float("-inf")).double()
        masked[kept] = ROW[kept].double() / temperature
        expected = torch.softmax(masked, dim=-1)
        for seed in SEEDS[:2]:
            ids = _draw(student, scores, seed, temperature=temperature, top_k=k)
            outside = int((~torch.isin(ids, kept)).sum())
            expect(
                outside == 0, f"top_k={k}: {outside} of {N:,} draws are ids outside the {k} best scores of their row"
            )
            gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
            expect(
                gap < BOUND,
                f"top_k={k}, temperature {temperature:g}: the frequencies of the kept ids are up to {gap:.3f} "
                f"away from the softmax of the kept scores (allowed {BOUND})",
            )
    # Rows whose best ids differ: top-k is taken per row, over the vocabulary.
    g = torch.Generator().manual_seed(5)
    mixed = torch.randn(4000, 13, generator=g)
    ids = _draw(student, mixed, 21, temperature=1.0, top_k=2)
    best2 = mixed.topk(2, dim=-1).indices
    inside = (best2 == ids.unsqueeze(-1)).any(dim=-1)
    expect(
        bool(inside.all()),
        f"top_k=2 on rows with different scores: {int((~inside).sum())} of 4,000 draws fall outside their own "
        f"row's 2 best ids (keep the k largest of each row, over the vocabulary)",
    )


# Top-p cases on ROW: (temperature, top_k, top_p). The oracle's kept sets are {0, 1}, {0}, {0, 1, 2},
# {0, 1, 2, 8}, {0, 1, 2} and every id. Applying top-p before the temperature would keep {0, 1, 2, 3, 4, 8}
# at temperature 0.5 and {0, 1, 2} at 2.0. p lies at least 0.014 from every running sum of these rows, far
# beyond float32 rounding, so every correct order of operations gives the same sets.
TOP_P_CASES = ((1.0, None, 0.5), (1.0, None, 0.3), (0.5, None, 0.9), (2.0, None, 0.6), (0.7, 6, 0.8), (1.0, None, 1.0))
# Ties at the boundary: ids 1, 3 and 4 share the largest probability (0.186 each), ids 2 and 8 the next
# (0.113 each). With the smaller id first, p = 0.25 keeps {1, 3} and p = 0.6 keeps {1, 2, 3, 4}.
TIE_ROW = torch.tensor([0.0, 1.0, 0.5, 1.0, 1.0, -0.5, 0.2, -1.0, 0.5])


def _kept(row, temperature=1.0, top_k=None, top_p=None):
    return {i for i, q in enumerate(decoding_distribution(row.tolist(), temperature, top_k, top_p)) if q > 0}


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p keeps the smallest set reaching p, the id that reaches it included",
    mutant="decode_top_p_drops_the_crossing_id",
)
@behaviour("sample_next", "top-p keeps nothing beyond that set", mutant="decode_top_p_keeps_one_more")
@behaviour(
    "sample_next", "top-p after the temperature, on the scaled probabilities", mutant="decode_top_p_before_temperature"
)
@behaviour(
    "sample_next",
    "top-p: the smaller id first among equal probabilities at the boundary (stated in the skeleton)",
    mutant="decode_top_p_ties_larger_id_first",
)
@behaviour(
    "sample_next", "top-p: p outside (0, 1] raises ValueError (stated in the skeleton)", mutant="decode_top_p_unchecked"
)
def test_top_p_keeps_the_smallest_set_reaching_p(student):
    # Exact support: every draw lies in the oracle's kept set, and every kept id is drawn. The least likely
    # kept id of these cases has probability 0.0044 (p = 1, id 7), so it is missed in N = 20,000 draws with
    # probability (1 - 0.0044)^20000 < 1e-38; the others have 0.05 or more.
    for seed, (temperature, top_k, top_p) in enumerate(TOP_P_CASES, start=31):
        options = {"temperature": temperature, "top_k": top_k, "top_p": top_p}
        ids = _draw(student, ROW.expand(N, -1).clone(), seed, **options)
        want = _kept(ROW, temperature, top_k, top_p)
        drawn = set(ids.tolist())
        rule = f"top_p={top_p:g} at temperature {temperature:g}" + (f" after top_k={top_k}" if top_k else "")
        expect(
            drawn <= want,
            f"{rule}: some draws are ids outside the smallest set whose probabilities (after the temperature"
            f"{' and top-k' if top_k else ''}) reach p; keep ids in decreasing probability only until the running "
            f"sum reaches p",
        )
        expect(
            drawn >= want,
            f"{rule}: some ids of the smallest set reaching p were never drawn in {N:,} rows; the id whose "
            f"probability makes the running sum reach p belongs to the set"
            + (" (p = 1 keeps every id)" if top_p == 1 else ""),
        )
    for seed, (top_p, want) in enumerate(((0.25, {1, 3}), (0.6, {1, 2, 3, 4})), start=41):
        ids = _draw(student, TIE_ROW.expand(N, -1).clone(), seed, top_p=top_p)
        expect(
            set(ids.tolist()) == want,
            f"top_p={top_p:g} on a row with equal probabilities at the boundary: the kept ids should be "
            f"{sorted(want)}, taking the smaller id first among equal probabilities",
        )
    # Rows whose kept sets differ: top-p is taken per row. Rows where p lies within 1e-3 of a running sum
    # are left out of the verdict (float32 rounding could move their set by one id).
    mixed = torch.randn(4000, 13, generator=torch.Generator().manual_seed(6))
    ids = _draw(student, mixed, 22, top_p=0.6).tolist()
    clear = [r for r in range(len(mixed)) if nucleus_margin(mixed[r].tolist(), 0.6) > 1e-3]
    outside = sum(ids[r] not in _kept(mixed[r], top_p=0.6) for r in clear)
    expect(
        outside == 0,
        "top_p=0.6 on 4,000 rows with different scores: some draws fall outside their own row's smallest set "
        "reaching p (rank and sum each row on its own)",
    )
    for bad in (1.01, 0.0, -0.2):
        out = student.run(
            "try:\n"
            "    sample_next(scores, top_p=bad, generator=torch.Generator().manual_seed(0))\n"
            "    result = False\n"
            "except ValueError:\n"
            "    result = True",
            scores=ROW.expand(3, -1).clone(),
            bad=bad,
        )
        expect(out is True, f"top_p={bad:g} is outside (0, 1]: sample_next should raise ValueError")


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p: the kept ids drawn in their probabilities' proportions (renormalised by their sum; 5 sigma)",
    mutant="decode_top_p_softmax_of_probabilities",
)
@behaviour(
    "sample_next",
    "top-p frequencies: the id that reaches p drawn in its share",
    mutant="decode_top_p_drops_the_crossing_id",
)
@behaviour("sample_next", "top-p frequencies: no share for the id after the set", mutant="decode_top_p_keeps_one_more")
@behaviour(
    "sample_next",
    "top-p frequencies at temperature 2: the set of the scaled probabilities",
    mutant="decode_top_p_before_temperature",
)
def test_top_p_draws_the_kept_ids_in_renormalised_proportions(student):
    # The frequencies against the oracle's renormalised probabilities, with the module's bound: N = 20,000
    # rows per seed, a frequency's standard deviation at most 0.0035, and BOUND = 0.02 beyond 5.6 sigma.
    # Kept sets {0, 1, 2, 3, 4, 8} (temperature 1, p = 0.9) and {0, 1, 2, 3, 4, 5, 6, 8} (temperature 2,
    # p = 0.95); p = 1 must be plain sampling. The mistakes' largest shifts of an id's share, at
    # temperatures 1 and 2: a second softmax over the kept probabilities instead of dividing by their sum
    # 0.21 and 0.11; cutting the id that reaches p 0.058 and 0.055; keeping one id more 0.037 and 0.025;
    # choosing the set before the temperature 0 and 0.055 (it cuts an id of probability 0.054 at 2).
    scores = ROW.expand(N, -1).clone()
    for temperature, top_p, seeds in ((1.0, 0.9, SEEDS), (2.0, 0.95, SEEDS), (1.0, 1.0, SEEDS[:1])):
        expected = torch.tensor(decoding_distribution(ROW.tolist(), temperature, None, top_p), dtype=torch.float64)
        for seed in seeds:
            ids = _draw(student, scores, seed, temperature=temperature, top_p=top_p)
            gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
            expect(
                gap < BOUND,
                f"top_p={top_p:g} at temperature {temperature:g}: over {N:,} rows with the same scores, the "
                f"frequency of some id is further than {BOUND} from its probability divided by the kept ids' total "
                f"(the softmax of the temperature-scaled scores with the cut ids at -inf)",
            )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "sample_next",
        "top-k: ids tied with the k-th score kept or cut",
        "The skeleton accepts both and no test's scores tie at the k-th (the top-p ties come without top_k); the solution keeps ties, variant decode_sort_and_scatter keeps exactly k.",
    ),
    (
        "sample_next",
        "train vs eval mode, gradients",
        "sample_next receives plain scores and no model; continue_text, which is given, sets eval mode and no_grad.",
    ),
    (
        "sample_next",
        "dtype and device",
        "Scores come to it on the CPU as float32 (continue_text moves them); the tests send float32 CPU tensors.",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("sample_next", "scores", "(6, 31), (20000, 9), (500, 9), (1, 9), (4000, 13), (3, 9)", None),
    ("sample_next", "temperature", "0, 0.5, 2.0, 1.0, 0.7", None),
    ("sample_next", "top_k", "None, 1, 2, 3, 5, 6 with top_p, 4 at temperature 0", None),
    (
        "sample_next",
        "top_p",
        "None, 0.3, 0.5, 0.6, 0.8, 0.9, 0.95, 1.0, 0.25 and 0.6 at tied boundaries, 0.3 at temperature 0, 0.0, -0.2 and 1.01 (ValueError)",
        None,
    ),
    ("sample_next", "generator", "seeded 7, 8, 9, 11, 12, 13, 21", None),
]
