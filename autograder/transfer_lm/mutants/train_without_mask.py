"""Calls the model without the causal mask during training (src_mask=None), so every position can
read its own target at the next position.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    """One epoch of next-token training over the chunks (batch-first, shapes (nchunks, seq)).

    For each batch of rows: logits = model(x, mask) with the causal mask from
    generate_square_subsequent_mask(seq), cross-entropy over every position against the targets,
    zero the gradients, backward, clip the gradient norm to `clip`, optimizer step. Put the model in
    training mode first; move batches to the model's device. Show a tqdm progress bar over batches
    unless progress=False. Return the mean loss per token over the epoch (a float).
    Our solution is about 15 lines.
    """
    model.train()
    device = next(model.parameters()).device
    mask = None
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="train", disable=not progress, leave=False):
        x = inputs[start : start + batch_size].to(device)       # (batch, seq)
        y = targets[start : start + batch_size].to(device)      # (batch, seq)
        logits = model(x, mask)                                 # (batch, seq, ntoken)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
