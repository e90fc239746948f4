"""sample_next_tests: greedy, temperature, top-k and top-p decoding against the distribution they should draw
from, with the given generator and nothing else. Top-p is compared with a plain-Python oracle
(oracles.decoding_distribution): sort, running sum, renormalise.

The sampling checks compare frequencies with the oracle's probabilities over many independent rows drawn
from one score row. A frequency's standard deviation is sqrt(p(1 - p) / n) <= 0.5 / sqrt(n) over n rows, and
each bound is 5.6 of them for every id: a correct answer fails with probability below 1e-7 per id and seed
(and the draws are seeded, so a correct answer gives the same verdict every time). Two sizes:
- N = 20,000 rows (standard deviation at most 0.0035, BOUND = 0.02), for three generator seeds, where a
  mistake moves an id's share by as little as 0.025: the renormalised top-p proportions.
- N_SHAPE = 4,000 rows (at most 0.0079, BOUND_SHAPE = 0.045) everywhere else, where the mistakes move some
  probability by 0.1 or more, or draw an id that must never be drawn. Fewer rows keep an answer that loops
  over the rows in Python within seconds: such an answer is correct and gets graded too.

The scores come in every float dtype and far from 0 (shifted by up to 1e10), and on two stand-ins for a GPU:
the 'meta' device (shapes without values) and ELSEWHERE's device, which holds values, so that code reading
them (.item(), a loop over rows) runs and the device of what comes back can be checked.
"""

import math

import torch

from assignments.grading.testkit import behaviour, expect, expect_shape, kernel_shape, question, vocabulary
from autograder.transfer_lm.oracles import decoding_distribution, nucleus_margin

N = 20_000
BOUND = 0.02
N_SHAPE = 4_000
BOUND_SHAPE = 0.045
SEEDS = (11, 12, 13)
# One row of scores over 9 ids, spread so that temperatures and top-k move the probabilities a lot. No two
# scores tie (nor do the random rows' below): the skeleton lets ids tied with the k-th score be kept or cut.
ROW = torch.tensor([2.0, 1.2, 0.9, 0.3, 0.0, -0.4, -1.0, -2.5, 0.6])


def _frequencies(draws, ntoken):
    return torch.bincount(draws, minlength=ntoken).double() / draws.numel()


