"""Computes each pair's term in a Python loop (F.logsigmoid on the 0-dim margin of pair i), stacks the terms
with torch.stack and takes their mean: same values and gradient, pair by pair.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    terms = []
    for i in range(policy_chosen.shape[0]):
        chosen = policy_chosen[i] - reference_chosen[i].detach()
        rejected = policy_rejected[i] - reference_rejected[i].detach()
        terms.append(-F.logsigmoid(beta * (chosen - rejected)))
    return torch.stack(terms).mean()
