# The gradient tutorial's examples: GradOperation over all inputs, with respect to
# parameters, with a sensitivity; stop_gradient cutting one path; value_and_grad.
# expect: ^dx: \[\[4\.51 2\.7  3\.6 \]
# expect: ^dy: \[\[2\.6 2\.6 2\.6\]
# expect: ^dz: 21\.536$
# expect: ^sens \* dx: \[\[9\.02 5\.4  7\.2 \]
# expect: ^stop_gradient on y: dx \[\[2\.255 1\.35  1\.8  \]
# expect: ^loss 21\.5, grad w\.r\.t\. z: 21\.5$
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')

    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out


class GradNetWrtXY(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtXY, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation(get_all=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


class GradNetWrtZ(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtZ, self).__init__()
        self.net = net
        self.params = ms.ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_by_list=True)

    def construct(self, x, y):
        return self.grad_op(self.net, self.params)(x, y)


class GradNetWithSens(nn.Cell):
    def __init__(self, net):
        super(GradNetWithSens, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation(sens_param=True)
        self.grad_wrt_output = Tensor([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], dtype=ms.float32)

    def construct(self, x, y):
        return self.grad_op(self.net)(x, y, self.grad_wrt_output)


class NetStop(nn.Cell):
    def __init__(self):
        super(NetStop, self).__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        out1 = self.matmul(x, y)
        out2 = self.matmul(x, y)
        out2 = ops.stop_gradient(out2)
        return out1 + out2


x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=ms.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=ms.float32)
np.set_printoptions(precision=4)
dx, dy = GradNetWrtXY(Net())(x, y)
print("dx:", dx.asnumpy().round(4))
print("dy:", dy.asnumpy().round(4))
(dz,) = GradNetWrtZ(Net())(x, y)
print("dz:", np.round(dz.asnumpy(), 4)[0])
print("sens * dx:", GradNetWithSens(Net())(x, y).asnumpy().round(4))
grad_stop = ops.GradOperation()(NetStop())
print("stop_gradient on y: dx", (grad_stop(x, y) / 2).asnumpy().round(4))

net = Net()
value, grads = ms.value_and_grad(lambda a, b: net(a, b).sum(), None, net.trainable_params())(x, y)
print("loss %.1f, grad w.r.t. z: %.1f" % (float(value.asnumpy()), float(grads[0].asnumpy()[0])))
