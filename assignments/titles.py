"""What students call a question: its notebook heading, or its grade_id made readable (issue #36).

The title is worked out from the assignment's questions (``notebooks.Question``, heading included) and
recorded in each ``QuestionResult`` at grading time, so every export shows the same title even where the
source notebook is absent (the Gradescope bundle carries the headings in its grading manifest).
"""

from __future__ import annotations

# Words that names spell in lower case (Python identifiers) but a title spells as the field does.
SPELLING = {
    "lm": "LM",
    "mlm": "MLM",
    "bert": "BERT",
    "gru": "GRU",
    "lstm": "LSTM",
    "mha": "MHA",
    "clip": "CLIP",
    "pytorch": "PyTorch",
    "grucell": "GRUCell",
    "qkv": "QKV",
    "nn": "nn",
    "cls": "CLS",
}


def title_case(words: str) -> str:
    """Words of an identifier as a title: known acronyms and names spelled as usual, the first letter up."""
    text = " ".join(SPELLING.get(word.lower(), word) for word in words.split())
    return text[:1].upper() + text[1:]


def humanise_question(grade_id: str) -> str:
    """``scaled_dot_product_tests`` -> ``Scaled dot product``; ``mlm_step_tests`` -> ``MLM step``;
    ``attention_written`` -> ``Attention (written)``."""
    text = grade_id
    suffix = ""
    if text.endswith("_tests"):
        text = text[: -len("_tests")]
    elif text.endswith("_written"):
        text, suffix = text[: -len("_written")], " (written)"
    text = text.replace("_", " ").strip() or grade_id
    return title_case(text) + suffix


def question_titles(questions) -> dict[str, str]:
    """grade_id -> the title students know the question by, for an assignment's ``questions``
    (``notebooks.Question``): the notebook's heading above it; where one heading covers several questions,
    the heading and the readable grade_id; the readable grade_id where there is no heading."""
    shared: dict[str, int] = {}
    for question in questions:
        shared[question.heading] = shared.get(question.heading, 0) + 1
    titles = {}
    for question in questions:
        readable = humanise_question(question.grade_id)
        if not question.heading:
            titles[question.grade_id] = readable
        else:
            titles[question.grade_id] = (
                question.heading if shared[question.heading] == 1 else f"{question.heading} · {readable}"
            )
    return titles
