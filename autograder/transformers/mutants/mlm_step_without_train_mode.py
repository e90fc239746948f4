"""Never calls model.train() in mlm_step, so a model handed over in eval mode (after fill_in or an
evaluation) is pre-trained with its dropout switched off.

question: mlm_step_tests
replaces: mlm_step
contract: mlm_step puts the model in training mode
"""


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15,
             generator=None):
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == pad_token_id)
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
