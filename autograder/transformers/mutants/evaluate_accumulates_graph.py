"""Adds up the loss and accuracy tensors themselves (total_loss += criterion(...)) without torch.no_grad()
or .item(): evaluate returns a loss tensor that holds the graph of every batch it saw, which the caller keeps
alive as long as it keeps the number.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: evaluate returns Python floats
"""


def evaluate(model, loader, criterion):
    model.eval()
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze(1)
        total_loss += criterion(logits, labels)
        total_accuracy += binary_accuracy(logits, labels)
    return total_loss / len(loader), total_accuracy / len(loader)