def _draw(student, scores, seed, keep_scores=True, **options):
    """The student's draws for every row of `scores` with a generator seeded `seed`, checking that the scores
    come back unchanged (keep_scores=False skips that round trip for large score tensors)."""
    out = student.run(
        "g = torch.Generator().manual_seed(seed)\n"
        "ids = sample_next(scores, generator=g, **options)\n"
        "result = {'ids': ids, 'scores': scores if keep else None}",
        scores=scores,
        seed=seed,
        options=options,
        keep=keep_scores,
    )
    ids = expect_shape(out["ids"], (scores.shape[0],), "the returned ids")
    expect(ids.dtype == torch.long, f"the ids should be a LongTensor (torch.long); got dtype {ids.dtype}")
    expect(bool(((ids >= 0) & (ids < scores.shape[1])).all()), "some returned ids are outside the vocabulary")
    if keep_scores:
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
    kind="batch-of-one",
)
@behaviour(
    "sample_next",
    "temperatures that are not whole numbers (0.5) divide the scores: multiplying agrees at temperature 1 only",
    mutant="decode_temperature_multiplies",
    kind="non-integer",
)
@behaviour(
    "sample_next",
    "plain temperature sampling repeats with generators seeded alike",
    mutant="decode_plain_sampling_categorical",
)
def test_temperature_sampling_follows_softmax_of_scaled_scores(student):
    scores = ROW.expand(N_SHAPE, -1).clone()
    for temperature in (0.5, 2.0):
        expected = torch.softmax(ROW.double() / temperature, dim=-1)
        for seed in SEEDS:
            ids = _draw(student, scores, seed, temperature=temperature)
            gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
            expect(
                gap < BOUND_SHAPE,
                f"temperature {temperature:g}: over {N_SHAPE:,} rows with the same scores, the frequency of some "
                f"id is {gap:.3f} away from softmax(scores / temperature) (allowed {BOUND_SHAPE}); divide the "
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
@behaviour(
    "sample_next",
    "top-k at temperature 0.7: the kept scores divided by the temperature",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next",
    "top-k leaves the scores tensor as it was",
    mutant="decode_scales_scores_in_place",
)
def test_top_k_draws_only_the_k_best_in_their_softmax_proportions(student):
    scores = ROW.expand(N_SHAPE, -1).clone()
    for k, temperature in ((3, 1.0), (1, 1.0), (5, 0.7)):
        kept = ROW.topk(k).indices
        masked = torch.full_like(ROW, float("-inf")).double()
        masked[kept] = ROW[kept].double() / temperature
        expected = torch.softmax(masked, dim=-1)
        for seed in SEEDS[:2]:
            ids = _draw(student, scores, seed, temperature=temperature, top_k=k)
            outside = int((~torch.isin(ids, kept)).sum())
            expect(
                outside == 0,
                f"top_k={k}: {outside} of {N_SHAPE:,} draws are ids outside the {k} best scores of their row",
            )
            gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
            expect(
                gap < BOUND_SHAPE,
                f"top_k={k}, temperature {temperature:g}: the frequencies of the kept ids are up to {gap:.3f} "
                f"away from the softmax of the kept scores (allowed {BOUND_SHAPE})",
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
@behaviour(
    "sample_next",
    "top-p: a NaN p raises ValueError too (every comparison with NaN is False, so `p <= 0 or p > 1` lets it through)",
    mutant="decode_nan_top_p_accepted",
    kind="degenerate",
)
@behaviour(
    "sample_next",
    "top-p is taken per row: each row's own set size",
    mutant="decode_top_p_one_count_for_batch",
)
@behaviour(
    "sample_next",
    "top-p sets at temperatures 0.5 and 2: the probabilities of the divided scores",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next",
    "top-p leaves the scores tensor as it was",
    mutant="decode_scales_scores_in_place",
)
@behaviour(
    "sample_next",
    "top-p per row on 4,000 different rows: not the batch's widest nucleus in every row",
    mutant="decode_top_p_widest_nucleus",
)
def test_top_p_keeps_the_smallest_set_reaching_p(student):
    # Exact support: every draw lies in the oracle's kept set, and every kept id is drawn. The least likely
    # kept id of these cases has probability 0.0044 (p = 1, id 7), so it is missed in N_SHAPE = 4,000 draws with
    # probability (1 - 0.0044)^4000 < 3e-8; the others have 0.05 or more.
    for seed, (temperature, top_k, top_p) in enumerate(TOP_P_CASES, start=31):
        options = {"temperature": temperature, "top_k": top_k, "top_p": top_p}
        ids = _draw(student, ROW.expand(N_SHAPE, -1).clone(), seed, **options)
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
            f"{rule}: some ids of the smallest set reaching p were never drawn in {N_SHAPE:,} rows; the id whose "
            f"probability makes the running sum reach p belongs to the set"
            + (" (p = 1 keeps every id)" if top_p == 1 else ""),
        )
    for seed, (top_p, want) in enumerate(((0.25, {1, 3}), (0.6, {1, 2, 3, 4})), start=41):
        ids = _draw(student, TIE_ROW.expand(N_SHAPE, -1).clone(), seed, top_p=top_p)
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
    for bad in (1.01, 0.0, -0.2, float("nan")):
        out = student.run(
            "try:\n"
            "    sample_next(scores, top_p=bad, generator=torch.Generator().manual_seed(0))\n"
            "    result = False\n"
            "except ValueError:\n"
            "    result = True",
            scores=ROW.expand(3, -1).clone(),
            bad=bad,
        )
        expect(
            out is True,
            f"top_p={bad:g} is outside (0, 1]: sample_next should raise ValueError"
            + (" (NaN too: every comparison with NaN is False, so check that 0 < p <= 1 holds)" if bad != bad else ""),
        )


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
@behaviour(
    "sample_next",
    "top-p frequencies at temperature 2: the divided scores",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next",
    "top-p frequencies: the scores tensor left as it was",
    mutant="decode_scales_scores_in_place",
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


# ----------------------------------------------------------------------------- greedy: ties, order, no draw
@question("sample_next_tests")
@behaviour(
    "sample_next",
    "greedy on tied best scores gives the smallest of those ids (torch.argmax), at 7, 45, 4,096 and 20,003 ids",
    mutant="decode_greedy_topk_ties",
    kind="ties",
)
@behaviour(
    "sample_next",
    "greedy on tied best scores is not a draw among them (no sampling at a tiny temperature)",
    mutant="decode_greedy_as_tiny_temperature",
    kind="ties",
)
@behaviour(
    "sample_next",
    "greedy gives one id per row (argmax over the vocabulary)",
    mutant="decode_greedy_over_batch",
)
def test_greedy_gives_the_first_of_tied_best_ids(student):
    # Row 0: every score equal; row 1: two ids tie for the best; row 2: three ids tie for the best; row 3:
    # rounded random scores (ties everywhere). torch.topk(1) returns another of the tied ids at 7 and 45 ids.
    g = torch.Generator().manual_seed(4)
    for ntoken in (7, 45, 4096, 20003):
        scores = torch.zeros(4, ntoken)
        scores[1, [3, ntoken - 2]] = 1.0
        scores[2, [ntoken // 3, ntoken // 2, ntoken - 1]] = 2.0
        scores[3] = (2 * torch.randn(ntoken, generator=g)).round()
        out = student.run("result = sample_next(scores, temperature=0)", scores=scores)
        ids = expect_shape(out, (4,), "the greedy ids")
        expect(
            torch.equal(ids.long(), scores.argmax(dim=-1)),
            f"with temperature 0 on rows of {ntoken:,} scores whose largest value is shared by several ids, each "
            f"row's id should be the smallest of them, as torch.argmax over the vocabulary gives",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "temperature 0 returns before top_p is checked: an invalid top_p is not looked at (stated in the skeleton)",
    mutant="decode_validates_top_p_before_greedy",
    kind="validation-order",
)
@behaviour(
    "sample_next",
    "temperature 0 is the special case taken first: no scaling, no top_p check, no draw",
    mutant="decode_greedy_as_tiny_temperature",
    kind="validation-order",
)
@behaviour(
    "sample_next",
    "temperature 0 draws nothing: the given generator and torch's global random state stay as they were",
    mutant="decode_greedy_as_tiny_temperature",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "greedy with top_k or top_p still gives one id per row",
    mutant="decode_greedy_over_batch",
)
@behaviour(
    "sample_next",
    "temperature 0.0 (a float) is greedy as 0 is: the identity test `temperature is 0` misses it",
    mutant="decode_temperature_is_zero",
    kind="non-integer",
)
@behaviour(
    "sample_next",
    "temperature 0 returns before top_k is looked at: top_k=0 and top_k above ntoken are ignored (stated)",
    mutant="decode_top_k_before_greedy",
    kind="validation-order",
)
def test_greedy_comes_before_every_check_and_draws_nothing(student):
    scores = torch.randn(5, 45, generator=torch.Generator().manual_seed(8))
    cases = [({"top_p": 1.5}, 0), ({"top_p": 0.0}, 0.0), ({"top_p": -0.3}, 0), ({"top_k": 4, "top_p": 2.0}, 0.0)]
    cases += [({"top_k": 3}, 0), ({"top_k": 0}, 0), ({"top_k": 50}, 0.0), ({"top_k": 3, "top_p": 0.5}, 0.0)]
    for options, zero in cases:
        out = student.run(
            "global_before = torch.get_rng_state()\n"
            "g = torch.Generator().manual_seed(3)\n"
            "g_before = g.get_state()\n"
            "try:\n"
            "    plain = sample_next(scores, temperature=zero, **options)\n"
            "    seeded = sample_next(scores, temperature=zero, generator=g, **options)\n"
            "    raised = False\n"
            "except Exception as error:\n"
            "    plain = seeded = None\n"
            "    raised = type(error).__name__\n"
            "result = {'raised': raised, 'plain': plain, 'seeded': seeded,\n"
            "          'global_untouched': torch.equal(torch.get_rng_state(), global_before),\n"
            "          'generator_untouched': torch.equal(g.get_state(), g_before)}",
            scores=scores,
            options=options,
            zero=zero,
        )
        shown = f"temperature={zero!r}, " + ", ".join(f"{key}={value}" for key, value in options.items())
        expect(
            out["raised"] is False,
            f"{shown} raised {vocabulary(out['raised'], 'an exception')}: temperature 0 (0 or 0.0) is greedy, and then top_k and top_p are not "
            f"looked at, not even checked (greedy comes first)",
        )
        for key in ("plain", "seeded"):
            ids = expect_shape(out[key], (5,), "the greedy ids")
            expect(
                torch.equal(ids.long(), scores.argmax(dim=-1)),
                f"{shown}: each row's id should be torch.argmax of its scores",
            )
        expect(
            out["global_untouched"] is True and out["generator_untouched"] is True,
            f"{shown} drew random numbers (torch's global random state or the given generator "
            f"moved): greedy decoding takes the argmax and draws nothing",
        )


# ----------------------------------------------------------------------------- randomness, state, device, shape
# Every branch of sample_next: temperature alone, top-k, top-p, and top-k with top-p.
BRANCHES = ({"temperature": 0.8}, {"top_k": 5}, {"top_p": 0.8}, {"temperature": 1.3, "top_k": 6, "top_p": 0.7})


def _shown(options):
    return ", ".join(f"{key}={value}" for key, value in options.items())


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "every branch (temperature, top-k, top-p, both) draws with the given generator: a seed repeats, another differs",
    mutant="decode_top_p_branch_global_rng",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "plain temperature sampling draws with the generator, not torch's global one",
    mutant="decode_plain_sampling_categorical",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "every branch leaves torch's global random state alone",
    mutant="decode_top_p_branch_global_rng",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "every branch: generators seeded alike repeat a draw",
    mutant="decode_ignores_generator",
)
@behaviour(
    "sample_next",
    "every branch: another generator seed gives other draws",
    mutant="decode_reseeds_global_fixed",
)
@behaviour(
    "sample_next",
    "every branch: torch's global random state is not reseeded",
    mutant="decode_reseeds_global_from_generator",
)
def test_every_branch_draws_with_the_generator_only(student):
    # 400 rows over 13 ids: two seeds give the same draws by chance with probability below 0.9^400 (no
    # kept id of these rows has probability 0.9), so "another seed differs" cannot fail a correct answer.
    scores = torch.randn(400, 13, generator=torch.Generator().manual_seed(9))
    for options in BRANCHES:
        out = student.run(
            "before = torch.get_rng_state()\n"
            "a = sample_next(scores.clone(), generator=torch.Generator().manual_seed(5), **options)\n"
            "untouched = torch.equal(torch.get_rng_state(), before)\n"
            "b = sample_next(scores.clone(), generator=torch.Generator().manual_seed(5), **options)\n"
            "c = sample_next(scores.clone(), generator=torch.Generator().manual_seed(6), **options)\n"
            "result = {'a': a, 'b': b, 'c': c, 'untouched': untouched}",
            scores=scores,
            options=options,
        )
        a, b, c = (expect_shape(out[key], (400,), "the returned ids") for key in ("a", "b", "c"))
        shown = _shown(options)
        expect(
            torch.equal(a, b),
            f"{shown}: two calls with generators seeded alike gave different draws: draw with the generator "
            f"argument (pass it to torch.multinomial) in this branch too",
        )
        expect(not torch.equal(a, c), f"{shown}: generators seeded differently gave the same draws")
        expect(
            out["untouched"] is True,
            f"{shown}: sample_next changed torch's global random state: draw only with the generator argument "
            f"in this branch too (no torch.manual_seed, no draw without generator=)",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "draws with torch.multinomial and nothing else: the generator moves as one torch.multinomial draw per row moves it",
    mutant="decode_inverse_cdf_with_rand",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "the draw moves the given generator (it is the one drawn with)",
    mutant="decode_ignores_generator",
)
@behaviour(
    "sample_next",
    "the given generator is drawn with, not torch's global one",
    mutant="decode_plain_sampling_categorical",
)
@behaviour(
    "sample_next",
    "the given generator is drawn with, not a global one seeded by hand",
    mutant="decode_reseeds_global_fixed",
)
@behaviour(
    "sample_next",
    "the given generator is drawn with, not a global one seeded from it",
    mutant="decode_reseeds_global_from_generator",
)
def test_the_generator_moves_as_torch_multinomial_moves_it(student):
    # How far a torch.Generator moves depends only on how many numbers are drawn: torch.multinomial over a
    # (batch, ntoken) tensor draws batch x ntoken of them whatever the probabilities (one per row and id, in
    # one call or one call per row), so a generator seeded alike that draws that here must end in the state
    # the student's generator ends in. Drawing with torch.rand, drawing twice or re-seeding moves it elsewhere.
    g = torch.Generator().manual_seed(10)
    for batch, ntoken, temperature in ((300, 45, 0.8), (1, 20003, 1.0), (64, 9, 2.5)):
        scores = torch.randn(batch, ntoken, generator=g)
        out = student.run(
            "generator = torch.Generator().manual_seed(17)\n"
            "sample_next(scores, temperature=temperature, generator=generator)\n"
            "result = generator.get_state()",
            scores=scores,
            temperature=temperature,
        )
        expected = torch.Generator().manual_seed(17)
        torch.multinomial(torch.ones(batch, ntoken), 1, generator=expected)
        expect(
            isinstance(out, torch.Tensor) and torch.equal(out, expected.get_state()),
            f"temperature {temperature:g} on {batch} row(s) of {ntoken:,} ids: afterwards the generator is not "
            f"where torch.multinomial's draw leaves it: draw with torch.multinomial(probabilities, 1, "
            f"generator=generator) and draw nothing else from the generator",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "state across calls: one generator goes on from where the last call left it (no re-seeding), a generator "
    "restored to a saved state repeats, and another generator used in between changes nothing",
    mutant="decode_reseeds_generator_each_call",
    kind="state",
)
@behaviour(
    "sample_next",
    "one generator across calls: its draws do not depend on other generators",
    mutant="decode_ignores_generator",
)
@behaviour(
    "sample_next",
    "one generator across calls: plain sampling draws from it, not from torch's global state",
    mutant="decode_plain_sampling_categorical",
)
@behaviour(
    "sample_next",
    "one generator across calls: top-p draws from it too",
    mutant="decode_top_p_branch_global_rng",
)
@behaviour(
    "sample_next",
    "one generator across calls: no fixed global seed repeating each call",
    mutant="decode_reseeds_global_fixed",
)
@behaviour(
    "sample_next",
    "one generator across calls: no global seed taken from it repeating each call",
    mutant="decode_reseeds_global_from_generator",
)
def test_one_generator_across_calls(student):
    # 300 rows over 11 ids: two different stretches of the stream give the same draws with probability below
    # 0.9^300. continue_text passes one generator to every step, so each step must draw new numbers.
    scores = torch.randn(300, 11, generator=torch.Generator().manual_seed(11))
    for options in ({"temperature": 0.9}, {"top_p": 0.85}, {"top_k": 4}):
        out = student.run(
            "g = torch.Generator().manual_seed(21)\n"
            "first = sample_next(scores.clone(), generator=g, **options)\n"
            "saved = g.get_state()\n"
            "second = sample_next(scores.clone(), generator=g, **options)\n"
            "h, other = torch.Generator().manual_seed(21), torch.Generator().manual_seed(22)\n"
            "h_first = sample_next(scores.clone(), generator=h, **options)\n"
            "sample_next(scores.clone(), generator=other, **options)\n"
            "h_second = sample_next(scores.clone(), generator=h, **options)\n"
            "restored = torch.Generator()\n"
            "restored.set_state(saved)\n"
            "again = sample_next(scores.clone(), generator=restored, **options)\n"
            "result = {'first': first, 'second': second, 'h_first': h_first, 'h_second': h_second, 'again': again}",
            scores=scores,
            options=options,
        )
        first, second, h_first, h_second, again = (
            expect_shape(out[key], (300,), "the returned ids")
            for key in ("first", "second", "h_first", "h_second", "again")
        )
        shown = _shown(options)
        expect(
            not torch.equal(first, second),
            f"{shown}: two successive calls with one generator gave the same draws: each call should go on from "
            f"where the generator stands (do not re-seed it)",
        )
        expect(
            torch.equal(h_first, first) and torch.equal(h_second, second),
            f"{shown}: a generator's draws changed when another generator drew in between: draw only with the "
            f"generator you are given",
        )
        expect(
            torch.equal(again, second),
            f"{shown}: a generator restored to the state it had after the first call should repeat the second "
            f"call's draws (draw from where the generator stands; do not re-seed it)",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "device: on scores on the 'meta' device (standing in for a GPU), float32 and float64, the ids come back there "
    "in every branch; the tensors it makes follow scores (stated in the skeleton)",
    mutant="decode_top_p_mask_on_cpu",
    kind="device",
)
@behaviour(
    "sample_next",
    "on 'meta' a single row keeps its batch axis",
    mutant="decode_squeeze_drops_batch_of_one",
)
@behaviour(
    "sample_next",
    "on 'meta' a single row keeps its batch axis under top-p",
    mutant="decode_top_p_branch_squeeze_all",
)
@behaviour(
    "sample_next",
    "on 'meta' greedy gives one id per row",
    mutant="decode_greedy_over_batch",
)
@behaviour(
    "sample_next",
    "on 'meta' in float64: the -inf row top-k makes has the scores' dtype",
    mutant="decode_topk_full_float32",
)
def test_the_ids_follow_the_scores_device(student):
    # The 'meta' device keeps shapes and no values, so an operation that needs values (.item(), boolean
    # indexing) raises there although a GPU runs it: such an error is not held against an answer that runs
    # the same call on the CPU. A device mismatch (a mask made on the CPU meeting the scores) is.
    out = student.run(
        "outcomes = []\n"
        "for dtype in (torch.float32, torch.float64):\n"
        "    for batch in (3, 1):\n"
        "        for options in cases:\n"
        "            cpu = torch.randn(batch, 45, generator=torch.Generator().manual_seed(1)).to(dtype)\n"
        "            sample_next(cpu, generator=torch.Generator().manual_seed(2), **options)  # runs on the CPU\n"
        "            scores = torch.zeros(batch, 45, dtype=dtype, device='meta')\n"
        "            try:\n"
        "                ids = sample_next(scores, **options)\n"
        "                outcomes.append(['ran', str(ids.device) == 'meta', list(ids.shape) == [batch]])\n"
        "            except (NotImplementedError, RuntimeError) as error:\n"
        "                outcomes.append(['device' if 'device' in str(error) else 'values', True, True])\n"
        "result = outcomes",
        cases=[{"temperature": 0}, *BRANCHES],
    )
    cases = [
        (dtype, batch, options)
        for dtype in ("float32", "float64")
        for batch in (3, 1)
        for options in ({"temperature": 0}, *BRANCHES)
    ]
    expect(isinstance(out, list) and len(out) == len(cases), "the device check did not run to its end")
    for (dtype, batch, options), (how, on_meta, shaped) in zip(cases, out):
        where = f"{_shown(options)} on {dtype} scores of shape ({batch}, 45) on the 'meta' device"
        expect(
            how != "device",
            f"{where}: a tensor made on another device met the scores; make every tensor you create on "
            f"scores.device (torch.zeros_like(...), device=scores.device)",
        )
        expect(on_meta is True, f"{where}: the ids should come back on the scores' device")
        expect(shaped is True, f"{where}: the ids should have shape ({batch},)")


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "a single row keeps its batch axis in every branch (greedy, temperature, top-k, top-p, both): shape (1,)",
    mutant="decode_top_p_branch_squeeze_all",
    kind="batch-of-one",
)
@behaviour(
    "sample_next",
    "a single row keeps its batch axis at temperature 0.8",
    mutant="decode_squeeze_drops_batch_of_one",
)
@behaviour(
    "sample_next",
    "a single greedy row keeps its batch axis (argmax over the vocabulary)",
    mutant="decode_greedy_over_batch",
)
def test_a_single_row_comes_back_as_shape_one_in_every_branch(student):
    options_list = [{"temperature": 0}, *BRANCHES, {"top_p": 1.0}]
    out = student.run(
        "result = []\n"
        "for options in cases:\n"
        "    ids = sample_next(row, generator=torch.Generator().manual_seed(2), **options)\n"
        "    result.append([list(getattr(ids, 'shape', [-1])), str(getattr(ids, 'dtype', ''))])",
        row=ROW.unsqueeze(0),
        cases=options_list,
    )
    expect(isinstance(out, list) and len(out) == len(options_list), "the single-row check did not run to its end")
    for options, (shape, dtype) in zip(options_list, out):
        expect(
            shape == [1],
            f"{_shown(options)} on a single row of scores: sample_next should return shape (1,); squeeze only "
            f"the sample dimension (squeeze(-1)), not every dimension of size 1",
        )
        expect(dtype == "torch.int64", f"{_shown(options)}: the ids should be a LongTensor (torch.long)")


# ----------------------------------------------------------------------------- temperature on wide scores
@question("sample_next_tests")
@behaviour(
    "sample_next",
    "the temperature divides the scores, not the probabilities: at temperature 80 on scores spread over 360, ids "
    "whose probability underflows at temperature 1 keep their share",
    mutant="decode_temperature_on_probabilities",
)
@behaviour(
    "sample_next",
    "the temperature divides the scores (does not multiply them)",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next",
    "the scores tensor is not modified at a high temperature",
    mutant="decode_scales_scores_in_place",
)
def test_a_high_temperature_on_widely_spread_scores(student):
    # ROW * 80 at temperature 80 is ROW at temperature 1: softmax(ROW), where six ids have 0.0044 to 0.099.
    # softmax(ROW * 80) in float32 rounds those six to 0 (exp of less than -103), so raising the probabilities
    # to the power 1/80 leaves them at 0 and moves 0.29 of the mass to the others; the bound is the module's
    # (BOUND_SHAPE over N_SHAPE rows, 5.6 sigma).
    scores = (ROW * 80).expand(N_SHAPE, -1).clone()
    expected = torch.softmax(ROW.double(), dim=-1)
    for seed in SEEDS[:2]:
        ids = _draw(student, scores, seed, temperature=80.0)
        gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
        expect(
            gap < BOUND_SHAPE,
            f"temperature 80 on scores spread over 360: the frequency of some id is {gap:.3f} away from "
            f"softmax(scores / 80) (allowed {BOUND_SHAPE}); divide the scores by the temperature before the softmax",
        )


# ----------------------------------------------------------------------------- top-p: boundary, ties, p = 1
# Rows whose running sums land exactly on p: n ids share the score 0 and every other id is -inf, so each of
# the n has probability 1/n, a power of two (exp(0) = 1, and sums of ones are exact, with or without the
# maximum subtracted), and every running sum k/n is exact in float32 and float64. Every
# correct way of writing the rule (running sum >= p, mass ranked before < p, cumsum minus the id's own
# probability >= p) then keeps exactly the k ids that reach p. (ntoken, the equal ids, options, k)
BOUNDARY_CASES = (
    (45, (3, 7, 20, 41), {"top_p": 0.5}, 2),
    (45, (3, 7, 20, 41), {"top_p": 0.75, "temperature": 0.7}, 3),
    (45, (3, 7, 20, 41), {"top_p": 0.25}, 1),
    (45, (0, 5, 9, 12, 22, 30, 31, 44), {"top_p": 0.375, "top_k": 8}, 3),
    (4096, tuple(range(7, 4096, 256)), {"top_p": 0.5625}, 9),
)


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p: a running sum landing exactly on p stops the set there (>= p, not > p), in float32 and float64",
    mutant="decode_top_p_strict_above",
    kind="boundary",
)
@behaviour(
    "sample_next",
    "top-p at an exact boundary: the id that reaches p is kept",
    mutant="decode_top_p_drops_the_crossing_id",
)
@behaviour(
    "sample_next",
    "top-p at an exact boundary: nothing after the id that reaches p",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next",
    "top-p on rows with -inf scores leaves the scores as they were",
    mutant="decode_scales_scores_in_place",
)
@behaviour(
    "sample_next",
    "an exact landing on p: the Hugging Face cut (cumsum > p, shifted by one) keeps one id too many",
    mutant="decode_top_p_strict_greater",
)
def test_top_p_stops_where_the_running_sum_lands_exactly_on_p(student):
    # Kept sets of 1 to 9 equally likely ids: one of them missing from 300 draws (4,096 ids) or 2,000 draws
    # (45 ids) has probability at most 9 x (8/9)^300 < 1e-14; an id kept beyond them is drawn with
    # probability 1/10 or more a row.
    for number, (ntoken, equal, options, k) in enumerate(BOUNDARY_CASES):
        rows = 300 if ntoken > 100 else 2000
        dtype = torch.float64 if number == 1 else torch.float32
        scores = torch.full((rows, ntoken), float("-inf"), dtype=dtype)
        scores[:, list(equal)] = 0.0  # exp(0) = 1: exact however the softmax is written
        ids = _draw(student, scores, 51 + number, **options)
        drawn = set(ids.tolist())
        n = len(equal)
        expect(
            drawn <= set(equal),
            f"{_shown(options)}: some draws are ids whose score is -inf (probability 0); they can never be drawn",
        )
        expect(
            len(drawn) == k,
            f"{_shown(options)} on a row of {n} equally likely ids ({dtype}): each has probability 1/{n}, so the "
            f"running sum of the first {k} reaches p exactly and the set stops there: {k} id(s) should be drawn, "
            f"{len(drawn)} were",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p ties at the vocabulary sizes students use (45 and 20,003 ids): the smaller id first",
    mutant="decode_top_p_unstable_sort",
    kind="ties",
)
@behaviour(
    "sample_next",
    "top-p ties at 45 ids: the smaller id first, not the larger",
    mutant="decode_top_p_ties_larger_id_first",
)
@behaviour(
    "sample_next",
    "top-p on equal scores: the id that reaches p is kept",
    mutant="decode_top_p_drops_the_crossing_id",
)
@behaviour(
    "sample_next",
    "top-p on equal scores: nothing after the id that reaches p",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next",
    "top-p on rounded rows: each row's own set size",
    mutant="decode_top_p_one_count_for_batch",
)
@behaviour(
    "sample_next",
    "rounded rows: each row's own set, not the batch's widest nucleus",
    mutant="decode_top_p_widest_nucleus",
)
def test_top_p_ranks_tied_ids_smaller_first_at_real_sizes(student):
    # Equal scores: k of n equal ids reach p when k/n >= p, and p lies 0.011 (45 ids) and 1.2e-5 (20,003 ids)
    # from every running sum, hundreds of times float32's rounding of them. The 14 kept ids of 45 are each
    # missed by 2,000 draws with probability (13/14)^2000 < 1e-64.
    for ntoken, top_p, rows, kept in ((45, 0.3, 2000, 14), (20003, 0.25, 100, 5001)):
        ids = _draw(student, torch.zeros(rows, ntoken), 61, keep_scores=False, top_p=top_p)
        if ntoken == 45:
            drawn = len(set(ids.tolist()))
            expect(
                drawn == kept,
                f"top_p={top_p:g} on 45 equal scores: 13/45 < {top_p:g} <= 14/45, so {kept} ids reach p and "
                f"{kept} should be drawn; {drawn} were",
            )
        expect(
            int(ids.max()) < kept,
            f"top_p={top_p:g} on {ntoken:,} equal scores: the {kept:,} ids that reach p should be the smallest "
            f"ones, 0 to {kept - 1:,} (the smaller id first among equal probabilities at every row length; "
            f"PyTorch's sort keeps ties in order only for short rows unless stable=True)",
        )
    # Rows of 45 scores whose two best ids tie, at different places in each row: each has probability above
    # 0.3, so top_p = 0.3 keeps the smaller of the two alone.
    g = torch.Generator().manual_seed(62)
    scores = torch.randn(500, 45, generator=g)
    pairs = torch.stack([torch.randperm(45, generator=g)[:2] for _ in range(500)])
    best = scores.max(dim=-1).values + 3.0
    rows = torch.arange(500)
    scores[rows, pairs[:, 0]] = best
    scores[rows, pairs[:, 1]] = best
    ids = _draw(student, scores, 63, keep_scores=False, top_p=0.3)
    wrong = int((ids != pairs.min(dim=-1).values).sum())
    expect(
        wrong == 0,
        f"top_p=0.3 on 500 rows of 45 scores whose two best ids tie: {wrong} draws are not the smaller of the two "
        f"tied ids (rank equal probabilities smaller id first: sort with stable=True)",
    )
    # Rounded scores (ties everywhere) against the oracle's kept set of each row, skipping rows where p lies
    # within 1e-3 of a running sum.
    rounded = (2 * torch.randn(2000, 45, generator=g)).round()
    ids = _draw(student, rounded, 64, keep_scores=False, top_p=0.6).tolist()
    clear = [r for r in range(len(rounded)) if nucleus_margin(rounded[r].tolist(), 0.6) > 1e-3]
    outside = sum(ids[r] not in _kept(rounded[r], top_p=0.6) for r in clear)
    expect(
        outside == 0,
        "top_p=0.6 on 2,000 rows of 45 rounded scores (many ties): some draws fall outside their row's kept set "
        "(the smaller id first among equal probabilities)",
    )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top_p = 1 keeps every id at the vocabulary sizes students use (45 and 20,003 ids), although a float32 running "
    "sum reaches 1 before the last id",
    mutant="decode_top_p_no_keep_all_guard",
    kind="degenerate",
)
@behaviour(
    "sample_next",
    "top_p = 1 is special: a cut where the float32 running sum reaches 1.0 drops the last ids",
    mutant="decode_top_p_one_not_special",
)
def test_top_p_one_keeps_every_id_at_real_sizes(student):
    # The ids p = 1 must keep but a cut at the float32 running sum drops have probabilities around 1e-10 or
    # less, so no affordable number of draws shows them; the test looks at what sample_next hands
    # torch.multinomial instead (through a TorchFunctionMode, which sees torch.multinomial and
    # Tensor.multinomial without changing them). Every id of these peaked rows has a probability of 1e-13 or
    # more, far above float32's smallest, so it must reach torch.multinomial above 0.
    g = torch.Generator().manual_seed(71)
    for ntoken in (45, 20003):
        scores = 2.5 * torch.randn(8, ntoken, generator=g)
        scores[:, 0] += torch.linspace(8.0, 16.0, 8)  # one id takes most of the probability, more in later rows
        out = student.run(
            "from torch.overrides import TorchFunctionMode\n"
            "class Watch(TorchFunctionMode):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.kept = []\n"
            "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
            "        kwargs = kwargs or {}\n"
            "        if func in (torch.multinomial, torch.Tensor.multinomial):\n"
            "            handed = args[0] if args else kwargs['input']\n"
            "            self.kept.append((handed > 0).sum(dim=-1).reshape(-1))\n"
            "        return func(*args, **kwargs)\n"
            "with Watch() as watch:\n"
            "    ids = sample_next(scores, top_p=1.0, generator=torch.Generator().manual_seed(72))\n"
            "result = {'ids': ids, 'kept': torch.cat(watch.kept).tolist() if watch.kept else None}",
            scores=scores,
        )
        expect_shape(out["ids"], (8,), "the returned ids")
        if out["kept"] is None:  # not drawn with torch.multinomial: test_the_generator_moves... says so
            continue
        dropped = sum(ntoken - count for count in out["kept"])
        expect(
            dropped == 0,
            f"top_p=1 on 8 rows of {ntoken:,} scores: {dropped:,} ids got probability 0, but p = 1 keeps every "
            f"id (a float32 running sum reaches 1.0 before the last id: do not cut at p = 1)",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "a tiny top_p (1e-6) keeps the best id alone: the id that reaches p is kept, never an empty set (45 and 20,003 ids)",
    mutant="decode_top_p_drops_the_crossing_id",
    kind="degenerate",
)
@behaviour(
    "sample_next",
    "a tiny top_p keeps nothing after the best id",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next",
    "top_k = ntoken: plain sampling at a temperature that divides the scores",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next",
    "the scores tensor is not modified under top_k = ntoken",
    mutant="decode_scales_scores_in_place",
)
def test_top_k_and_top_p_at_their_extremes(student):
    # top_p = 1e-6: the best id of each row reaches p by itself, so every draw is the row's argmax (these
    # random rows have no tie at the top). top_k = ntoken keeps every id: plain sampling, checked with the
    # module's bound for such shifts (BOUND_SHAPE over N_SHAPE rows, 5.6 sigma).
    g = torch.Generator().manual_seed(81)
    for rows, ntoken in ((500, 45), (20, 20003)):
        scores = 3 * torch.randn(rows, ntoken, generator=g)
        ids = _draw(student, scores, 82, keep_scores=False, top_p=1e-6)
        expect(
            torch.equal(ids, scores.argmax(dim=-1)),
            f"top_p=1e-6 on {rows} rows of {ntoken:,} scores: the best id of each row reaches p on its own and is "
            f"kept (the id that makes the running sum reach p belongs to the set), so every draw should be it",
        )
    ids = _draw(student, ROW.expand(N_SHAPE, -1).clone(), 83, top_k=ROW.numel(), temperature=0.9)
    gap = (_frequencies(ids, ROW.numel()) - torch.softmax(ROW.double() / 0.9, dim=-1)).abs().max().item()
    expect(
        gap < BOUND_SHAPE,
        f"top_k={ROW.numel()} on rows of {ROW.numel()} scores keeps every id, so the draws should follow "
        f"softmax(scores / temperature); the frequency of some id is {gap:.3f} away (allowed {BOUND_SHAPE})",
    )


