"""sample_next_tests: greedy, temperature and top-k decoding against the softmax they should draw from, with
the given generator and nothing else.

The sampling checks compare frequencies with the oracle's probabilities over many independent rows. Each
run draws N = 20,000 rows from one score row, for three generator seeds; a frequency's standard deviation
is sqrt(p(1 - p) / N) <= 0.5 / sqrt(20,000) = 0.0035, so a bound of 0.02 is more than 5 sigma for every
id: a correct answer fails with probability below 1e-6 per id and seed (and the draws are seeded, so a
correct answer gives the same verdict every time). The mistakes these checks catch move some probability
by 0.1 or more.
"""

import torch

from assignments.grading.testkit import expect, expect_shape, question

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


@question("sample_next_tests", points=1)
def test_greedy_takes_each_rows_argmax(student):
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(6, 31, generator=g)  # batch 6, ntoken 31: rows differ
    for options in ({"temperature": 0}, {"temperature": 0, "top_k": 4}):
        out = student.run("result = sample_next(scores, **options)", scores=scores, options=options)
        ids = expect_shape(out, (6,), "the greedy ids")
        expect(
            torch.equal(ids.long(), scores.argmax(dim=-1)),
            "with temperature 0 each row's id should be the position of that row's largest score "
            "(argmax over the vocabulary, one id per row)",
        )


@question("sample_next_tests", points=1)
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
        f"{tuple(getattr(out['one'], 'shape', ()))}: squeeze only the sample dimension (squeeze(-1)), not every "
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


@question("sample_next_tests", points=1)
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
