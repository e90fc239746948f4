"""Takes a running sum of every token's log-probability, with a zero in front, and subtracts its value at the
prompt's end from its value at the continuation's end.

Corrected in blind hunt 2026-12-h: its leading zero was torch.zeros_like(token[:, :1]), which is empty at seq 1
(no target position), so the gather raised there; the skeleton now names seq 1. new_zeros(batch, 1) keeps the zero.

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    token = torch.log_softmax(logits[:, :-1], -1).gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    running = torch.cat([token.new_zeros(token.size(0), 1), token.cumsum(dim=1)], dim=1)  # running[:, k]: tokens 1 .. k
    end = running.gather(1, (lengths - 1).unsqueeze(1)).squeeze(1)
    start = running.gather(1, (prompt_lengths - 1).unsqueeze(1)).squeeze(1)
    return end - start