# ----------------------------------------------------------------------------- dtypes and sizes of the scores
# (dtype, shift, options): ROW in each float dtype, and shifted far up or down (a constant added to a row
# changes no probability). The expected distribution is the oracle's on the scores as the dtype holds them
# (ROW + shift after rounding), so the rounding of the scores costs nothing. In float16 and bfloat16 p lies 0.06
# or more from every running sum (at temperature 1 the sums are 0.40, 0.58, 0.71, 0.81; after top-5 0.45, 0.66,
# 0.81; after top-3 0.56, 0.81), over ten times what bfloat16 (2^-8 = 0.004 a step near 0.7) or float16 can round
# them by; in float32 and float64 0.015 or more, thousands of times their rounding.
DTYPE_CASES = (
    (torch.float16, 0.0, {"temperature": 0.7}),
    (torch.float16, 0.0, {"top_k": 4}),
    (torch.float16, 0.0, {"top_p": 0.65}),
    (torch.bfloat16, 0.0, {"temperature": 2}),  # an int temperature
    (torch.bfloat16, 0.0, {"top_k": 3, "top_p": 0.73}),
    (torch.float64, 0.0, {"top_p": 0.65}),
)
SHIFT_CASES = (
    (torch.float16, 12.0, {"top_k": 5, "top_p": 0.73}),  # exp(14) is above float16's largest number, 65,504
    (torch.float32, 200.0, {}),  # exp(202) overflows float32 (largest about exp(88.7))
    (torch.float32, -200.0, {"top_p": 0.9}),  # exp(-198) underflows float32 to 0
    (torch.float32, -3e4, {"top_k": 4}),  # kept scores below a cut made with -1e4
    (torch.float64, -1e10, {"top_k": 3}),  # kept scores below a cut made with -1e9
    (torch.float64, -1e10, {"top_p": 0.65, "temperature": 0.5}),
)


