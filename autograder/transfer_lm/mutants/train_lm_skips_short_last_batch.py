"""Counts the batches as len(inputs) // batch_size, so the short last batch is never trained on: with
10 windows in batches of 3 the last window, a batch of one, is skipped.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for i in tqdm(range(inputs.size(0) // batch_size), desc="train", disable=not progress, leave=False):
        x = inputs[i * batch_size : (i + 1) * batch_size].to(device)
        y = targets[i * batch_size : (i + 1) * batch_size].to(device)
        logits = model(x, mask)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
