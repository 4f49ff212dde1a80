"""Metric values checked against MindSpore 2.10.

Every expected number below is MindSpore 2.10's output for the same inputs
(computed once with MindSpore itself and written here).
"""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
import cadence.train as train
from cadence import Tensor


def f32(values):
    return Tensor(np.array(values), ms.float32)


def assert_float64(value, expected, rtol=1e-12):
    assert type(value) is np.float64
    np.testing.assert_allclose(value, expected, rtol=rtol)


X4 = f32([0.1, 0.2, 0.6, 0.9])
Y4 = f32([0.1, 0.25, 0.7, 0.9])
P3 = f32([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])
L3 = Tensor(np.array([1, 0, 1]), ms.int32)
CM_SCORES = f32([[0.1, 0.8, 0.1], [0.7, 0.2, 0.1], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]])
CM_LABELS = f32([1, 0, 2, 1])


def test_scalar_metrics_are_float64_with_mindspores_values():
    # float32 inputs: MindSpore sums in float32, so agreement is to float32 precision.
    assert_float64(train.MAE()(X4, Y4), 0.037499990314245224, rtol=1e-6)
    assert_float64(
        train.MSE()(X4, f32([0.1, 0.25, 0.5, 0.9])), 0.003124997951090336, rtol=1e-6
    )
    loss = train.Loss()
    loss.update(f32(0.2))
    loss.update(f32([0.1, 0.5]))
    assert_float64(loss.eval(), 0.2500000074505806)
    assert_float64(train.Accuracy()(P3, L3), 0.6666666666666666)
    precision = train.Precision()
    precision.update(P3, L3)
    np.testing.assert_allclose(precision.eval(), [0.5, 1.0])
    assert_float64(precision.eval(average=True), 0.75)
    recall = train.Recall()
    recall.update(P3, L3)
    np.testing.assert_allclose(recall.eval(), [1.0, 0.5])
    np.testing.assert_allclose(train.F1()(P3, L3), [0.66666667, 0.66666667])
    np.testing.assert_allclose(train.Fbeta(2)(P3, L3), [0.83333333, 0.55555556])
    x5 = f32(
        [
            [0.2, 0.5, 0.3, 0.6, 0.2],
            [0.1, 0.35, 0.5, 0.2, 0.0],
            [0.9, 0.6, 0.2, 0.01, 0.3],
        ]
    )
    assert_float64(
        train.TopKCategoricalAccuracy(3)(x5, f32([2, 0, 1])), 0.6666666666666666
    )
    assert_float64(train.Top1CategoricalAccuracy()(x5, f32([2, 0, 1])), 0.0)


def test_mae_and_mse_are_the_same_classes_under_nn_and_train():
    assert nn.MAE is train.MAE and nn.MSE is train.MSE and nn.Metric is train.Metric
    assert nn.rearrange_inputs is train.rearrange_inputs


def test_mae_on_2d_regression_counts_samples_not_elements():
    mae = train.MAE()
    mae.update(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.5, 2.0], [2.0, 4.0]]))
    assert mae.eval() == pytest.approx(0.75)  # (0.5 + 1.0) / 2 samples
    with pytest.raises(ValueError, match="as many elements"):
        mae.update(np.zeros(3), np.zeros(4))


def test_confusion_matrix_counts_and_normalizations():
    matrix = train.ConfusionMatrix(num_classes=2, normalize="no_norm", threshold=0.5)
    matrix.update(f32([1, 0, 1, 0]), f32([1, 0, 0, 1]))
    np.testing.assert_array_equal(matrix.eval(), [[1.0, 1.0], [1.0, 1.0]])
    expected = {
        "target": [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]],
        "prediction": [[0.5, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]],
        "all": [[0.25, 0.0, 0.0], [0.25, 0.25, 0.0], [0.0, 0.0, 0.25]],
    }
    for normalize, values in expected.items():
        metric = train.ConfusionMatrix(num_classes=3, normalize=normalize)
        metric.update(CM_SCORES, CM_LABELS)
        np.testing.assert_allclose(metric.eval(), values)


def test_confusion_matrix_rejects_bad_arguments():
    with pytest.raises(ValueError, match="'normalize' must be one of"):
        train.ConfusionMatrix(2, normalize="label")
    with pytest.raises(TypeError, match="'threshold'"):
        train.ConfusionMatrix(2, threshold=1)
    with pytest.raises(ValueError, match=r"classes must be in \[0, 2\)"):
        train.ConfusionMatrix(2).update(np.array([0, 1]), np.array([0, 5]))
    with pytest.raises(RuntimeError, match="call the 'update' method"):
        train.ConfusionMatrix(2).eval()