def _dtype_case(student, dtype, shift, options, seed, advice):
    """Draws for N_SHAPE rows of ROW + shift in ``dtype``, checked against the oracle's distribution with the module's
    bound for shifts of 0.1 or more (BOUND_SHAPE over N_SHAPE rows, 5.6 sigma) and its support (no draw of a cut id); an error the
    call raises is reported with ``advice``."""
    row = (ROW.double() + shift).to(dtype)
    held = row.double() - shift  # the scores as the dtype holds them, less the shift (exact in float64)
    temperature, top_k, top_p = options.get("temperature", 1.0), options.get("top_k"), options.get("top_p")
    expected = torch.tensor(decoding_distribution(held.tolist(), temperature, top_k, top_p), dtype=torch.float64)
    scores = row.expand(N_SHAPE, -1).clone()
    where = f"{_shown(options) or 'temperature=1.0'} on {str(dtype).split('.')[-1]} scores" + (
        f" shifted by {shift:g}" if shift else ""
    )
    out = student.run(
        "try:\n"
        "    ids, raised = sample_next(scores, generator=torch.Generator().manual_seed(seed), **options), None\n"
        "except Exception as error:\n"
        "    ids, raised = None, type(error).__name__\n"
        "result = {'ids': ids, 'raised': raised, 'scores': scores}",
        scores=scores,
        seed=seed,
        options=options,
    )
    expect(out["raised"] is None, f"{where} raised {vocabulary(out['raised'], 'an exception')}: {advice}")
    ids = expect_shape(out["ids"], (N_SHAPE,), "the returned ids")
    expect(ids.dtype == torch.long, f"{where}: the ids should be a LongTensor (torch.long); got dtype {ids.dtype}")
    expect(bool(((ids >= 0) & (ids < ROW.numel())).all()), f"{where}: some returned ids are outside the vocabulary")
    expect(torch.equal(out["scores"], scores), "sample_next changed the scores tensor it was given")
    outside = int((expected[ids] == 0).sum())
    expect(outside == 0, f"{where}: {outside:,} of {N_SHAPE:,} draws are ids that should have been cut")
    gap = (_frequencies(ids, ROW.numel()) - expected).abs().max().item()
    return where, gap


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "float16, bfloat16 and float64 scores in every branch, against the oracle on the rounded scores: cut ids with -inf "
    "(-1e9 does not fit in float16)",
    mutant="decode_fill_minus_1e9",
    kind="device",
)
@behaviour(
    "sample_next",
    "float16 scores under top-k: the -inf row made for them must have their dtype",
    mutant="decode_topk_full_float32",
)
@behaviour(
    "sample_next",
    "greedy on float16 and bfloat16 scores: the argmax, not a draw at a tiny temperature",
    mutant="decode_greedy_as_tiny_temperature",
)
@behaviour(
    "sample_next",
    "an int temperature (2) divides the scores as 2.0 does",
    mutant="decode_temperature_multiplies",
    kind="non-integer",
)
@behaviour(
    "sample_next", "float16 scores at temperature 0.7: the divided scores", mutant="decode_temperature_multiplies"
)
@behaviour("sample_next", "greedy in every float dtype: one id per row", mutant="decode_greedy_over_batch")
@behaviour(
    "sample_next",
    "greedy on rounded float16 to float64 scores: the smallest of tied best ids",
    mutant="decode_greedy_topk_ties",
)
@behaviour("sample_next", "every float dtype: each row drawn on its own", mutant="decode_one_draw_for_every_row")
@behaviour("sample_next", "every float dtype: the scores left as they were", mutant="decode_scales_scores_in_place")
@behaviour("sample_next", "float16 top-k: the k-th best kept", mutant="decode_top_k_drops_the_kth")
@behaviour(
    "sample_next", "float16 and float64 top-p: the id that reaches p kept", mutant="decode_top_p_drops_the_crossing_id"
)
@behaviour(
    "sample_next",
    "float16 and float64 top-p: nothing after the id that reaches p",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next",
    "float16 and float64 top-p: kept probabilities divided by their sum",
    mutant="decode_top_p_softmax_of_probabilities",
)
def test_scores_in_every_float_dtype(student):
    for seed, (dtype, shift, options) in enumerate(DTYPE_CASES, start=101):
        advice = (
            "work in any float dtype: cut ids with -inf (every float dtype holds it), make new tensors like the scores"
        )
        where, gap = _dtype_case(student, dtype, shift, options, seed, advice)
        expect(
            gap < BOUND_SHAPE,
            f"{where}: the frequency of some id is {gap:.3f} away from its probability (allowed {BOUND_SHAPE}); {advice}",
        )
    # Greedy on rounded scores (ties everywhere) in each dtype: torch.argmax of the scores as given.
    g = torch.Generator().manual_seed(108)
    for dtype in (torch.float16, torch.bfloat16, torch.float64):
        scores = (4 * torch.randn(6, 45, generator=g)).round().to(dtype)
        out = student.run(
            "try:\n"
            "    result = {'ids': sample_next(scores, temperature=0), 'raised': None}\n"
            "except Exception as error:\n"
            "    result = {'ids': None, 'raised': type(error).__name__}",
            scores=scores,
        )
        name = str(dtype).split(".")[-1]
        expect(
            out["raised"] is None,
            f"temperature 0 on {name} scores raised {vocabulary(out['raised'], 'an exception')}: greedy takes torch.argmax of the scores and "
            f"draws nothing, whatever their dtype",
        )
        ids = expect_shape(out["ids"], (6,), "the greedy ids")
        expect(
            ids.dtype == torch.long and torch.equal(ids, scores.argmax(dim=-1)),
            f"temperature 0 on {name} scores: each row's id should be torch.argmax of its scores, as a LongTensor",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "scores far from 0 (shifted by 12 in float16, +-200 in float32): the softmax subtracts the row's maximum, no exp "
    "of a raw score overflows or underflows",
    mutant="decode_manual_softmax_overflow",
    kind="degenerate",
)
@behaviour(
    "sample_next",
    "kept scores below -1e4 (float32) and -1e10 (float64): cut ids get -inf, not a large finite number",
    mutant="decode_fill_minus_1e9",
)
@behaviour(
    "sample_next",
    "float16 scores shifted by 12 under top-k: the -inf row made for them must have their dtype",
    mutant="decode_topk_full_float32",
)
@behaviour("sample_next", "shifted scores: each row drawn on its own", mutant="decode_one_draw_for_every_row")
@behaviour("sample_next", "shifted scores: left as they were", mutant="decode_scales_scores_in_place")
@behaviour(
    "sample_next",
    "shifted float64 scores at temperature 0.5: the divided scores",
    mutant="decode_temperature_multiplies",
)
@behaviour(
    "sample_next", "shifted float64 scores: top-p after the temperature", mutant="decode_top_p_before_temperature"
)
@behaviour("sample_next", "shifted scores under top-k: the k-th best kept", mutant="decode_top_k_drops_the_kth")
@behaviour(
    "sample_next", "shifted scores under top-p: the id that reaches p kept", mutant="decode_top_p_drops_the_crossing_id"
)
@behaviour(
    "sample_next",
    "shifted scores under top-p: nothing after the id that reaches p",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next",
    "shifted scores under top-p: kept probabilities divided by their sum",
    mutant="decode_top_p_softmax_of_probabilities",
)
def test_scores_of_any_size_draw_as_their_differences_say(student):
    for seed, (dtype, shift, options) in enumerate(SHIFT_CASES, start=111):
        advice = (
            "adding a constant to a row changes no probability: let torch.softmax take the exponentials (exp of a "
            "raw score overflows or underflows), and cut ids with -inf, not a large negative number"
        )
        where, gap = _dtype_case(student, dtype, shift, options, seed, advice)
        expect(
            gap < BOUND_SHAPE,
            f"{where}: the frequency of some id is {gap:.3f} away from its probability (allowed {BOUND_SHAPE}); {advice}",
        )
    # A low temperature on ordinary scores: ROW / 0.01 reaches 200, and every draw is the best id (the second
    # best has probability exp(-80) < 1e-34).
    ids = _draw(student, ROW.expand(2000, -1).clone(), 117, temperature=0.01)
    expect(
        bool((ids == 0).all()),
        "temperature 0.01: the scores divided by it reach 200 and the best id has all but exp(-80) of the "
        "probability, so every draw should be it (let torch.softmax take the exponentials)",
    )


