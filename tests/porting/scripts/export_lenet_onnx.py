# expect: exported lenet\.onnx
# expect: onnxruntime output shape: \(2, 10\)
# expect: max difference: (0\.0+|\d\.\d+e-0[5-9])
"""Export LeNet to ONNX as the model zoo's export.py does, then run the file with onnxruntime."""
import os

import numpy as np

import mindspore as ms
from mindspore import nn, Tensor
from mindspore.common.initializer import Normal


def lenet5(num_class=10, num_channel=1):
    """LeNet-5 written as one SequentialCell: the graph ONNX receives is this list, in order."""
    return nn.SequentialCell([
        nn.Conv2d(num_channel, 6, 5, pad_mode='valid'),
        nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, 5, pad_mode='valid'),
        nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Dense(400, 120, weight_init=Normal(0.02), activation='relu'),
        nn.Dense(120, 84, weight_init=Normal(0.02), activation='relu'),
        nn.Dense(84, num_class, weight_init=Normal(0.02)),
    ])


ms.set_seed(6)
net = lenet5()
input_np = np.random.default_rng(6).uniform(0.0, 1.0, size=[2, 1, 32, 32]).astype(np.float32)
ms.export(net, Tensor(input_np), file_name="lenet", file_format="ONNX")
print("exported", [f for f in os.listdir(".") if f.endswith(".onnx")][0])

import onnxruntime as ort

session = ort.InferenceSession("lenet.onnx", providers=["CPUExecutionProvider"])
input_name = session.get_inputs()[0].name
onnx_out = session.run(None, {input_name: input_np})[0]
print("onnxruntime output shape:", onnx_out.shape)
print("max difference:", float(np.abs(onnx_out - net(Tensor(input_np)).asnumpy()).max()))
