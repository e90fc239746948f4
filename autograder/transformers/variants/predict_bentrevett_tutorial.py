"""The bentrevett sentiment tutorial's predict_sentiment: tokenize, add the [CLS] and [SEP] ids by hand,
build a LongTensor, call the model positionally and take the sigmoid.

question: predict_sentiment_tests
replaces: predict_sentiment
source: bentrevett/pytorch-sentiment-analysis, 6 - Transformers for Sentiment Analysis
"""


def predict_sentiment(model, tokenizer, sentence):
    model.eval()
    tokens = tokenizer.tokenize(sentence)
    tokens = tokens[:510]
    indexed = [tokenizer.cls_token_id] + tokenizer.convert_tokens_to_ids(tokens) + [tokenizer.sep_token_id]
    tensor = torch.LongTensor(indexed).to(DEVICE)
    tensor = tensor.unsqueeze(0)
    prediction = torch.sigmoid(model(tensor))
    return prediction.item()