# ----------------------------------------------------------------------------- top-p: p itself, no tolerance
# Rows of n equal scores (the others -inf), as in BOUNDARY_CASES: every running sum k/n is exact. p lies 2^-21
# (4.8e-7) above or below one of them; 0.5 +- 2^-21, 0.25 + 2^-21 and 0.375 - 2^-21 are exact in float32 (its
# step there is 2^-24 or 2^-25), so every correct answer compares the same numbers, and a running sum falling
# short of p by 4.8e-7 has not reached it. (ntoken, the equal ids, dtype, k, +1 for p = k/n + 2^-21 or -1 for
# k/n - 2^-21, other options): the set is the first k ids below k/n, k + 1 above it.
NEAR_CASES = (
    (45, (2, 9, 30, 44), torch.float32, 2, +1, {}),
    (45, (2, 9, 30, 44), torch.float32, 2, -1, {}),
    (4096, tuple(range(11, 4096, 512)), torch.float32, 2, +1, {}),
    (45, (0, 4, 8, 13, 21, 34, 40, 42), torch.float64, 3, -1, {"temperature": 0.8}),
)


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p compares the running sum with p itself: a sum 4.8e-7 short of p has not reached it (no tolerance), in "
    "float32 and float64",
    mutant="decode_top_p_epsilon_tolerance",
    kind="boundary",
)
@behaviour(
    "sample_next",
    "top-p next to an exact boundary: a sum just past p stops the set (>= p)",
    mutant="decode_top_p_keeps_one_more",
)
@behaviour(
    "sample_next", "p just past a running sum: the id that reaches p kept", mutant="decode_top_p_drops_the_crossing_id"
)
@behaviour("sample_next", "p next to a running sum: rows drawn on their own", mutant="decode_one_draw_for_every_row")
@behaviour(
    "sample_next", "p next to a running sum: the scores left as they were", mutant="decode_scales_scores_in_place"
)
def test_top_p_compares_the_running_sum_with_p_itself(student):
    # Kept sets of 2 or 3 equally likely ids among 4 or 8: one of them missing from 300 (4,096 ids) or 2,000
    # draws has probability at most 3 x (2/3)^300 < 1e-50; an id beyond them is drawn with probability 1/4 or more.
    for number, (ntoken, equal, dtype, k, sign, options) in enumerate(NEAR_CASES):
        rows = 300 if ntoken > 100 else 2000
        scores = torch.full((rows, ntoken), float("-inf"), dtype=dtype)
        scores[:, list(equal)] = 0.0
        n = len(equal)
        top_p = k / n + sign * 2**-21
        kept = k + (sign > 0)
        drawn = set(_draw(student, scores, 121 + number, top_p=top_p, **options).tolist())
        expect(
            drawn <= set(equal),
            f"top_p={top_p!r}: some draws are ids whose score is -inf (probability 0); they can never be drawn",
        )
        expect(
            len(drawn) == kept,
            f"top_p={k}/{n} {'+' if sign > 0 else '-'} 2**-21 on a row of {n} equally likely ids "
            f"({str(dtype).split('.')[-1]}): the running sums are exactly 1/{n}, 2/{n}, ..., and {k}/{n} "
            f"{'falls short of p' if sign > 0 else 'reaches p'}, so {kept} ids should be drawn, {len(drawn)} were "
            f"(compare the running sum with p itself, no tolerance)",
        )


# ----------------------------------------------------------------------------- top-p: ranking by probability
@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p ranks by probability, not by id: at 20,003 ids (probabilities around 5e-5) and on two probabilities 1e-5 "
    "apart at 45 ids",
    mutant="decode_tie_break_epsilon",
    kind="ties",
)
@behaviour(
    "sample_next", "ranking at 20,003 ids: the id that reaches p kept", mutant="decode_top_p_drops_the_crossing_id"
)
@behaviour(
    "sample_next", "near-equal probabilities: nothing after the id that reaches p", mutant="decode_top_p_keeps_one_more"
)
@behaviour(
    "sample_next", "near-equal probabilities: the scores left as they were", mutant="decode_scales_scores_in_place"
)
def test_top_p_ranks_by_probability_at_a_real_vocabulary(student):
    # One row of 20,003 scores (2 x standard normal), drawn 200 times: the oracle keeps its 380 most likely ids,
    # and p lies 1.8e-4 from every running sum (checked below), hundreds of times what float32 rounding moves a
    # sum of 380 terms by, so every correct answer keeps the same set. A ranking moved by 1e-7 x id puts half
    # the vocabulary first and draws outside the set about one row in five.
    row = 2 * torch.randn(20003, generator=torch.Generator().manual_seed(93))
    assert nucleus_margin(row.tolist(), 0.5) > 1e-4, "the grader's row no longer has a clear boundary"
    kept = _kept(row, top_p=0.5)
    out = student.run(
        "scores = row.expand(200, -1).clone()\n"
        "result = sample_next(scores, top_p=0.5, generator=torch.Generator().manual_seed(131))",
        row=row,
    )
    ids = expect_shape(out, (200,), "the returned ids")
    outside = sum(i not in kept for i in ids.tolist())
    expect(
        outside == 0,
        f"top_p=0.5 on 200 copies of a row of 20,003 scores: {outside} draws are outside the {len(kept)} most likely "
        f"ids whose probabilities reach p; rank the ids by their probabilities alone (equal ones smaller id first)",
    )
    # Two ids 1e-5 apart in score (probabilities 0.2415 and 0.2415 x (1 - 1e-5), 2.4e-6 apart, a difference
    # float32 holds 40 times over), the likelier one at the larger id; p = 0.2 keeps it alone.
    scores = torch.full((2000, 45), -3.0)
    scores[:, 40], scores[:, 2] = 1e-5, 0.0
    drawn = set(_draw(student, scores, 132, top_p=0.2).tolist())
    expect(
        drawn == {40},
        "top_p=0.2 on a row whose two likeliest ids (2 and 40) differ in probability by 1e-5 of it, id 40 the "
        "likelier: id 40 alone reaches p, so every draw should be id 40 (probabilities that differ are not ties, "
        "however small the difference)",
    )


