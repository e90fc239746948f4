"""Writes -log(sigmoid(x)) stably as logaddexp(0, -x), building the zeros with torch.zeros(len(x)): they are
made on the CPU (and in float32), so inputs on a GPU (or any other device) make it raise.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: the loss is on the inputs' device (make what you create there)
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    x = beta * margin
    return torch.logaddexp(torch.zeros(len(x)), -x).mean()
