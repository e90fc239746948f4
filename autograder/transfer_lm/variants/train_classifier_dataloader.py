"""Shuffles with a DataLoader over a TensorDataset (shuffle=True) instead of indexing with torch.randperm;
the order is random each epoch, drawn differently.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(inputs, lengths, labels),
                                         batch_size=batch_size, shuffle=True)
    total = 0.0
    for x, n, y in tqdm(loader, desc="fine-tune", disable=not progress, leave=False):
        x, n, y = x.to(device), n.to(device), y.to(device)
        loss = F.cross_entropy(model(x, mask, n), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
    return total / len(inputs)