# ----------------------------------------------------------------------------- the generator: one id, None
@question("sample_next_tests")
@behaviour(
    "sample_next",
    "with a positive temperature a call draws even when one id is left (top_k=1, a tiny top_p): the generator moves",
    mutant="decode_top_k_one_shortcut",
    kind="randomness",
)
@behaviour("sample_next", "one id left: the given generator is the one that moves", mutant="decode_ignores_generator")
@behaviour("sample_next", "one id left: each row's own best id", mutant="decode_one_draw_for_every_row")
@behaviour(
    "sample_next",
    "one id left: the given generator moves, not a global one seeded by hand",
    mutant="decode_reseeds_global_fixed",
)
@behaviour(
    "sample_next",
    "one id left: the given generator moves, not a global one seeded from it",
    mutant="decode_reseeds_global_from_generator",
)
@behaviour("sample_next", "one id left under top-p: the given generator moves", mutant="decode_top_p_branch_global_rng")
@behaviour("sample_next", "top_k=1 keeps the best id (the k-th)", mutant="decode_top_k_drops_the_kth")
@behaviour("sample_next", "a tiny top_p keeps the id that reaches it", mutant="decode_top_p_drops_the_crossing_id")
@behaviour("sample_next", "a tiny top_p keeps nothing after the best id", mutant="decode_top_p_keeps_one_more")
def test_a_single_kept_id_is_still_drawn(student):
    scores = torch.randn(50, 13, generator=torch.Generator().manual_seed(141))
    for options in ({"top_k": 1}, {"top_k": 1, "temperature": 0.5}, {"top_p": 1e-6}, {"top_k": 1, "top_p": 0.9}):
        out = student.run(
            "global_before = torch.get_rng_state()\n"
            "g = torch.Generator().manual_seed(142)\n"
            "g_before = g.get_state()\n"
            "ids = sample_next(scores, generator=g, **options)\n"
            "result = {'ids': ids, 'moved': not torch.equal(g.get_state(), g_before),\n"
            "          'global_untouched': torch.equal(torch.get_rng_state(), global_before)}",
            scores=scores,
            options=options,
        )
        ids = expect_shape(out["ids"], (50,), "the returned ids")
        shown = _shown(options)
        expect(torch.equal(ids, scores.argmax(dim=-1)), f"{shown}: each row's best id is the only one left")
        expect(
            out["moved"] is True,
            f"{shown}: the given generator did not move: with a positive temperature every call draws with "
            f"torch.multinomial(probabilities, 1, generator=generator), even when one id is left",
        )
        expect(
            out["global_untouched"] is True,
            f"{shown}: torch's global random state changed: draw only with the generator argument",
        )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "generator None draws from torch's global generator in every branch: after torch.manual_seed(s) the draws are a "
    "generator seeded s's, and successive calls go on",
    mutant="decode_fresh_generator_when_none",
    kind="randomness",
)
@behaviour(
    "sample_next",
    "generator None and a given generator: the given one is drawn with, not the global one",
    mutant="decode_ignores_generator",
)
@behaviour(
    "sample_next",
    "no generator: each row drawn on its own, and successive calls differ",
    mutant="decode_one_draw_for_every_row",
)
@behaviour(
    "sample_next",
    "a given generator is drawn with, not torch's global one (Categorical)",
    mutant="decode_plain_sampling_categorical",
)
@behaviour(
    "sample_next",
    "no generator: torch's global generator goes on, not re-seeded by hand",
    mutant="decode_reseeds_global_fixed",
)
@behaviour(
    "sample_next",
    "top-p with a given generator draws with it, not with the global one",
    mutant="decode_top_p_branch_global_rng",
)
def test_no_generator_draws_from_torchs_global_generator(student):
    # 300 rows over 13 ids: two draws of them agree by chance with probability below 0.9^300.
    scores = torch.randn(300, 13, generator=torch.Generator().manual_seed(151))
    for seed, options in enumerate(BRANCHES, start=152):
        out = student.run(
            "torch.manual_seed(seed)\n"
            "omitted = sample_next(scores.clone(), **options)\n"
            "torch.manual_seed(seed)\n"
            "none = sample_next(scores.clone(), generator=None, **options)\n"
            "after = sample_next(scores.clone(), generator=None, **options)\n"
            "given = sample_next(scores.clone(), generator=torch.Generator().manual_seed(seed), **options)\n"
            "result = {'omitted': omitted, 'none': none, 'after': after, 'given': given}",
            scores=scores,
            options=options,
            seed=seed,
        )
        omitted, none, after, given = (
            expect_shape(out[key], (300,), "the returned ids") for key in ("omitted", "none", "after", "given")
        )
        shown = _shown(options)
        expect(
            torch.equal(omitted, given) and torch.equal(none, given),
            f"{shown}: without a generator (or with generator=None), after torch.manual_seed({seed}) the draws should "
            f"be those of a torch.Generator seeded {seed}: None means torch's global generator, so pass it on to "
            f"torch.multinomial as it is (no torch.Generator of your own)",
        )
        expect(
            not torch.equal(none, after),
            f"{shown}: two calls in a row without a generator gave the same draws: draw from torch's global generator, "
            f"which goes on from where the last call left it",
        )


# ----------------------------------------------------------------------------- a device that holds values
# The 'meta' device test above cannot run code that reads values (.item(), a loop over rows). This snippet
# stands in for a GPU that holds them: an Elsewhere tensor says it is on 'meta' and keeps its values in a CPU
# tensor; every operation on one runs on the CPU and gives Elsewhere tensors back, tensors made on its device
# (zeros_like, device=scores.device, torch.tensor(..., device=...)) become Elsewhere tensors too, and, as on a
# GPU, a CPU tensor of one or more dimensions (or a CPU generator) meeting one raises a device error. What
# sample_next returns must be an Elsewhere tensor. Errors other than a device error are not held against the
# answer (the same call runs on the CPU first): the stand-in device may lack something a GPU has.
ELSEWHERE = """
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map


def _is_there(device):
    return device is not None and torch.device(device).type == "meta"


def _elsewhere_call(func, args, kwargs):
    kwargs = dict(kwargs or {})
    made_there = _is_there(kwargs.get("device"))
    if made_there:
        kwargs["device"] = torch.device("cpu")
    found = set()

    def held(x):
        if isinstance(x, Elsewhere):
            found.add("there")
            return x.held
        if isinstance(x, torch.Tensor):
            found.add("no values" if x.is_meta else "cpu" if x.dim() > 0 else "cpu scalar")
        return x

    args, kwargs = tree_map(held, (args, kwargs))
    if "no values" in found:
        raise NotImplementedError("a tensor without values met an Elsewhere tensor")
    there = made_there or "there" in found
    if there and "cpu" in found:
        raise RuntimeError("Expected all tensors to be on the same device, but found tensors on two devices")
    generator = kwargs.get("generator")
    if there and generator is not None and generator.device.type == "cpu":
        raise RuntimeError("Expected a generator on the tensors' device, but found one on the cpu device")
    out = func(*args, **kwargs)
    if not there or (func is torch.ops.aten._to_copy.default and "device" in kwargs and not made_there):
        return out
    return tree_map(lambda x: Elsewhere(x) if isinstance(x, torch.Tensor) else x, out)


class Elsewhere(torch.Tensor):
    @staticmethod
    def __new__(cls, held):
        return torch.Tensor._make_wrapper_subclass(
            cls, held.shape, strides=held.stride(), dtype=held.dtype, device="meta", requires_grad=False
        )

    def __init__(self, held):
        self.held = held

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return _elsewhere_call(func, args, kwargs)


class _Makers(TorchFunctionMode):
    # torch.tensor(data, device=...) and its kind make their tensor without a call a dispatch mode sees.
    MAKERS = (torch.tensor, torch.as_tensor, torch.asarray, torch.scalar_tensor, torch.Tensor.new_tensor)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in self.MAKERS:
            device = kwargs.get("device")
            if device is None and func is torch.Tensor.new_tensor and isinstance(args[0], Elsewhere):
                device = "meta"
            if _is_there(device):
                kwargs["device"] = "cpu"
                if isinstance(args[0], Elsewhere):
                    args = (args[0].held, *args[1:])
                return Elsewhere(func(*args, **kwargs))
        return func(*args, **kwargs)


class _Operations(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return _elsewhere_call(func, args, kwargs)


outcomes = []
for dtype in (torch.float32, torch.float64):
    for batch in (3, 1):
        for options in cases:
            cpu = torch.randn(batch, 45, generator=torch.Generator().manual_seed(1)).to(dtype)
            sample_next(cpu.clone(), generator=torch.Generator().manual_seed(2), **options)  # runs on the CPU
            try:
                with _Makers(), _Operations():
                    ids = sample_next(Elsewhere(cpu.clone()), **options)
                    there = isinstance(ids, Elsewhere)
                    values = ids.held.clone() if there else ids.clone()
                outcomes.append(["ran", there, list(values.shape) == [batch], values.tolist()])
            except Exception as error:
                outcomes.append(["device" if "device" in str(error) else "values", True, True, None])
result = outcomes
"""


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "device: on a stand-in device that holds values (code that reads them runs), the returned ids stay on the scores' "
    "device in every branch, float32 and float64, a batch of one included (stated in the skeleton)",
    mutant="decode_row_loop_cpu_ids",
    kind="device",
)
@behaviour(
    "sample_next",
    "on a device that holds values, no generator of one's own: a CPU generator cannot draw there",
    mutant="decode_fresh_generator_when_none",
)
@behaviour(
    "sample_next",
    "on a device that holds values, the top-p mask is made on the scores' device",
    mutant="decode_top_p_mask_on_cpu",
)
@behaviour(
    "sample_next",
    "on a device that holds values, top_p=1 (which keeps every id) makes nothing on the CPU either",
    mutant="decode_f_p1_cpu_mask",
)
@behaviour(
    "sample_next",
    "on a device that holds values, greedy makes nothing on the CPU",
    mutant="decode_greedy_arange_cpu",
)
@behaviour(
    "sample_next", "on a device that holds values, greedy gives one id per row", mutant="decode_greedy_over_batch"
)
@behaviour(
    "sample_next",
    "on a device that holds values, a single greedy row keeps its batch axis",
    mutant="decode_greedy_squeeze",
)
@behaviour(
    "sample_next",
    "on a device that holds values, a single row keeps its batch axis",
    mutant="decode_squeeze_drops_batch_of_one",
)
@behaviour(
    "sample_next",
    "on a device that holds values, a single top-p row keeps its batch axis",
    mutant="decode_top_p_branch_squeeze_all",
)
@behaviour(
    "sample_next",
    "on a device that holds values, float64 top-k makes its -inf row in the scores' dtype",
    mutant="decode_topk_full_float32",
)
def test_the_ids_stay_on_a_device_that_holds_values(student):
    options_list = [{"temperature": 0}, *BRANCHES, {"top_p": 1.0}]
    out = student.run(ELSEWHERE, cases=options_list)
    cases = [
        (dtype, batch, options) for dtype in ("float32", "float64") for batch in (3, 1) for options in options_list
    ]
    expect(isinstance(out, list) and len(out) == len(cases), "the device check did not run to its end")
    for (dtype, batch, options), (how, there, shaped, values) in zip(cases, out):
        where = f"{_shown(options)} on {dtype} scores of shape ({batch}, 45) on another device than the CPU"
        expect(
            how != "device",
            f"{where}: a tensor or generator of the CPU met the scores; make every tensor you create on "
            f"scores.device (torch.zeros_like(...), device=scores.device), and with no generator given draw from "
            f"torch's global one (generator=None)",
        )
        expect(
            there is True,
            f"{where}: the ids came back on the CPU; return them on the scores' device (a list of ids made into a "
            f"tensor with torch.tensor(...) lands on the CPU: stack or cat the drawn tensors, or give device=)",
        )
        expect(shaped is True, f"{where}: the ids should have shape ({batch},)")
        if values is not None:
            expect(all(0 <= i < 45 for i in values), f"{where}: some returned ids are outside the vocabulary")


# ------------------------------------------------------------ round 2026-12-c: p near 1, p in float64, tiny T
# p just below 1 still cuts: the two best ids hold 0.9996 of the probability and a third the rest. With
# p = 0.999 or 0.9995 the running sum of the two best reaches p (0.9996 - p >= 1e-4, far beyond float32
# rounding), so the third id is cut; an answer that treats a p this close to 1 as "keep everything" draws it
# with probability 0.0004 a row: over 25,000 rows, 10 draws expected, and none at all with probability
# e^-10 < 5e-5 for each p (e^-20 for both).
NEAR_ONE = torch.log(torch.tensor([0.5996, 0.4, 0.0004], dtype=torch.float64)).float()
NEAR_ONE_ROWS = 25_000


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p with p just below 1 (0.999, 0.9995) still cuts the ids after the set that reaches it",
    mutant="decode_p_near_one",
    kind="degenerate",
)
def test_a_p_just_below_one_still_cuts_the_tail(student):
    scores = NEAR_ONE.expand(NEAR_ONE_ROWS, -1).clone()
    for seed, top_p in ((141, 0.999), (142, 0.9995)):
        ids = _draw(student, scores, seed, keep_scores=False, top_p=top_p)
        tail = int((ids == 2).sum())
        expect(
            tail == 0,
            f"top_p={top_p} on a row whose two best ids hold 0.9996: their running sum reaches p, so the third id "
            f"is cut and can never be drawn; it was drawn {tail} time(s) in {NEAR_ONE_ROWS:,} rows. Only p = 1 keeps "
            "every id",
        )


