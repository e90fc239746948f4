"""Returns the loss tensor itself (return loss) instead of loss.item(): the number is right, but it is a
tensor that holds the step's whole graph, which the pre-training loop's list of losses keeps alive step
after step.

question: mlm_step_tests
replaces: mlm_step
contract: mlm_step returns the loss as a Python float
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == pad_token_id)
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
