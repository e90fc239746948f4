"""clip_similarity: the logits of transformers' own CLIPModel, from the same projected embeddings.

The oracle is a tiny random CLIPModel built here, in the grader, with its weights and logit_scale chosen
here: its projections give the (unnormalised) embeddings the student's function receives, and its own
forward pass gives logits_per_text. Only the embeddings and logit_scale cross into the student's kernel.
"""

import math

import torch
from transformers import CLIPConfig, CLIPModel

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question

# (n_images, n_texts, embedding size): the counts never equal, so that a transposed result shows as a wrong
# shape; the last is the edge of a single image (for probs: of a single caption)
SIZES = [(3, 5, 7), (6, 2, 5), (1, 4, 7)]
RUN = """
result = dict(zip(("logits", "probs"), clip_similarity(image_embeds, text_embeds, logit_scale)))
result.update(images_after=image_embeds, texts_after=text_embeds)
"""


def _oracle(seed: int, n_images: int, n_texts: int, logit_scale: float, embed_dim: int = 7):
    """Embeddings and logits_per_text of a tiny random CLIPModel (16x16 images)."""
    torch.manual_seed(seed)
    model = CLIPModel(
        CLIPConfig(
            text_config=dict(
                vocab_size=40,
                hidden_size=12,
                intermediate_size=20,
                num_hidden_layers=1,
                num_attention_heads=2,
                max_position_embeddings=10,
                pad_token_id=0,
                bos_token_id=1,
                eos_token_id=3,
            ),
            vision_config=dict(
                hidden_size=12,
                intermediate_size=20,
                num_hidden_layers=1,
                num_attention_heads=2,
                image_size=16,
                patch_size=8,
            ),
            projection_dim=embed_dim,
        )
    ).eval()
    with torch.no_grad():
        model.logit_scale.fill_(logit_scale)
        ids = torch.randint(4, 40, (n_texts, 6))
        ids[:, 0], ids[:, -1] = 1, 3
        pixels = torch.randn(n_images, 3, 16, 16)
        images = model.visual_projection(model.vision_model(pixel_values=pixels).pooler_output)
        texts = model.text_projection(model.text_model(input_ids=ids).pooler_output)
        logits = model(input_ids=ids, pixel_values=pixels).logits_per_text
    return images, texts, model.logit_scale.detach().clone(), logits


def _run(student, images, texts, scale):
    return student.run(RUN, image_embeds=images, text_embeds=texts, logit_scale=scale)


@question("clip_similarity_tests")
@behaviour("clip_similarity", "logits_per_text against CLIPModel, exp of logit_scale", mutant="clip_scale_without_exp")
@behaviour("clip_similarity", "captions by images, not images by captions", mutant="clip_logits_per_image")
@behaviour(
    "clip_similarity",
    "a single image (the last size): logits keep both axes",
    mutant="clip_logits_squeezed",
    kind="batch-of-one",
)
def test_logits_match_clip_model_logits_per_text(student):
    # logit_scale at CLIP's initial log(1/0.07), and far from it (up to its cap of 100), so that using it
    # without exp() shows.
    scales = [math.log(1 / 0.07), math.log(50.0), math.log(100.0)]
    for seed, ((n_images, n_texts, dim), scale) in enumerate(zip(SIZES, scales)):
        images, texts, logit_scale, expected = _oracle(10 + seed, n_images, n_texts, scale, dim)
        out = _run(student, images, texts, logit_scale)
        expect(
            isinstance(out, dict) and "logits" in out, "clip_similarity should return a pair (logits_per_text, probs)"
        )
        what = f"logits_per_text ({n_texts} captions, {n_images} images)"
        expect_shape(out["logits"], (n_texts, n_images), f"{what} (n_texts, n_images)")
        expect_close(out["logits"], expected, what, rtol=1e-4, atol=1e-4)


