"""Negates F.cross_entropy with reduction='none', after replacing the targets that do not count by -100
(ignore_index), the way language-model training code masks labels.

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    targets = ids[:, 1:].clone()
    position = torch.arange(1, ids.size(1), device=ids.device)
    ignored = (position < prompt_lengths[:, None]) | (position >= lengths[:, None])
    targets[ignored] = -100
    per_token = F.cross_entropy(logits[:, :-1].transpose(1, 2), targets, reduction="none", ignore_index=-100)
    return -per_token.sum(dim=1)
