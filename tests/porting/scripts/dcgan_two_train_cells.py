# A DCGAN-style script: a generator of nn.Conv2dTranspose + BatchNorm2d + ReLU ending in Tanh,
# a discriminator of strided Conv2d + LeakyReLU, both initialized through Cell.apply (Normal
# weights, BatchNorm gamma around 1), each with its own Adam optimizer and its own
# training cell (the discriminator's derived from nn.TrainOneStepCell, the generator's written
# with ops.GradOperation(get_by_list=True) on a ParameterTuple), labels from ops.ones_like and
# ops.zeros_like, nn.BCEWithLogitsLoss on the discriminator's logits, and both networks saved with save_checkpoint.
# expect: ^generator output: \(8, 1, 16, 16\), in \[-1, 1\]: True$
# expect: ^discriminator output: \(8, 1\)$
# expect: ^epoch 1: d_loss \d+\.\d{3}, g_loss \d+\.\d{3}$
# expect: ^epoch 3: d_loss \d+\.\d{3}, g_loss \d+\.\d{3}$
# expect: ^discriminator tells real from fake: True$
# expect: ^saved: generator\.ckpt discriminator\.ckpt$
# expect: ^generator restored: True$
import os

import numpy as np
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
from mindspore import Tensor, ParameterTuple, save_checkpoint, load_checkpoint, load_param_into_net
from mindspore.common.initializer import Normal, initializer

LATENT, IMAGE_SIZE, BATCH = 16, 16, 8


class Generator(nn.Cell):
    def __init__(self, latent=LATENT, features=16):
        super(Generator, self).__init__()
        self.main = nn.SequentialCell(
            nn.Conv2dTranspose(latent, features * 2, 4, 1, pad_mode="valid"),
            nn.BatchNorm2d(features * 2),
            nn.ReLU(),
            nn.Conv2dTranspose(features * 2, features, 4, 2, pad_mode="pad", padding=1),
            nn.BatchNorm2d(features),
            nn.ReLU(),
            nn.Conv2dTranspose(features, 1, 4, 2, pad_mode="pad", padding=1),
            nn.Tanh(),
        )

    def construct(self, z):
        return self.main(z)


class Discriminator(nn.Cell):
    def __init__(self, features=16):
        super(Discriminator, self).__init__()
        self.main = nn.SequentialCell(
            nn.Conv2d(1, features, 4, 2, pad_mode="pad", padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(features, features * 2, 4, 2, pad_mode="pad", padding=1),
            nn.BatchNorm2d(features * 2),
            nn.LeakyReLU(0.2),
            nn.Conv2d(features * 2, 1, 4, 1, pad_mode="valid"),
            nn.Flatten(),
        )

    def construct(self, x):
        return self.main(x)


def weights_init(cell):
    """DCGAN's initialization, given to Cell.apply: N(0, 0.02) convolutions, N(1, 0.02) BatchNorm scales."""
    if isinstance(cell, (nn.Conv2d, nn.Conv2dTranspose)):
        cell.weight.set_data(initializer(Normal(0.02), cell.weight.shape, cell.weight.dtype))
    elif isinstance(cell, nn.BatchNorm2d):
        cell.gamma.set_data(initializer(Normal(0.02, 1.0), cell.gamma.shape, cell.gamma.dtype))
        cell.beta.set_data(initializer("zeros", cell.beta.shape, cell.beta.dtype))


class GanWithLoss(nn.Cell):
    """Both networks and the loss; a subclass's construct says which side the loss trains."""

    def __init__(self, generator, discriminator):
        super(GanWithLoss, self).__init__(auto_prefix=False)
        self.loss = nn.BCEWithLogitsLoss(reduction="mean")
        self.generator, self.discriminator = generator, discriminator

    def labelled_loss(self, logits, real):
        target = ops.ones_like(logits) if real else ops.zeros_like(logits)
        return self.loss(logits, target)


class DWithLoss(GanWithLoss):
    def construct(self, real, z):
        fake = ops.stop_gradient(self.generator(z))
        real_out = self.discriminator(real)
        fake_out = self.discriminator(fake)
        return self.labelled_loss(real_out, True) + self.labelled_loss(fake_out, False)


class GWithLoss(GanWithLoss):
    def construct(self, z):
        fake_out = self.discriminator(self.generator(z))
        return self.labelled_loss(fake_out, True)


class TrainOneStepD(nn.TrainOneStepCell):
    def construct(self, real, z):
        loss = self.network(real, z)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(real, z, sens)
        return ops.depend(loss, self.optimizer(grads))


class TrainOneStepG(nn.Cell):
    def __init__(self, network, optimizer):
        super(TrainOneStepG, self).__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = ParameterTuple(optimizer.parameters)
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, z):
        loss = self.network(z)
        grads = self.grad(self.network, self.weights)(z)
        loss = ops.depend(loss, self.optimizer(grads))
        return loss


