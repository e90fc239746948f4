"""Makes the positions on the CPU, so on a GPU they meet the lengths on another device.

question: sequence_logprob_tests
replaces: sequence_logprob
contract: make what you create on logits.device
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    targets = ids[:, 1:]
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1))
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