# (metric_name, [summed counts, per-sample mean with skip_channel=True, per-sample sum without channel 0])
CMM_EXPECTED = [
    ("sensitivity", [0.5164835164835165, 0.5162738496071829, 1.7491582491582491]),
    ("specificity", [0.3584905660377358, 0.34391534391534395, 0.9793650793650794]),
    ("precision", [0.5802469135802469, 0.5842592592592594, 1.9305555555555556]),
    (
        "negative predictive value",
        [0.30158730158730157, 0.2773569023569024, 0.7777777777777777],
    ),
    ("miss rate", [0.4835164835164835, 0.483726150392817, 1.5841750841750841]),
    ("fall out", [0.6415094339622641, 0.6560846560846562, 2.353968253968254]),
    (
        "false discovery rate",
        [0.41975308641975306, 0.41574074074074074, 1.402777777777778],
    ),
    (
        "false omission rate",
        [0.6984126984126984, 0.7226430976430978, 2.5555555555555554],
    ),
    (
        "prevalence threshold",
        [0.5270710660876144, 0.5275718245323232, 1.4126308386052988],
    ),
    ("threat score", [0.376, 0.37346033596033595, 1.2544261294261296]),
    ("accuracy", [0.4583333333333333, 0.4583333333333333, 1.4791666666666667]),
    (
        "balanced accuracy",
        [0.4374870412606262, 0.43009459676126344, 1.3642616642616643],
    ),
    ("f1 score", [0.5465116279069767, 0.5416419470576602, 1.8200271209424528]),
    (
        "matthews correlation coefficient",
        [-0.12154746259496137, -0.13889630605076017, -0.6138840730963264],
    ),
    (
        "fowlkes mallows index",
        [0.5474376369547796, 0.5458983699748513, 1.8298918354987725],
    ),
    ("informedness", [-0.12502591747874758, -0.13981080647747315, -0.6048100048100049]),
    ("markedness", [-0.11816578483245155, -0.1383838383838384, -0.625]),
]


@pytest.mark.parametrize(("name", "expected"), CMM_EXPECTED)
def test_confusion_matrix_metric_every_rate(name, expected):
    rng = np.random.default_rng(0)
    y_pred = (rng.random((2, 3, 4, 4)) > 0.5).astype(np.float32)
    y = (rng.random((2, 3, 4, 4)) > 0.4).astype(np.float32)
    settings = [(False, "mean", True), (True, "mean", True), (True, "sum", False)]
    for (per_sample, decrease, skip), value in zip(settings, expected, strict=True):
        metric = train.ConfusionMatrixMetric(
            skip_channel=skip,
            metric_name=name,
            calculation_method=per_sample,
            decrease=decrease,
        )
        metric.update(Tensor(y_pred), Tensor(y))
        metric.update(Tensor(y_pred[:1]), Tensor(y[1:]))
        result = metric.eval()
        np.testing.assert_allclose(np.asarray(result).reshape(-1)[0], value, rtol=1e-12)


def test_confusion_matrix_metric_small_case_and_errors():
    metric = train.ConfusionMatrixMetric(metric_name="tpr")
    metric.update(f32([[[0], [1]], [[1], [0]]]), f32([[[0], [1]], [[0], [1]]]))
    np.testing.assert_allclose(metric.eval(), [0.5])
    with pytest.raises(NotImplementedError, match="'metric_name' must be one of"):
        train.ConfusionMatrixMetric(metric_name="recal")
    with pytest.raises(ValueError, match="'decrease' must be one of"):
        train.ConfusionMatrixMetric(decrease="max")
    with pytest.raises(ValueError, match="only 0 and 1"):
        metric.update(np.zeros((1, 2, 2)), np.full((1, 2, 2), 0.5))


