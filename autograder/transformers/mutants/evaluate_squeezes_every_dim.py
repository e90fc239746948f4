"""Squeezes the logits with .squeeze() instead of .squeeze(1) in evaluate: the same for batches of several
reviews, but a last batch of one review gives a 0-dimensional logit that the criterion cannot compare with
its (1,) labels.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: logits = model(**inputs).squeeze(1), in evaluate as in train_epoch
"""


def evaluate(model, loader, criterion):
    model.eval()
    total_loss, total_accuracy = 0.0, 0.0
    with torch.no_grad():
        for batch in loader:
            batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
            labels = batch.pop("labels")
            logits = model(**batch).squeeze()
            total_loss += criterion(logits, labels).item()
            total_accuracy += binary_accuracy(logits, labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
