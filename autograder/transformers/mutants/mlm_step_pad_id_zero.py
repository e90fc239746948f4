"""Takes 0 for the pad id, both in the call to mask_inputs and in the padding mask, instead of the
pad_token_id argument (0 in every example).

question: mlm_step_tests
replaces: mlm_step
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15,
             generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, 0, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == 0)
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
