"""Sums the cross-entropy over the selected tokens (reduction="sum") instead of averaging it, so the loss
and the step size grow with the number of selected tokens in the batch.

question: mlm_step_tests
replaces: mlm_step
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15,
             generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == pad_token_id)
    loss = nn.CrossEntropyLoss(ignore_index=-100, reduction="sum")(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
