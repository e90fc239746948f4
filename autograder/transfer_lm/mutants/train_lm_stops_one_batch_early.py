"""Ends the loop at range(0, len(inputs) - batch_size, batch_size) to keep the last slice from running
past the end: the last batch, the one that starts at len(inputs) - batch_size or later, is never
trained on (a short one, or a full one when the windows fill their batches exactly).

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0) - batch_size, batch_size), desc="train", disable=not progress):
        x = inputs[start : start + batch_size].to(device)
        y = targets[start : start + batch_size].to(device)
        logits = model(x, mask)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
