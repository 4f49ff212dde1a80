# expect: Dice: 0\.\d+
# expect: HausdorffDistance: \d\.\d+
# expect: MeanSurfaceDistance: \d\.\d+
# expect: Perplexity: \d+\.\d+
# expect: BleuScore: 0\.\d+
# expect: CosineSimilarity row sums: \[\d\.\d+, \d\.\d+, \d\.\d+\]
# expect: names include mae and roc: True
"""The less common metrics as their documentation examples use them: Dice, surface distances, perplexity, BLEU."""
import numpy as np

import mindspore as ms
from mindspore import Tensor
from mindspore import train

pred_mask = np.zeros((8, 8), np.float32)
pred_mask[2:6, 2:6] = 1
true_mask = np.zeros((8, 8), np.float32)
true_mask[3:7, 2:7] = 1

dice = train.Dice(smooth=1e-5)
dice.clear()
dice.update(Tensor(pred_mask[None]), Tensor(true_mask[None]))
print("Dice:", round(float(dice.eval()), 4))

hausdorff = train.HausdorffDistance()
hausdorff.update(Tensor(pred_mask), Tensor(true_mask), 1)
print("HausdorffDistance:", round(float(hausdorff.eval()), 4))

msd = train.MeanSurfaceDistance(symmetric=True, distance_metric="euclidean")
msd.update(Tensor(pred_mask), Tensor(true_mask), 1)
print("MeanSurfaceDistance:", round(float(msd.eval()), 4))

preds = Tensor(np.array([[0.6, 0.5, 0.1], [0.3, 0.6, 0.05], [0.1, 0.6, 0.2], [0.1, 0.2, 0.7]]), ms.float32)
labels = Tensor(np.array([2, 1, 0, 1]), ms.int32)
perplexity = train.Perplexity(ignore_label=None)
perplexity.update(preds, labels)
print("Perplexity:", round(float(perplexity.eval()), 4))

candidate_corpus = [['i', 'have', 'a', 'pen', 'on', 'my', 'desk']]
reference_corpus = [[['i', 'have', 'a', 'pen', 'in', 'my', 'desk'],
                     ['there', 'is', 'a', 'pen', 'on', 'the', 'desk']]]
bleu = train.BleuScore()
bleu.update(candidate_corpus, reference_corpus)
print("BleuScore:", round(float(bleu.eval()), 4))

cosine = train.CosineSimilarity(reduction="sum")
cosine.update(np.array([[1, 3, 4, 7], [2, 4, 2, 5], [3, 1, 5, 8]]))
print("CosineSimilarity row sums:", [round(float(v), 3) for v in cosine.eval()])
print("names include mae and roc:", "mae" in train.names() and "roc" in train.names())
