"""Calls mask_inputs without passing the generator on, so the corruption comes from the global random
state and a seeded generator no longer reproduces a pre-training run.

question: mlm_step_tests
replaces: mlm_step
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15,
             generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate)
    logits = model(masked, pad_mask=tokens == pad_token_id)
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