# p compared in the scores' own dtype: float64 probabilities 0.699999995, 0.2 and 0.100000005 with p = 0.7. The
# best id alone sums to 5e-9 below p (float64 keeps 1e-16), so the second id is kept too. Compared with p
# rounded to float32 (0.699999988), the best id alone would seem to reach it and the second id be cut. The
# second id is drawn with probability 0.2 / 0.9 a row: missing from 2,000 rows with probability below 1e-200.
FLOAT64_P = torch.log(torch.tensor([0.699999995, 0.2, 0.100000005], dtype=torch.float64))


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p on float64 scores compares the running sum with p itself, not p rounded to float32",
    mutant="decode_p_tensor_float32",
    kind="boundary",
)
def test_top_p_on_float64_scores_compares_with_p_itself(student):
    ids = _draw(student, FLOAT64_P.expand(2000, -1).clone(), 143, top_p=0.7)
    drawn = set(ids.tolist())
    expect(
        drawn == {0, 1},
        f"top_p=0.7 on float64 scores whose best id has probability 0.699999995: that is below p, so the second "
        f"id is kept as well and ids {{0, 1}} should be drawn; {sorted(drawn)} were. Compare the running sum with p "
        "itself (a Python float, or a tensor in the scores' dtype), not with p rounded to float32",
    )


# A tiny positive temperature still divides and draws: ids 2 and 5 tie for the best score and the others are
# at least 1 lower, so at temperature 1e-3, 1e-6 or 1e-9 each of the two has probability 1/2 and every other
# id exp(-1000) or less (0 in float32). Both are drawn in 400 rows unless one is missing, probability 2^-399;
# an answer that calls such a temperature greedy returns id 2 alone.
TINY_T_ROW = torch.tensor([0.0, -1.0, 1.0, -2.0, 0.0, 1.0, -0.5])


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "a tiny positive temperature (1e-3, 1e-6, 1e-9) divides and draws: tied best ids both drawn",
    mutant="decode_tiny_temp_greedy",
    kind="degenerate",
)
def test_a_tiny_positive_temperature_still_draws(student):
    scores = TINY_T_ROW.expand(400, -1).clone()
    for seed, temperature in ((144, 1e-3), (145, 1e-6), (146, 1e-9)):
        drawn = set(_draw(student, scores, seed, temperature=temperature).tolist())
        expect(
            drawn == {2, 5},
            f"temperature={temperature:g} with ids 2 and 5 tied for the best score: a positive temperature divides "
            f"the scores and draws, so both should be drawn (probability 1/2 each); {sorted(drawn)} were. Only "
            "temperature 0 is greedy",
        )


# ------------------------------------------------- round 2026-12-d: greedy on near-equal scores, p never reached
# Greedy reads the scores, not their probabilities: scores 1e-8 apart are different float32 numbers whose
# softmax rounds to one probability (exp(1e-8) is 1.0 in float32), so the argmax of the probabilities picks the
# smaller id where the larger score is the other.
NEAR_EQUAL = torch.tensor([[0.0, 1e-8, -3.0, -1.0], [-1.0, 2e-8, -2.0, 3e-8]])


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "greedy takes the argmax of the scores: scores closer than their probabilities' rounding still decide",
    mutant="decode_greedy_on_probs",
    kind="ties",
)
def test_greedy_reads_the_scores_not_their_probabilities(student):
    out = student.run("result = sample_next(scores, temperature=0)", scores=NEAR_EQUAL)
    ids = expect_shape(out, (2,), "the greedy ids")
    expect(
        ids.long().tolist() == [1, 3],
        "with temperature 0 each row's id is the argmax of its scores: in these rows the best score is only 1e-8 "
        "above the next, which torch.argmax tells apart but their softmax probabilities do not; take the "
        "argmax of the scores themselves",
    )


# p below 1 that no running sum reaches: the row's probabilities, as the scores' dtype rounds them, add up to less
# than p, so no id is cut and every id can be drawn (in exact arithmetic the last id reaches p, so every id is kept
# either way). (dtype, equal ids, p): the sums are 0.99999994 (float32), 0.9995 (float16) and 0.996 (bfloat16),
# and in float64 0.99999996, 0.99973 and 0.998, all below p. An answer that looks for the first rank reaching p
# and takes rank 0 when there is none keeps one id. With n equally likely ids, fewer than n/2 distinct among
# 2,000 draws has probability below 1e-100.
NEVER_REACHED = ((torch.float32, 41, 1 - 1e-9), (torch.float16, 41, 0.9999), (torch.bfloat16, 300, 0.999))


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p with p below 1 that the rounded running sum never reaches keeps every id (float32, float16, bfloat16)",
    mutant="decode_topp_argmax_cutoff",
    kind="boundary",
)
def test_a_p_the_running_sum_never_reaches_keeps_every_id(student):
    for seed, (dtype, n, top_p) in enumerate(NEVER_REACHED, start=147):
        ids = _draw(student, torch.zeros(2000, n, dtype=dtype), seed, top_p=top_p)
        drawn = len(set(ids.tolist()))
        expect(
            drawn >= n // 2,
            f"top_p={top_p} on {n} equal {str(dtype).replace('torch.', '')} scores: their probabilities, rounded, "
            f"add up to less than p, so no running sum reaches it and no id is cut; only {drawn} distinct id(s) "
            "were drawn. When no rank reaches p, keep every id",
        )


# ---------------------------------------------------- after round 2026-12-e: what torch.multinomial is given
# The weights handed to torch.multinomial, read in the kernel: a TorchFunctionMode sees every call of
# torch.multinomial and of Tensor.multinomial (torch.distributions draws through it too) and keeps a float64 copy
# of each row of its first argument. The kept set is then read exactly rather than estimated from draws: a p within
# 1e-7 of 1 cuts an id of probability 2e-8, which no number of draws a test can afford would see. A correct answer
# may hand over the whole row (cut ids weighing 0) or the kept ids only, and unnormalised weights: so the test
# compares the row's positive weights, normalised and sorted, with the oracle's kept probabilities, sorted. Calls
# that do not give one row per row of scores are left to the sampling tests.
MULTINOMIAL_WEIGHTS = """
from torch.overrides import TorchFunctionMode


class _Weights(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.rows = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.multinomial, torch.Tensor.multinomial):
            weights = args[0] if args else kwargs.get("input")
            flat = weights.detach().to(torch.float64).reshape(-1, weights.shape[-1])
            self.rows.extend(row.tolist() for row in flat)
        return func(*args, **kwargs)


outcomes = []
for scores, options in cases:
    recorder = _Weights()
    with recorder:
        sample_next(scores, generator=torch.Generator().manual_seed(3), **options)
    outcomes.append(recorder.rows)
result = outcomes
"""
# Rows whose kept set is decided within 1e-7 of p, in float64: probabilities (0.6, 0.39999998, 2e-8) with p = 1 - 1e-7
# (the running sum of the first two, 1 - 2e-8, reaches p: the third id is cut) and (0.5, 0.5 - 1e-10, 1e-10) with
# p = 1 - 1e-9; p = 1 keeps all three.
NEAR_ONE_EXACT = torch.log(torch.tensor([[0.6, 0.39999998, 2e-8], [0.5, 0.5 - 1e-10, 1e-10]], dtype=torch.float64))
WEIGHT_TOLERANCE = 1e-5  # normalised weights: an answer working in float32 is 1e-7 away
MARGIN = 1e-5  # random rows whose p lies this close to a running sum are skipped (float32 may move the cut)


def _weight_cases():
    rows = torch.randn(40, 45, generator=torch.Generator().manual_seed(150), dtype=torch.float64) * 2
    cases = [
        (NEAR_ONE_EXACT[:1], {"top_p": 1 - 1e-7}),
        (NEAR_ONE_EXACT[1:], {"top_p": 1 - 1e-9}),
        (NEAR_ONE_EXACT, {"top_p": 1.0}),
        (NEAR_ONE_EXACT, {"top_p": 0.9999, "temperature": 0.5}),
    ]
    for options in (
        {"top_p": 0.3},
        {"top_p": 0.9},
        {"top_p": 0.999999},
        {"top_k": 7, "top_p": 0.8},
        {"temperature": 0.7, "top_p": 0.95},
        {"top_k": 12},
        {"temperature": 1.5},
    ):
        cases.append((rows, options))
    return cases


def _one_row_each(rows, scores) -> bool:
    """The kernel's reply is one list of at most ntoken real numbers per row of scores (anything else, a
    hostile reply included, is left to the sampling tests)."""
    return (
        isinstance(rows, list)
        and len(rows) == scores.shape[0]
        and all(
            isinstance(row, list)
            and 0 < len(row) <= scores.shape[1]
            and all(type(w) in (int, float) and w == w for w in row)
            for row in rows
        )
    )


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p with p within 1e-6 of 1 (1 - 1e-7, 1 - 1e-9) still cuts what the running sum does not need: read from "
    "the weights handed to torch.multinomial",
    mutant="decode_topp_near_one",
    kind="degenerate",
)
@behaviour(
    "sample_next",
    "the weights handed to torch.multinomial are the kept ids' probabilities (in proportion), on 40 float64 rows "
    "in every branch",
    mutant="decode_top_p_keeps_one_more",
)
def test_torch_multinomial_weighs_exactly_the_kept_ids(student):
    cases = _weight_cases()
    out = student.run(MULTINOMIAL_WEIGHTS, cases=cases)
    expect(isinstance(out, list) and len(out) == len(cases), "the check of torch.multinomial's weights did not run")
    for (scores, options), rows in zip(cases, out):
        exact = scores.shape[1] == NEAR_ONE_EXACT.shape[1]  # the designed rows: their p is close to a sum on purpose
        if not _one_row_each(rows, scores):
            continue  # not one torch.multinomial row per row of scores: the sampling tests judge these draws
        for row, weights in zip(scores, rows):
            kept = sorted(q for q in decoding_distribution(row.tolist(), **options) if q > 0)
            if "top_p" in options and not exact:
                margin = nucleus_margin(
                    row.tolist(), options["top_p"], options.get("temperature", 1.0), options.get("top_k")
                )
                if margin < MARGIN:
                    continue
            positive = [w for w in weights if w > 0]
            where = f"{_shown(options)} on float64 scores"
            expect(
                len(positive) == len(kept),
                f"{where}: torch.multinomial was given {len(positive)} id(s) of positive weight in a row where "
                f"{len(kept)} should be kept (their probabilities: {', '.join(f'{q:.3g}' for q in kept[::-1][:6])}"
                f"{', ...' if len(kept) > 6 else ''}); an id cut by top-k or top-p must weigh exactly 0, and p below 1 "
                "cuts however close to 1 it is",
            )
            total = sum(positive)
            shares = sorted(w / total for w in positive)
            worst = max(abs(a - b) for a, b in zip(shares, kept))
            expect(
                worst <= WEIGHT_TOLERANCE,
                f"{where}: the weights handed to torch.multinomial, divided by their sum, differ from the kept ids' "
                f"renormalised probabilities by up to {worst:.3g}",
            )


