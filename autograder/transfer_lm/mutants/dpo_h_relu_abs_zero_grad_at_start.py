"""Writes the stable softplus by hand, -log(sigmoid(x)) = relu(-x) + log1p(exp(-|x|)): the values are right,
but torch gives relu and abs a gradient of 0 at x = 0, so every pair with margin 0 gets no gradient: with the
policy equal to the reference (the start of DPO training) the loss is ln 2 and its gradient is 0 instead of
-beta / 2 per pair (divided by the number of pairs).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: The gradient is the formula's everywhere, at a margin of exactly 0 too
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    x = beta * margin
    return (torch.relu(-x) + torch.log1p(torch.exp(-x.abs()))).mean()
