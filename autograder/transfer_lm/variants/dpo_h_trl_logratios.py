"""Follows the TRL DPOTrainer form: the policy's and the reference's chosen-minus-rejected log-ratios first,
their difference as the logits, then -F.logsigmoid(beta * logits).mean() (the same margin, grouped by model
instead of by continuation).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
source: Hugging Face TRL, DPOTrainer.dpo_loss (sigmoid loss)
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    pi_logratios = policy_chosen - policy_rejected
    ref_logratios = reference_chosen.detach() - reference_rejected.detach()
    logits = pi_logratios - ref_logratios
    return -F.logsigmoid(beta * logits).mean()