def real_images(num, seed):
    """Bright blobs on a dark field, scaled to [-1, 1] like a GAN's normalized images."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:IMAGE_SIZE, 0:IMAGE_SIZE]
    images = np.empty((num, 1, IMAGE_SIZE, IMAGE_SIZE), np.float32)
    for i in range(num):
        cy, cx = rng.uniform(4, IMAGE_SIZE - 4, 2)
        images[i, 0] = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 8.0) * 2 - 1
    return images


if __name__ == "__main__":
    mindspore.set_seed(1)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    dataset = ds.NumpySlicesDataset({"image": real_images(64, 0)}, shuffle=True).batch(BATCH, drop_remainder=True)

    netG, netD = Generator().apply(weights_init), Discriminator().apply(weights_init)
    z_check = Tensor(np.random.default_rng(2).normal(size=(BATCH, LATENT, 1, 1)).astype(np.float32))
    sample = netG(z_check).asnumpy()
    print(f"generator output: {sample.shape}, in [-1, 1]: {bool(np.abs(sample).max() <= 1.0)}")
    print(f"discriminator output: {netD(Tensor(sample)).shape}")

    optD = nn.Adam(netD.trainable_params(), learning_rate=2e-4, beta1=0.5)
    optG = nn.Adam(netG.trainable_params(), learning_rate=2e-4, beta1=0.5)
    train_d = TrainOneStepD(DWithLoss(netG, netD), optD)
    train_g = TrainOneStepG(GWithLoss(netG, netD), optG)
    train_d.set_train()
    train_g.set_train()

    rng = np.random.default_rng(3)
    for epoch in range(1, 4):
        d_losses, g_losses = [], []
        for (real,) in dataset.create_tuple_iterator():
            z = Tensor(rng.normal(size=(BATCH, LATENT, 1, 1)).astype(np.float32))
            d_losses.append(float(train_d(real, z).asnumpy()))
            g_losses.append(float(train_g(z).asnumpy()))
        print(f"epoch {epoch}: d_loss {np.mean(d_losses):.3f}, g_loss {np.mean(g_losses):.3f}")

    netD.set_train(False)
    netG.set_train(False)
    real_score = netD(Tensor(real_images(16, 9))).asnumpy().mean()
    fake_score = netD(netG(z_check)).asnumpy().mean()
    print("discriminator tells real from fake:", bool(real_score > fake_score))

    save_checkpoint(netG, "generator.ckpt")
    save_checkpoint(netD, "discriminator.ckpt")
    print("saved:", " ".join(sorted((f for f in os.listdir(".") if f.endswith(".ckpt")), reverse=True)))

    restored = Generator()  # initialized by the checkpoint
    not_loaded, _ = load_param_into_net(restored, load_checkpoint("generator.ckpt"))
    restored.set_train(False)
    same = np.allclose(restored(z_check).asnumpy(), netG(z_check).asnumpy(), atol=1e-5)
    print("generator restored:", not not_loaded and same)