def test_roc_binary_multiclass_and_auc():
    roc = train.ROC(pos_label=2)
    roc.update(f32([1, 2, 3, 4]), f32([1, 2, 2, 1]))
    fpr, tpr, thresholds = roc.eval()
    np.testing.assert_allclose(fpr, [0.0, 0.5, 0.5, 0.5, 1.0])
    np.testing.assert_allclose(tpr, [0.0, 0.0, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(thresholds, [5.0, 4.0, 3.0, 2.0, 1.0])
    multi = train.ROC(class_num=4)
    eye = np.full((4, 4), 0.05) + np.eye(4) * 0.7
    multi.update(f32(eye), f32([0, 1, 3, 2]))
    fprs, tprs, ths = multi.eval()
    np.testing.assert_allclose(fprs[2], [0.0, 0.33333333, 1.0])
    np.testing.assert_allclose(tprs[0], [0.0, 1.0, 1.0])
    np.testing.assert_allclose(tprs[3], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(ths[1], [1.75, 0.75, 0.05], rtol=1e-6)
    binary = train.ROC(pos_label=1)
    binary.update(f32([0.1, 0.4, 0.35, 0.8]), f32([0, 0, 1, 1]))
    fpr, tpr, _ = binary.eval()
    assert_float64(train.auc(fpr, tpr), 0.75)
    x, y = np.array([0.0, 0.2, 0.5, 1.0]), np.array([0.0, 0.6, 0.8, 1.0])
    assert train.auc(x, y) == pytest.approx(0.72)
    assert train.auc(x[::-1], y[::-1]) == pytest.approx(0.72)
    shuffled = np.array([0.5, 0.0, 1.0, 0.2]), np.array([0.8, 0.0, 1.0, 0.6])
    assert train.auc(*shuffled, reorder=True) == pytest.approx(0.72)
    with pytest.raises(ValueError, match="increasing or decreasing"):
        train.auc(*shuffled)
    with pytest.raises(TypeError, match="numpy arrays"):
        train.auc([0, 1], [0, 1])
    with pytest.raises(ValueError, match="'pos_label' must be None"):
        train.ROC(class_num=4, pos_label=1).update(f32(eye), f32([0, 1, 3, 2]))
    only_negatives = train.ROC()
    only_negatives.update(f32([0.1, 0.2]), f32([0, 0]))
    with pytest.raises(ValueError, match="must hold a positive sample"):
        only_negatives.eval()


def test_perplexity_dice_cosine_bleu():
    probs = f32([[0.6, 0.5, 0.1], [0.3, 0.6, 0.05], [0.1, 0.6, 0.2], [0.1, 0.2, 0.7]])
    assert_float64(
        train.Perplexity()(probs, f32([2, 1, 0, 1])), 5.372849799158822, rtol=1e-6
    )
    assert_float64(
        train.Perplexity(ignore_label=1)(probs, f32([2, 1, 0, 1])),
        10.000000319754372,
        rtol=1e-6,
    )
    dice = train.Dice(smooth=1e-5)
    dice.update(f32([[0, 1], [1, 0], [0, 1]]), f32([[0, 1], [1, 0], [0, 1]]))
    dice.update(f32([[0.2, 0.8], [0.6, 0.4]]), f32([[0, 1], [0, 1]]))
    assert_float64(dice.eval(), 0.3499992016439727, rtol=1e-6)
    cosine = train.CosineSimilarity()
    cosine.update(np.array([[1, 3, 4, 7], [2, 4, 2, 5], [3, 1, 5, 8]]))
    np.testing.assert_allclose(
        cosine.eval(),
        [
            [0.0, 0.94025615, 0.95162452],
            [0.94025615, 0.0, 0.86146098],
            [0.95162452, 0.86146098, 0.0],
        ],
        rtol=1e-7,
    )
    dot = train.CosineSimilarity(
        similarity="dot", reduction="mean", zero_diagonal=False
    )
    dot.update(np.array([[1.0, 3, 4, 7], [2, 4, 2, 5]]))
    np.testing.assert_allclose(dot.eval(), [66.0, 53.0])
    summed = train.CosineSimilarity(reduction="sum")
    summed.update(np.array([[1.0, 0, 2], [0, 3, 1], [2, 2, 2]]))
    np.testing.assert_allclose(
        summed.eval(), [1.0574393817161025, 1.0131394558148406, 1.504893412581705]
    )
    bleu = train.BleuScore()
    bleu.update(
        [["i", "have", "a", "pen", "on", "my", "desk"]],
        [
            [
                ["i", "have", "a", "pen", "in", "my", "desk"],
                ["there", "is", "a", "pen", "on", "the", "desk"],
            ]
        ],
    )
    assert_float64(bleu.eval(), 0.5946035575013605)
    smooth = train.BleuScore(n_gram=2, smooth=True)
    smooth.update(
        [["the", "cat", "sat"], ["a", "dog"]],
        [[["the", "cat", "sat", "down"]], [["a", "dog", "ran"], ["the", "dog"]]],
    )
    assert_float64(smooth.eval(), 0.8187307530779819)
    with pytest.raises(ValueError, match=r"'n_gram' must be an int in \[1, 4\]"):
        train.BleuScore(n_gram=5)


SURFACE_EXPECTED = {
    # [Hausdorff: default, percentile=50, directed, crop=False; MeanSurfaceDistance: one way, symmetric;
    #  RootMeanSquareDistance: one way (MindSpore returns the mean square there; we take its root), symmetric]
    "euclidean": [
        1.4142135623730951,
        1.0,
        1.4142135623730951,
        1.4142135623730951,
        0.8414213562373096,
        0.8674573656071181,
        0.9,
        0.9746794344808963,
    ],
    "chessboard": [
        1.0,
        1.0,
        1.0,
        1.0,
        0.8,
        0.8090909090909091,
        0.8,
        0.8994948077064754,
    ],
    "taxicab": [2.0, 1.0, 2.0, 2.0, 0.9, 0.95, 1.1, 1.1098730476131862],
}


@pytest.mark.parametrize("distance", sorted(SURFACE_EXPECTED))
def test_surface_distances(distance):
    pred = np.zeros((6, 7))
    pred[1:4, 1:5] = 1
    true = np.zeros((6, 7))
    true[2:5, 2:6] = 1
    true[0, 0] = 1
    results: list[np.float64] = []
    for kwargs in ({}, {"percentile": 50.0}, {"directed": True}, {"crop": False}):
        hausdorff = train.HausdorffDistance(distance_metric=distance, **kwargs)
        hausdorff.update(Tensor(pred), Tensor(true), 1)
        results.append(hausdorff.eval())
    for cls in (train.MeanSurfaceDistance, train.RootMeanSquareDistance):
        for symmetric in (False, True):
            metric = cls(symmetric=symmetric, distance_metric=distance)
            metric.update(Tensor(pred), Tensor(true), 1)
            results.append(metric.eval())
    expected = list(SURFACE_EXPECTED[distance])
    expected[6] = np.sqrt(
        expected[6]
    )  # the deliberate difference: a root mean square is a root
    np.testing.assert_allclose(results, expected, rtol=1e-12)
    assert all(type(r) is np.float64 for r in results)


def test_surface_distance_errors():
    with pytest.raises(ValueError, match="'distance_metric' must be one of"):
        train.HausdorffDistance(distance_metric="manhattan")
    with pytest.raises(ValueError, match="appears in neither"):
        train.MeanSurfaceDistance().update(np.zeros((3, 3)), np.zeros((3, 3)), 1)
    with pytest.raises(TypeError, match="label index"):
        train.RootMeanSquareDistance().update(np.zeros((3, 3)), np.zeros((3, 3)), "1")
    empty = train.HausdorffDistance()
    only_true = np.zeros((4, 4))
    only_true[1, 1] = 1
    empty.update(np.zeros((4, 4)), only_true, 1)
    assert empty.eval() == np.inf


class _Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        weight = Tensor(np.arange(48, dtype=np.float32).reshape(3, 16) / 100 - 0.2)
        self.dense = nn.Dense(16, 3, weight_init=weight, bias_init="zeros")

    def construct(self, x):
        return self.dense(x)


def test_occlusion_sensitivity():
    image = np.arange(16, dtype=np.float32).reshape(1, 16) / 10
    metric = train.OcclusionSensitivity(margin=1)
    metric.update(_Linear(), Tensor(image), np.array(2, np.int32))
    np.testing.assert_allclose(
        metric.eval(),
        [
            -2.384185791015625e-07,
            0.012999773025512695,
            0.0409998893737793,
            0.07299995422363281,
            0.10899996757507324,
            0.14899992942810059,
            0.19300007820129395,
            0.24099993705749512,
            0.2929999828338623,
            0.3489999771118164,
            0.4089999198913574,
            0.47300004959106445,
            0.5409998893737793,
            0.6129999160766602,
            0.6889997720718384,
            0.7689998149871826,
        ],
        atol=1e-6,
    )
    boxed = train.OcclusionSensitivity(margin=2, b_box=[3, 9], n_batch=3)
    boxed.update(_Linear(), Tensor(image), np.array(1, np.int32))
    np.testing.assert_allclose(
        boxed.eval(),
        [
            -0.009999990463256836,
            -0.001999974250793457,
            0.013999998569488525,
            0.03799998760223389,
            0.0700000524520874,
            0.11000001430511475,
            0.15799999237060547,
        ],
        atol=1e-6,
    )
    with pytest.raises(TypeError, match="'model'"):
        metric.update(lambda x: x, Tensor(image), np.array(1))
    with pytest.raises(ValueError, match="'b_box'"):
        train.OcclusionSensitivity(b_box=[3, 20]).update(
            _Linear(), Tensor(image), np.array(1)
        )