# ---------------------------------------------------------------- round 2026-12-f: what its five misses showed
# p one float32 step above a running sum: rows of 4 equal float32 scores, whose running sums 1/4, 2/4, 3/4 are
# exact; p = 1/4 + 2^-25 and 2/4 + 2^-24 are the next float32 numbers above them (float32's step there), so the
# sum falls short by one step and the next id is kept too. A tolerance of one machine epsilon (2^-23) lets the set
# stop early. Missing one of the 2 or 3 kept ids in 2,000 draws: probability below 3 x (2/3)^2000.
STEP_CASES = ((1, 2**-25), (2, 2**-24))


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p: a running sum one float32 step (2^-24, 2^-25) short of p has not reached it: no tolerance of an epsilon",
    mutant="decode_f_eps_tolerance",
    kind="boundary",
)
def test_top_p_a_sum_one_float32_step_short_of_p_keeps_going(student):
    for seed, (k, step) in enumerate(STEP_CASES, start=160):
        top_p = k / 4 + step
        drawn = set(_draw(student, torch.zeros(2000, 4), seed, top_p=top_p).tolist())
        expect(
            len(drawn) == k + 1,
            f"top_p={k}/4 + 2**{int(math.log2(step))} on a row of 4 equal float32 scores: the running sum of {k} ids is "
            f"exactly {k}/4, one float32 step short of p, so {k + 1} ids should be drawn; {len(drawn)} were (compare "
            "with p itself: no tolerance, not even one epsilon)",
        )


# Rows far apart: the same 9 scores (ROW) shifted by a different constant in each row (0, -300, 250, -90), so each
# row's probabilities are softmax(ROW). A softmax stabilised with the largest score of the whole batch, not of each
# row, underflows every row 300 below it to zeros. 4,000 rows per shift: a frequency's deviation is at most
# 0.5 / sqrt(4,000) = 0.0079, and the bound 0.05 is more than 6 of them.
ROW_SHIFTS = (0.0, -300.0, 250.0, -90.0)
ROWS_PER_SHIFT = 4000


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "rows of one batch shifted by different constants (0, -300, 250, -90) each draw as their own differences say",
    mutant="decode_f_global_max_softmax",
    kind="degenerate",
)
def test_each_row_is_shifted_on_its_own(student):
    shifts = torch.tensor(ROW_SHIFTS).repeat_interleave(ROWS_PER_SHIFT)
    for seed, options in enumerate(({}, {"top_k": 5}, {"top_p": 0.9}), start=162):
        out = student.run(
            "try:\n"
            "    result = sample_next(scores, generator=torch.Generator().manual_seed(seed), **options)\n"
            "except Exception as error:\n"
            "    result = type(error).__name__",
            scores=ROW + shifts[:, None],
            seed=seed,
            options=options,
        )
        where = f"{_shown(options) or 'temperature 1'} on rows of one batch shifted by {', '.join(f'{s:g}' for s in ROW_SHIFTS)}"
        expect(
            isinstance(out, torch.Tensor),
            f"{where}: sample_next raised {vocabulary(out, 'an exception')}; each row is its own distribution",
        )
        ids = expect_shape(out, (len(shifts),), "the returned ids").long()
        wanted = torch.tensor(decoding_distribution(ROW.tolist(), **options), dtype=torch.float64)
        for group, shift in enumerate(ROW_SHIFTS):
            drawn = ids[group * ROWS_PER_SHIFT : (group + 1) * ROWS_PER_SHIFT]
            gap = (_frequencies(drawn, len(ROW)) - wanted).abs().max().item()
            expect(
                gap < 0.05,
                f"{where}: the rows shifted by {shift:g} draw some id {gap:.3f} away from its probability; adding a "
                "constant to a row changes nothing, whatever the other rows hold (let torch.softmax take each row's "
                "exponentials)",
            )


# p checked as the number it is: a p just above 1 raises even where the scores' dtype would round it to 1 (1.0001 is
# 1 in float16 and bfloat16). (A small valid p that such a dtype rounds to 0, 1e-8 in float16, is not tested: the
# running sum is compared with p in the scores' dtype by PyTorch itself, and correct answers then differ.)
@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-p: p is validated as given, not rounded to the scores' dtype: 1.0001 raises (float16, bfloat16)",
    mutant="decode_f_tensor_validated_p",
    kind="degenerate",
)
def test_p_is_validated_before_any_rounding(student):
    for dtype in (torch.float16, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        out = student.run(
            "try:\n"
            "    sample_next(scores, top_p=1.0001, generator=torch.Generator().manual_seed(0))\n"
            "    result = False\n"
            "except ValueError:\n"
            "    result = True",
            scores=ROW.to(dtype).expand(3, -1).clone(),
        )
        expect(
            out is True,
            f"top_p=1.0001 on {name} scores is above 1: raise ValueError (check p itself, a Python "
            f"number, not p rounded to {name}, where it becomes 1)",
        )


# Ties inside top-k, then top-p: 16 equal best scores among 45 (the others lower), top_k=16 keeps exactly them
# (none other ties with the 16th), and each then has probability 1/16, exact in float32, so p = 0.5 keeps the 8 of
# smaller id. torch.topk returns tied values in no promised order: the nucleus must rank them again, smaller id
# first. Missing one of the 8 in 2,000 draws has probability below 8 x (7/8)^2000.
TIED_BEST = (1, 4, 6, 9, 11, 14, 17, 20, 22, 26, 29, 31, 35, 38, 40, 44)


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top-k then top-p with ties among the kept ids: the nucleus ranks them again, smaller id first",
    mutant="decode_f_topk_order_reuse",
    kind="ties",
)
def test_top_k_then_top_p_ranks_tied_kept_ids_smaller_first(student):
    scores = torch.full((2000, 45), -1.0)
    scores[:, list(TIED_BEST)] = 2.0
    drawn = set(_draw(student, scores, 166, top_k=16, top_p=0.5).tolist())
    expect(
        drawn == set(TIED_BEST[:8]),
        f"top_k=16, top_p=0.5 on 45 scores whose 16 best tie: top-k keeps those 16, each with probability 1/16, and the "
        f"nucleus keeps the 8 of smaller id, {list(TIED_BEST[:8])}; {sorted(drawn)} were drawn (rank the kept ids "
        "by probability again, smaller id first among equals: torch.topk's order of equal values is not id order)",
    )


# ---------------------------------------------------------------------- round 2026-12-g: its one miss
# p = 1 keeps every id top-k kept, and top-k still cuts: top_k=2 with top_p=1.0 draws only each row's 2 best. On
# ROW the ids beyond the 2 best hold 0.42 of the whole softmax: never drawn in 2,000 rows by a correct answer, and
# about 840 times by one that returns before top-k when p is 1.


@question("sample_next_tests")
@behaviour(
    "sample_next",
    "top_p=1 with top_k: top-k still cuts (p = 1 keeps the ids top-k kept, not every id)",
    mutant="decode_g_p1_early_return",
    kind="degenerate",
)
def test_top_p_one_keeps_what_top_k_kept(student):
    for seed, options in ((170, {"top_k": 2, "top_p": 1.0}), (171, {"top_k": 4, "top_p": 1.0, "temperature": 1.5})):
        drawn = set(_draw(student, ROW.expand(2000, -1).clone(), seed, **options).tolist())
        best = set(ROW.topk(options["top_k"]).indices.tolist())
        expect(
            drawn == best,
            f"{_shown(options)}: top-k comes first and keeps ids {sorted(best)}; p = 1 then keeps all of those and "
            f"no other, so exactly they should be drawn; {sorted(drawn)} were",
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "sample_next",
        "top-k: ids tied with the k-th score kept or cut",
        "The skeleton accepts both and no test's scores tie at the k-th (the top-p ties come without top_k, and the boundary rows' top_k keeps exactly its finite scores); the solution keeps ties, variant decode_sort_and_scatter keeps exactly k.",
    ),
    (
        "sample_next",
        "train vs eval mode, gradients",
        "sample_next receives plain scores and no model; continue_text, which is given, sets eval mode and no_grad.",
    ),
    (
        "sample_next",
        "top-p's draws through the generator: how far the top-p and top-k branches move it",
        "A correct answer may hand torch.multinomial only the ids it keeps (variant decode_topk_then_index draws over the k best), which moves the generator less; only plain temperature sampling has one way to draw.",
    ),
    (
        "sample_next",
        "optimisation steps",
        "sample_next trains nothing: no step of it has a size that a tolerance could follow.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "sample_next",
        "scores",
        "(6, 31), (20000, 9), (500, 9), (1, 9), (4000, 13), (3, 9), (4, 7), (4, 45), (4, 4096), (4, 20003), "
        "(400, 13), (300, 45), (1, 20003), (64, 9), (300, 11), (3, 45) and (1, 45) on 'meta' in float32 and "
        "float64, (3, 45) and (1, 45) on a device that holds values in float32 and float64, (2000, 45) with -inf, "
        "(2000, 45) float64 with -inf, (2, 4), (100, 4), (1, 3) and (2, 3) in float64 near p = 1, (40, 45) in float64 read from torch.multinomial's weights, (16000, 9) shifted by 0, -300, 250 and -90 row by row, (2000, 4), (2000, 45) with 16 tied best, (3, 9) in float16 and bfloat16, (2000, 41) in float32 and float16, (2000, 300) in bfloat16, (100000, 3), (2000, 3) in float64, (400, 7), (300, 4096) with -inf, (2000, 45), (100, 20003), (500, 45), (8, 45), "
        "(8, 20003), (20, 20003), (200, 20003), (50, 13), (20000, 9) in float16, bfloat16 and float64, (6, 45) "
        "rounded in float16, bfloat16 and float64, (20000, 9) shifted by 12 (float16), +-200 and -30000 (float32) "
        "and -1e10 (float64)",
        None,
    ),
    (
        "sample_next",
        "temperature",
        "0 and 0.0 (greedy), 1e-9, 1e-6, 1e-3, 0.01, 0.5, 0.7, 0.8, 0.9, 1.0, 1.3, 2.0, 2 (an int), 2.5, 80.0",
        None,
    ),
    (
        "sample_next",
        "top_k",
        "None, 1, 2, 3, 4, 5, 9 (every id), 1 with top_p and at temperature 0.5, 5, 6 and 8 with top_p, 0, 3, 4 and 50 "
        "(above ntoken) at temperature 0",
        None,
    ),
    (
        "sample_next",
        "top_p",
        "None, 1e-6, 0.2, 0.3, 1 - 1e-7 and 1 - 1e-9 (float64), 0.9999 at temperature 0.5, 0.999999, 0.999 (bfloat16), 0.9999 (float16), 1 - 1e-9, 0.5, 0.6, 0.65, 0.7 (on float64 scores too), 0.73, 0.8, 0.85, 0.9, 0.95, 0.999, 0.9995, 1.0, 0.25 and 0.6 at tied boundaries, "
        "0.25, 0.375, 0.5, 0.5625 and 0.75 landing exactly on a running sum, 0.5 +- 2**-21, 0.25 + 2**-21, 1/4 + 2**-25, 2/4 + 2**-24, 1.0001 (float16, bfloat16, ValueError), 0.5 after top_k=16 on ties, and 0.375 - "
        "2**-21 next to one, 0.3 at temperature 0, 0.0, -0.2, 1.01 and NaN (ValueError), 1.5, 0.0, -0.3, 2.0 and 0.5 "
        "at temperature 0 (not checked)",
        None,
    ),
    (
        "sample_next",
        "generator",
        "omitted and None (torch's global generator) in every branch and at temperature 0, seeded 2, 3, 5 to 13, 17, "
        "21, 22, 31 to 64, 72, 101 to 155, one generator across calls, one restored from a saved state",
        None,
    ),
]
