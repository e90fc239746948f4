"""Upcasts half-precision log-probabilities (float16, bfloat16) to float32 before the log-sigmoid, for
stability, and forgets to cast the loss back: float16 and bfloat16 inputs give a float32 loss (float32 and
float64 inputs are untouched).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: the loss comes back in the inputs' dtype
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    if margin.dtype in (torch.float16, torch.bfloat16):
        margin = margin.float()
    return -F.logsigmoid(beta * margin).mean()
