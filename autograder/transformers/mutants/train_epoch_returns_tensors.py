"""Adds up the loss and accuracy tensors themselves (total_loss += loss) instead of their .item(), so
train_epoch returns tensors (the loss one still attached to the graph), which the notebook's learning-curve
plot cannot draw.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: train_epoch returns Python floats
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
        total_loss += loss
        total_accuracy += binary_accuracy(logits.detach(), labels)
    return total_loss / len(loader), total_accuracy / len(loader)
