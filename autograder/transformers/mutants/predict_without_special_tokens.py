"""Turns the sentence into ids with convert_tokens_to_ids(tokenize(...)), which leaves out the [CLS] and
[SEP] tokens BERT was trained to see around every sentence.

question: predict_sentiment_tests
replaces: predict_sentiment
"""


def predict_sentiment(model, tokenizer, sentence):
    model.eval()
    ids = torch.tensor([tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence))], device=DEVICE)
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids))
    return torch.sigmoid(logits).item()
