"""Returns the average of the batch losses, so the short last batch counts as much as a full one,
instead of the mean loss per review.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    losses = []
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        loss = F.cross_entropy(model(x, mask, n), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
