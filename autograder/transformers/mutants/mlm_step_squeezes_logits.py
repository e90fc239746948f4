"""Squeezes the logits, as the sentiment loop does, and takes the loss over them laid out as (batch,
vocab_size, seq): the same loss for a batch of several sentences, but the logits of a single sentence lose
their batch axis and the transpose fails.

question: mlm_step_tests
replaces: mlm_step
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == pad_token_id).squeeze()
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.transpose(1, 2), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
