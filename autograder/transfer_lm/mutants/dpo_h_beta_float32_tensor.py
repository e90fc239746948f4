"""Turns beta into a tensor with torch.tensor(beta) (default dtype float32) before multiplying: the 0-dim
float32 beta does not change the result's dtype, but a beta that float32 cannot hold exactly (0.1, 0.3) is
rounded, so float64 losses and gradients are off by about 1e-8 relative.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: beta: a positive number (an int or a float: 0.1, 0.5, 1, 2.5, ...)
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    beta = torch.tensor(beta)
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -F.logsigmoid(beta * margin).mean()
