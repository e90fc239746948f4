"""Writes -log(sigmoid(x)) as softplus(-x), with the reference's log-ratio computed under torch.no_grad().

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    with torch.no_grad():
        reference_margin = reference_chosen - reference_rejected
    logits = beta * ((policy_chosen - policy_rejected) - reference_margin)
    return F.softplus(-logits).mean()
