"""The course catalog: assignments in course order with their questions and points."""

COURSE_ORDER = ["transformers", "rnn_attention", "transfer_lm"]
