"""Zeroes the gradients first (set_to_none), takes the loss with F.cross_entropy on views of the logits
and labels, passes the arguments to mask_inputs by keyword, and puts the model back in the mode it found it
in (the contract fixes the mode the step runs in, not the one it leaves).

question: mlm_step_tests
replaces: mlm_step
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15,
             generator=None):
    was_training = model.training
    optimizer.zero_grad(set_to_none=True)
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size=vocab_size, mask_token_id=mask_token_id,
                                 pad_token_id=pad_token_id, mask_rate=mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens.eq(pad_token_id))
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
    loss.backward()
    optimizer.step()
    model.train(was_training)
    return float(loss)
