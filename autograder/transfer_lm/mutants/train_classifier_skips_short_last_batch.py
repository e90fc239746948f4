"""Counts the batches as len(inputs) // batch_size, so the reviews of a short last batch are never
trained on: with 10 reviews in batches of 3, the last review of the permutation, a batch of one, is
skipped.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for i in tqdm(range(inputs.size(0) // batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[i * batch_size : (i + 1) * batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        logits = model(x, mask, n)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
