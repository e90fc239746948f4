"""Forgets model.eval() in evaluate, so dropout is still active while validating.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: evaluate puts the model in eval mode
"""


def evaluate(model, loader, criterion):
    total_loss, total_accuracy = 0.0, 0.0
    with torch.no_grad():
        for batch in loader:
            batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
            labels = batch.pop("labels")
            logits = model(**batch).squeeze(1)
            total_loss += criterion(logits, labels).item()
            total_accuracy += binary_accuracy(logits, labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
