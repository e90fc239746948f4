"""Returns the sum of the batch losses and accuracies instead of their means over the loader.

question: train_eval_loops_tests
replaces: train_eval_loops
"""


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze(1)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        total_accuracy += binary_accuracy(logits.detach(), labels).item()
    return total_loss, total_accuracy