@question("clip_similarity_tests")
@behaviour("clip_similarity", "embeddings normalised to unit length", mutant="clip_no_normalisation")
@behaviour("clip_similarity", "inputs left unchanged", mutant="clip_normalised_in_place")
def test_scores_ignore_embedding_length_and_leave_the_inputs_unchanged(student):
    images, texts, logit_scale, expected = _oracle(20, 4, 3, math.log(20.0))
    # Each embedding rescaled by its own positive factor: cosine similarities, hence logits, are unchanged.
    factors = torch.Generator().manual_seed(21)
    images = images * torch.empty(4, 1).uniform_(0.1, 10, generator=factors)
    texts = texts * torch.empty(3, 1).uniform_(0.1, 10, generator=factors)
    originals = images.clone(), texts.clone()  # the in-process door passes these very tensors
    out = _run(student, images, texts, logit_scale)
    expect(isinstance(out, dict) and "logits" in out, "clip_similarity should return a pair (logits_per_text, probs)")
    expect_close(
        out["logits"],
        expected,
        "logits_per_text for rescaled embeddings (normalise each embedding to unit length)",
        rtol=1e-4,
        atol=1e-4,
    )
    for name, after, before in (
        ("image_embeds", "images_after", originals[0]),
        ("text_embeds", "texts_after", originals[1]),
    ):
        expect(
            torch.equal(out[after], before),
            f"clip_similarity changed its argument {name}; normalise into a new tensor instead",
        )


@question("clip_similarity_tests")
@behaviour("clip_similarity", "probabilities a softmax over the images", mutant="clip_softmax_over_captions")
@behaviour(
    "clip_similarity",
    "a single caption (the last size): probs keep both axes",
    mutant="clip_logits_squeezed",
    kind="batch-of-one",
)
def test_probs_are_a_softmax_over_the_images_for_each_caption(student):
    for seed, (n_texts, n_images, dim) in enumerate(SIZES):  # counts swapped: a single caption last
        images, texts, logit_scale, expected = _oracle(30 + seed, n_images, n_texts, math.log(30.0), dim)
        out = _run(student, images, texts, logit_scale)
        expect(
            isinstance(out, dict) and "probs" in out, "clip_similarity should return a pair (logits_per_text, probs)"
        )
        probs = expect_shape(out["probs"], (n_texts, n_images), f"probs ({n_texts} captions, {n_images} images)")
        sums = probs.float().sum(dim=-1)
        expect(
            bool(((sums - 1).abs() < 1e-4).all()),
            f"each caption's probabilities (a row of probs) must sum to 1 over the images; a row sums to "
            f"{sums[(sums - 1).abs().argmax()].item():.4g}",
        )
        expect_close(
            probs, expected.softmax(dim=-1), f"probs ({n_texts} captions, {n_images} images)", rtol=1e-4, atol=1e-5
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "clip_similarity",
        "gradient flow, mode, randomness",
        "The notebook calls it under torch.no_grad on fixed embeddings: nothing trains through it or samples.",
    ),
    (
        "clip_similarity",
        "the order of the products (logits per image, transposed) and F.normalize",
        "Any order that gives logits_per_text is allowed; variant clip_openai_order keeps full marks.",
    ),
    ("clip_similarity", "randomness", "It draws no random number.", "randomness"),
    ("clip_similarity", "validation order", "It checks no argument and has no special case.", "validation-order"),
    ("clip_similarity", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    (
        "clip_similarity",
        "a sort's ties",
        "It sorts and ranks nothing; the notebook's retrieval ranks outside it.",
        "ties",
    ),
    (
        "clip_similarity",
        "degenerate values (an embedding of length zero)",
        "A zero embedding has no direction: CLIPModel's own normalisation gives NaN there too, and projected embeddings of real images and captions are never zero.",
        "degenerate",
    ),
    ("clip_similarity", "state across calls", "A function of its arguments alone.", "state"),
    (
        "clip_similarity",
        "device of what it makes",
        "It makes no tensor of its own: every value comes from the embeddings and logit_scale.",
        "device",
    ),
    (
        "clip_similarity",
        "hyper-parameters that are not whole numbers",
        "Its one hyper-parameter, logit_scale, is a float tensor that is only exponentiated, and the tests use non-whole values only (the logs of 14.3, 20, 30, 50, 100).",
        "non-integer",
    ),
    (
        "clip_similarity",
        "optimisation steps",
        "It takes no optimisation step; the notebook calls it under torch.no_grad.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "clip_similarity",
        "image_embeds",
        "(n_images, embed_dim) with n_images 1 to 6 and embed_dim 5, 7; each row rescaled by 0.1 to 10",
        None,
    ),
    (
        "clip_similarity",
        "text_embeds",
        "(n_texts, embed_dim) with n_texts 1 to 6 and embed_dim 5, 7; each row rescaled by 0.1 to 10",
        None,
    ),
    ("clip_similarity", "logit_scale", "a 0-dim tensor: the log of 14.3, 20, 30, 50 and 100", None),
]
