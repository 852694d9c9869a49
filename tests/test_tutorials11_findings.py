"""Code from other people's tutorials and courses not covered before (MorvanZhou's
PyTorch-Tutorial; yunjey's pytorch-tutorial; Atcold's NYU Deep Learning notebooks; Udacity's
deep-learning-v2-pytorch "Intro to PyTorch"; Jovian's "Deep Learning with PyTorch: Zero to
GANs"; MIT 6.S191 lab 1; d2l-en's appendix "Mathematics for Deep Learning"; Dataset and
DataLoader walkthroughs), shrunk to small synthetic data made with torch's own RNG and run with
torch and with leafgrad in one process: every printed line, warning and error must be the same
(tests/_tutorial_harness.py); then one test per defect found, sweeping its class of inputs."""

import collections
import io
import itertools
import math

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import attempt, first_difference
from tests._tutorial_harness import default_validation  # noqa: F401 - a fixture

torch = require_torch()


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)

def morvan_torch_numpy(torch):
    # MorvanZhou/PyTorch-Tutorial 201_torch_numpy.py and 202_variable.py
    np_data = np.arange(6).reshape((2, 3))
    torch_data = torch.from_numpy(np_data)
    tensor2array = torch_data.numpy()
    print('\nnumpy array:', np_data, '\ntorch tensor:', torch_data, '\ntensor to array:', tensor2array)
    data = [-1, -2, 1, 2]
    tensor = torch.FloatTensor(data)
    print('\nabs', '\nnumpy: ', np.abs(data), '\ntorch: ', torch.abs(tensor))
    print('\nsin', '\nnumpy: ', np.sin(data), '\ntorch: ', torch.sin(tensor))
    print('\nmean', '\nnumpy: ', np.mean(data), '\ntorch: ', torch.mean(tensor))
    data = [[1, 2], [3, 4]]
    tensor = torch.FloatTensor(data)
    print('\nmatrix multiplication (matmul)', '\nnumpy: ', np.matmul(data, data), '\ntorch: ', torch.mm(tensor, tensor))
    attempt(lambda: print(tensor.dot(tensor)))
    print(torch.IntTensor([1, 2]), torch.LongTensor(2).shape, torch.FloatTensor(2, 3).shape, torch.DoubleTensor([1.5]))
    attempt(lambda: torch.FloatTensor([1, 2], dtype=torch.float64))
    tensor = torch.FloatTensor([[1, 2], [3, 4]])
    variable = torch.autograd.Variable(tensor, requires_grad=True)
    t_out = torch.mean(tensor * tensor)
    v_out = torch.mean(variable * variable)
    print(t_out, v_out)
    v_out.backward()
    print(variable.grad, variable, variable.data, variable.data.numpy())
    print(type(variable), torch.autograd.Variable(torch.ones(2)).requires_grad)
    attempt(lambda: v_out.data[0])
    print(v_out.data.item(), isinstance(variable, torch.autograd.Variable), isinstance(3, torch.autograd.Variable))


def morvan_activation_regression(torch):
    # 203_activation.py, 301_regression.py, 302_classification.py, 303_build_nn_quickly.py
    F = torch.nn.functional
    torch.manual_seed(1)
    x = torch.linspace(-5, 5, 12)
    x_np = x.data.numpy()
    print(torch.relu(x).data.numpy(), torch.sigmoid(x).data.numpy()[:3], torch.tanh(x).data.numpy()[:3])
    print(F.softplus(x).data.numpy()[:3])
    x = torch.unsqueeze(torch.linspace(-1, 1, 20), dim=1)
    y = x.pow(2) + 0.2 * torch.rand(x.size())

    class Net(torch.nn.Module):
        def __init__(self, n_feature, n_hidden, n_output):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(n_feature, n_hidden)
            self.predict = torch.nn.Linear(n_hidden, n_output)
        def forward(self, x):
            x = F.relu(self.hidden(x))
            return self.predict(x)

    net = Net(n_feature=1, n_hidden=10, n_output=1)
    print(net)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
    loss_func = torch.nn.MSELoss()
    for t in range(20):
        prediction = net(x)
        loss = loss_func(prediction, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if t % 5 == 0:
            print('Loss=%.4f' % loss.data.numpy(), prediction.data.numpy()[:2].ravel())
    n_data = torch.ones(10, 2)
    x0 = torch.normal(2 * n_data, 1); y0 = torch.zeros(10)
    x1 = torch.normal(-2 * n_data, 1); y1 = torch.ones(10)
    x = torch.cat((x0, x1), 0).type(torch.FloatTensor)
    y = torch.cat((y0, y1), ).type(torch.LongTensor)
    print(x.type(), y.type(), x[:2], y)
    net = Net(n_feature=2, n_hidden=10, n_output=2)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.02)
    loss_func = torch.nn.CrossEntropyLoss()
    for t in range(10):
        out = net(x)
        loss = loss_func(out, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if t % 3 == 0:
            prediction = torch.max(out, 1)[1]
            pred_y = prediction.data.numpy()
            target_y = y.data.numpy()
            accuracy = float((pred_y == target_y).astype(int).sum()) / float(target_y.size)
            print('Accuracy=%.2f' % accuracy, loss)
    print(torch.max(F.softmax(out), 1)[1])
    net2 = torch.nn.Sequential(torch.nn.Linear(2, 10), torch.nn.ReLU(), torch.nn.Linear(10, 2))
    print(net2, net2[1], len(net2))


def morvan_save_batch_optimizers(torch):
    # 304_save_reload.py (whole-module pickles), 305_batch_train.py, 306_optimizer.py
    Data = torch.utils.data
    torch.manual_seed(1)
    x = torch.unsqueeze(torch.linspace(-1, 1, 10), dim=1)
    y = x.pow(2) + 0.2 * torch.rand(x.size())
    net1 = torch.nn.Sequential(torch.nn.Linear(1, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))
    optimizer = torch.optim.SGD(net1.parameters(), lr=0.5)
    for t in range(5):
        loss = torch.nn.MSELoss()(net1(x), y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    whole, params = io.BytesIO(), io.BytesIO()
    torch.save(net1, whole)
    torch.save(net1.state_dict(), params)
    whole.seek(0)
    attempt(lambda: torch.load(whole))
    whole.seek(0)
    net2 = torch.load(whole, weights_only=False)
    print(net2, torch.equal(net2(x), net1(x)))
    net3 = torch.nn.Sequential(torch.nn.Linear(1, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))
    params.seek(0)
    print(net3.load_state_dict(torch.load(params)), torch.equal(net3(x), net1(x)))
    x = torch.linspace(1, 10, 10); y = torch.linspace(10, 1, 10)
    attempt(lambda: Data.TensorDataset(data_tensor=x, target_tensor=y))
    torch_dataset = Data.TensorDataset(x, y)
    loader = Data.DataLoader(dataset=torch_dataset, batch_size=4, shuffle=True, num_workers=0)
    for epoch in range(2):
        for step, (batch_x, batch_y) in enumerate(loader):
            print('Epoch: ', epoch, '| Step: ', step, '| batch x: ', batch_x.numpy(), '| batch y: ', batch_y.numpy())
    x = torch.unsqueeze(torch.linspace(-1, 1, 32), dim=1)
    y = x.pow(2) + 0.1 * torch.normal(torch.zeros(*x.size()))
    loader = Data.DataLoader(dataset=Data.TensorDataset(x, y), batch_size=8, shuffle=True)

    class Net(torch.nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(1, 20); self.predict = torch.nn.Linear(20, 1)
        def forward(self, x):
            return self.predict(torch.nn.functional.relu(self.hidden(x)))

    nets = [Net(), Net(), Net(), Net()]
    opts = [torch.optim.SGD(nets[0].parameters(), lr=0.01),
            torch.optim.SGD(nets[1].parameters(), lr=0.01, momentum=0.8),
            torch.optim.RMSprop(nets[2].parameters(), lr=0.01, alpha=0.9),
            torch.optim.Adam(nets[3].parameters(), lr=0.01, betas=(0.9, 0.99))]
    loss_func = torch.nn.MSELoss()
    losses_his = [[], [], [], []]
    for epoch in range(3):
        for step, (b_x, b_y) in enumerate(loader):
            for net, opt, l_his in zip(nets, opts, losses_his):
                loss = loss_func(net(b_x), b_y)
                opt.zero_grad(); loss.backward(); opt.step()
                l_his.append(loss.data.numpy())
    print([['%.5f' % v for v in h[-2:]] for h in losses_his], losses_his[0][0].dtype, type(losses_his[0][0]))
    print(opts[2].state_dict()['param_groups'][0], sorted(opts[3].state[nets[3].hidden.weight]))


def morvan_cnn_rnn(torch):
    # 401_CNN.py, 402_RNN_classifier.py, 403_RNN_regressor.py (h_state carried with .data)
    nn = torch.nn
    torch.manual_seed(1)

    class CNN(nn.Module):
        def __init__(self):
            super(CNN, self).__init__()
            self.conv1 = nn.Sequential(nn.Conv2d(in_channels=1, out_channels=4, kernel_size=5, stride=1, padding=2),
                                       nn.ReLU(), nn.MaxPool2d(kernel_size=2))
            self.conv2 = nn.Sequential(nn.Conv2d(4, 8, 5, 1, 2), nn.ReLU(), nn.MaxPool2d(2))
            self.out = nn.Linear(8 * 3 * 3, 10)
        def forward(self, x):
            x = self.conv1(x); x = self.conv2(x)
            x = x.view(x.size(0), -1)
            return self.out(x), x

    cnn = CNN()
    print(cnn)
    b_x = torch.rand(6, 1, 12, 12); b_y = torch.randint(0, 10, (6,))
    optimizer = torch.optim.Adam(cnn.parameters(), lr=0.01)
    loss_func = nn.CrossEntropyLoss()
    for step in range(3):
        output = cnn(b_x)[0]
        loss = loss_func(output, b_y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        test_output, last_layer = cnn(b_x)
        pred_y = torch.max(test_output, 1)[1].data.numpy()
        accuracy = float((pred_y == b_y.data.numpy()).astype(int).sum()) / float(b_y.size(0))
        print('Step: ', step, '| train loss: %.4f' % loss.data.numpy(), '| test accuracy: %.2f' % accuracy)
    print(torch.max(test_output, 1)[1].data.numpy(), 'prediction number', b_y[:6].numpy(), 'real number')

    class RNN(nn.Module):
        def __init__(self):
            super(RNN, self).__init__()
            self.rnn = nn.LSTM(input_size=12, hidden_size=16, num_layers=1, batch_first=True)
            self.out = nn.Linear(16, 10)
        def forward(self, x):
            r_out, (h_n, h_c) = self.rnn(x, None)
            return self.out(r_out[:, -1, :])

    rnn = RNN(); print(rnn)
    optimizer = torch.optim.Adam(rnn.parameters(), lr=0.01)
    for step in range(3):
        output = rnn(b_x.view(-1, 12, 12))
        loss = loss_func(output, b_y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(loss, torch.max(rnn(b_x.view(-1, 12, 12)), 1)[1].data.numpy().squeeze())

    class RNNReg(nn.Module):
        def __init__(self):
            super(RNNReg, self).__init__()
            self.rnn = nn.RNN(input_size=1, hidden_size=8, num_layers=1, batch_first=True)
            self.out = nn.Linear(8, 1)
        def forward(self, x, h_state):
            r_out, h_state = self.rnn(x, h_state)
            outs = []
            for time_step in range(r_out.size(1)):
                outs.append(self.out(r_out[:, time_step, :]))
            return torch.stack(outs, dim=1), h_state

    rnn = RNNReg()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=0.02)
    h_state = None
    for step in range(4):
        start, end = step * np.pi, (step + 1) * np.pi
        steps = np.linspace(start, end, 6, dtype=np.float32, endpoint=False)
        x_np = np.sin(steps); y_np = np.cos(steps)
        x = torch.from_numpy(x_np[np.newaxis, :, np.newaxis])
        y = torch.from_numpy(y_np[np.newaxis, :, np.newaxis])
        prediction, h_state = rnn(x, h_state)
        h_state = h_state.data
        loss = nn.MSELoss()(prediction, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(step, prediction.data.numpy().flatten()[:3], h_state.requires_grad, h_state.shape)


def morvan_gan_dropout_batchnorm(torch):
    # 406_GAN.py, 501_dropout.py, 504_batch_normalization.py
    nn = torch.nn; init = torch.nn.init
    torch.manual_seed(1)
    N_IDEAS, ART_COMPONENTS, BATCH_SIZE = 3, 8, 4
    PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])
    def artist_works():
        a = torch.rand(BATCH_SIZE, 1) + 1
        paintings = a * torch.from_numpy(np.power(PAINT_POINTS, 2)).float() + (a - 1)
        return paintings
    G = nn.Sequential(nn.Linear(N_IDEAS, 16), nn.ReLU(), nn.Linear(16, ART_COMPONENTS))
    D = nn.Sequential(nn.Linear(ART_COMPONENTS, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    opt_D = torch.optim.Adam(D.parameters(), lr=0.0001)
    opt_G = torch.optim.Adam(G.parameters(), lr=0.0001)
    for step in range(3):
        artist_paintings = artist_works()
        G_ideas = torch.randn(BATCH_SIZE, N_IDEAS, requires_grad=True)
        G_paintings = G(G_ideas)
        prob_artist1 = D(G_paintings)
        G_loss = torch.mean(torch.log(1. - prob_artist1))
        opt_G.zero_grad(); G_loss.backward(); opt_G.step()
        prob_artist0 = D(artist_paintings)
        prob_artist1 = D(G_paintings.detach())
        D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
        opt_D.zero_grad(); D_loss.backward(retain_graph=True); opt_D.step()
        print('%.4f %.4f' % (D_loss.data.numpy(), G_loss.data.numpy()), prob_artist0.data.numpy().mean())
    print(G_ideas.grad is None, G_ideas.grad.shape if G_ideas.grad is not None else None)
    x = torch.unsqueeze(torch.linspace(-1, 1, 10), 1)
    y = x + 0.3 * torch.normal(torch.zeros(10, 1), torch.ones(10, 1))
    net_dropped = torch.nn.Sequential(torch.nn.Linear(1, 20), torch.nn.Dropout(0.5), torch.nn.ReLU(),
                                      torch.nn.Linear(20, 1))
    print(net_dropped)
    out = net_dropped(x); print(out[:3].detach().flatten())
    net_dropped.eval(); print(net_dropped(x)[:3].detach().flatten()); net_dropped.train()

    class Net(nn.Module):
        def __init__(self, batch_normalization=False):
            super(Net, self).__init__()
            self.do_bn = batch_normalization
            self.fcs = []; self.bns = []
            self.bn_input = nn.BatchNorm1d(1, momentum=0.5)
            for i in range(3):
                input_size = 1 if i == 0 else 10
                fc = nn.Linear(input_size, 10)
                setattr(self, 'fc%i' % i, fc)
                self._set_init(fc)
                self.fcs.append(fc)
                if self.do_bn:
                    bn = nn.BatchNorm1d(10, momentum=0.5)
                    setattr(self, 'bn%i' % i, bn)
                    self.bns.append(bn)
            self.predict = nn.Linear(10, 1)
            self._set_init(self.predict)
        def _set_init(self, layer):
            init.normal_(layer.weight, mean=0., std=.1)
            init.constant_(layer.bias, -0.2)
        def forward(self, x):
            pre_activation = [x]
            if self.do_bn: x = self.bn_input(x)
            layer_input = [x]
            for i in range(3):
                x = self.fcs[i](x)
                pre_activation.append(x)
                if self.do_bn: x = self.bns[i](x)
                x = torch.tanh(x)
                layer_input.append(x)
            out = self.predict(x)
            return out, layer_input, pre_activation

    nets = [Net(batch_normalization=False), Net(batch_normalization=True)]
    print(*nets)
    opts = [torch.optim.Adam(net.parameters(), lr=0.02) for net in nets]
    for epoch in range(2):
        for net, opt in zip(nets, opts):
            pred, _, _ = net(x)
            loss = nn.MSELoss()(pred, y)
            opt.zero_grad(); loss.backward(); opt.step()
        print(epoch, [n.fc0.weight.grad[:2].flatten() for n in nets], nets[1].bn0.running_mean[:3])
    [net.eval() for net in nets]
    _, layer_inputs, pre_acts = nets[1](x)
    print(layer_inputs[1][:2], pre_acts[-1].shape, nets[1].bn_input.num_batches_tracked)


def yunjey_basics(torch):
    # yunjey/pytorch-tutorial tutorials/01-basics/pytorch_basics/main.py
    nn = torch.nn
    torch.manual_seed(0)
    x = torch.tensor(1., requires_grad=True)
    w = torch.tensor(2., requires_grad=True)
    b = torch.tensor(3., requires_grad=True)
    y = w * x + b
    y.backward()
    print(x.grad, w.grad, b.grad)
    x = torch.randn(10, 3)
    y = torch.randn(10, 2)
    linear = nn.Linear(3, 2)
    print('w: ', linear.weight)
    print('b: ', linear.bias)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
    pred = linear(x)
    loss = criterion(pred, y)
    print('loss: ', loss.item())
    loss.backward()
    print('dL/dw: ', linear.weight.grad)
    print('dL/db: ', linear.bias.grad)
    optimizer.step()
    pred = linear(x)
    loss = criterion(pred, y)
    print('loss after 1 step optimization: ', loss.item())
    x = np.array([[1, 2], [3, 4]])
    y = torch.from_numpy(x)
    z = y.numpy()
    print(y, z.dtype)

    class CustomDataset(torch.utils.data.Dataset):
        def __init__(self):
            self.data = torch.arange(10.).view(5, 2)
        def __getitem__(self, index):
            return self.data[index], index % 2
        def __len__(self):
            return 5

    custom_dataset = CustomDataset()
    train_loader = torch.utils.data.DataLoader(dataset=custom_dataset, batch_size=2, shuffle=False)
    data_iter = iter(train_loader)
    images, labels = next(data_iter)
    print(images, labels, len(train_loader))
    for images, labels in train_loader:
        print(images.shape, labels)
    resnet = nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10))
    for param in resnet.parameters():
        param.requires_grad = False
    resnet[3] = nn.Linear(resnet[3].in_features, 3)
    images = torch.randn(2, 3, 8, 8)
    outputs = resnet(images)
    print(outputs.size(), [p.requires_grad for p in resnet.parameters()], outputs.grad_fn)
    buf = io.BytesIO(); torch.save(resnet.state_dict(), buf); buf.seek(0)
    print(resnet.load_state_dict(torch.load(buf)))


def yunjey_regressions(torch):
    # 01-basics/linear_regression, logistic_regression, feedforward_neural_network
    nn = torch.nn
    torch.manual_seed(0)
    x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168], [9.779], [6.182], [7.59], [2.167]], dtype=np.float32)
    y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573], [3.366], [2.596], [2.53], [1.221]], dtype=np.float32)
    model = nn.Linear(1, 1)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    num_epochs = 30
    for epoch in range(num_epochs):
        inputs = torch.from_numpy(x_train); targets = torch.from_numpy(y_train)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if (epoch + 1) % 10 == 0:
            print('Epoch [{}/{}], Loss: {:.4f}'.format(epoch + 1, num_epochs, loss.item()))
    predicted = model(torch.from_numpy(x_train)).detach().numpy()
    print(predicted[:3].ravel(), predicted.dtype)
    input_size, num_classes = 12, 3
    images = torch.rand(16, 1, 3, 4); labels = torch.randint(0, num_classes, (16,))
    model = nn.Linear(input_size, num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(4):
        imgs = images.reshape(-1, input_size)
        outputs = model(imgs)
        loss = nn.CrossEntropyLoss()(outputs, labels)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print('Step [{}/{}], Loss: {:.4f}'.format(i + 1, 4, loss.item()))
    with torch.no_grad():
        correct = 0; total = 0
        outputs = model(images.reshape(-1, input_size))
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum()
        print('Accuracy of the model on the test images: {} %'.format(100 * correct / total))
        print(correct, type(correct), 100 * correct // total, correct.dtype)

    class NeuralNet(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super(NeuralNet, self).__init__()
            self.fc1 = nn.Linear(input_size, hidden_size)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(hidden_size, num_classes)
        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    model = NeuralNet(input_size, 5, num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for i in range(3):
        outputs = model(images.reshape(-1, 12))
        loss = nn.CrossEntropyLoss()(outputs, labels)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    with torch.no_grad():
        outputs = model(images.reshape(-1, 12))
        _, predicted = torch.max(outputs.data, 1)
        correct = (predicted == labels).sum().item()
        print('Accuracy of the network on the 10000 test images: {} %'.format(100 * correct / labels.size(0)))
    print(f"{loss:.3f}", f"{loss}", "{:>10.2e}".format(loss), f"{correct:d}")
    attempt(lambda: print("{:d}".format(loss)))
    attempt(lambda: print("{:.2f}".format(outputs)))
    print("{}".format(outputs[0]), "{!r}".format(predicted[:3]), "{:>6}".format(torch.tensor(3)))


def yunjey_cnn_resnet(torch):
    # 02-intermediate/convolutional_neural_network and deep_residual_network (update_lr)
    nn = torch.nn
    torch.manual_seed(0)

    class ConvNet(nn.Module):
        def __init__(self, num_classes=10):
            super(ConvNet, self).__init__()
            self.layer1 = nn.Sequential(nn.Conv2d(1, 4, kernel_size=5, stride=1, padding=2), nn.BatchNorm2d(4),
                                        nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2))
            self.layer2 = nn.Sequential(nn.Conv2d(4, 8, kernel_size=5, stride=1, padding=2), nn.BatchNorm2d(8),
                                        nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2))
            self.fc = nn.Linear(2 * 2 * 8, num_classes)
        def forward(self, x):
            out = self.layer1(x); out = self.layer2(out)
            out = out.reshape(out.size(0), -1)
            return self.fc(out)

    model = ConvNet(3)
    images = torch.randn(4, 1, 8, 8); labels = torch.tensor([0, 1, 2, 1])
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    for i in range(2):
        outputs = model(images); loss = criterion(outputs, labels)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print('Step [{}/{}], Loss: {:.4f}'.format(i + 1, 2, loss.item()))
    model.eval()
    with torch.no_grad():
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        print(predicted, (predicted == labels).sum().item(), model.layer1[1].running_var)

    def conv3x3(in_channels, out_channels, stride=1):
        return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=False)

    class ResidualBlock(nn.Module):
        def __init__(self, in_channels, out_channels, stride=1, downsample=None):
            super(ResidualBlock, self).__init__()
            self.conv1 = conv3x3(in_channels, out_channels, stride)
            self.bn1 = nn.BatchNorm2d(out_channels)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = conv3x3(out_channels, out_channels)
            self.bn2 = nn.BatchNorm2d(out_channels)
            self.downsample = downsample
        def forward(self, x):
            residual = x
            out = self.conv1(x); out = self.bn1(out); out = self.relu(out)
            out = self.conv2(out); out = self.bn2(out)
            if self.downsample:
                residual = self.downsample(x)
            out += residual
            out = self.relu(out)
            return out

    class ResNet(nn.Module):
        def __init__(self, block, layers, num_classes=10):
            super(ResNet, self).__init__()
            self.in_channels = 4
            self.conv = conv3x3(3, 4); self.bn = nn.BatchNorm2d(4); self.relu = nn.ReLU(inplace=True)
            self.layer1 = self.make_layer(block, 4, layers[0])
            self.layer2 = self.make_layer(block, 8, layers[1], 2)
            self.avg_pool = nn.AvgPool2d(4)
            self.fc = nn.Linear(8, num_classes)
        def make_layer(self, block, out_channels, blocks, stride=1):
            downsample = None
            if (stride != 1) or (self.in_channels != out_channels):
                downsample = nn.Sequential(conv3x3(self.in_channels, out_channels, stride=stride),
                                           nn.BatchNorm2d(out_channels))
            layers = [block(self.in_channels, out_channels, stride, downsample)]
            self.in_channels = out_channels
            for i in range(1, blocks):
                layers.append(block(out_channels, out_channels))
            return nn.Sequential(*layers)
        def forward(self, x):
            out = self.relu(self.bn(self.conv(x)))
            out = self.layer2(self.layer1(out))
            out = self.avg_pool(out)
            out = out.view(out.size(0), -1)
            return self.fc(out)

    model = ResNet(ResidualBlock, [2, 2], 3)
    print(model.layer2[0])
    def update_lr(optimizer, lr):
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
    curr_lr = 0.001
    optimizer = torch.optim.Adam(model.parameters(), lr=curr_lr)
    images = torch.randn(2, 3, 8, 8); labels = torch.tensor([0, 2])
    for epoch in range(2):
        outputs = model(images); loss = criterion(outputs, labels)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        curr_lr /= 3; update_lr(optimizer, curr_lr)
        print("Epoch [{}/{}], Loss {:.4f}".format(epoch + 1, 2, loss.item()), optimizer.param_groups[0]['lr'])
    print(model.conv.weight.grad[0, 0], model.layer1[0].bn2.weight.grad)


def yunjey_rnn_language_model(torch):
    # 02-intermediate/recurrent_neural_network, bidirectional_recurrent_neural_network,
    # language_model (detach(states), clip_grad_norm_, perplexity, sampling with fill_)
    nn = torch.nn
    torch.manual_seed(0)

    class BiRNN(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(BiRNN, self).__init__()
            self.hidden_size = hidden_size; self.num_layers = num_layers
            self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(hidden_size * 2, num_classes)
        def forward(self, x):
            h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size)
            c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size)
            out, _ = self.lstm(x, (h0, c0))
            return self.fc(out[:, -1, :])

    model = BiRNN(4, 6, 2, 3)
    x = torch.randn(2, 5, 4)
    out = model(x); print(out, model.lstm)
    out.sum().backward(); print(model.lstm.weight_hh_l1_reverse.grad[:2, :3])
    vocab_size, embed_size, hidden_size, num_layers, seq_length, batch_size = 12, 5, 6, 1, 4, 2
    ids = torch.randint(0, vocab_size, (batch_size, 4 * seq_length + 1))

    class RNNLM(nn.Module):
        def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
            super(RNNLM, self).__init__()
            self.embed = nn.Embedding(vocab_size, embed_size)
            self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
            self.linear = nn.Linear(hidden_size, vocab_size)
        def forward(self, x, h):
            x = self.embed(x)
            out, (h, c) = self.lstm(x, h)
            out = out.reshape(out.size(0) * out.size(1), out.size(2))
            out = self.linear(out)
            return out, (h, c)

    model = RNNLM(vocab_size, embed_size, hidden_size, num_layers)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.002)
    def detach(states):
        return [state.detach() for state in states]
    states = (torch.zeros(num_layers, batch_size, hidden_size), torch.zeros(num_layers, batch_size, hidden_size))
    for i in range(0, ids.size(1) - seq_length, seq_length):
        inputs = ids[:, i:i + seq_length]; targets = ids[:, (i + 1):(i + 1) + seq_length]
        states = detach(states)
        outputs, states = model(inputs, states)
        loss = criterion(outputs, targets.reshape(-1))
        model.zero_grad(); loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        print('Step[{}], Loss: {:.4f}, Perplexity: {:5.2f}'.format(i, loss.item(), np.exp(loss.item())), norm)
    with torch.no_grad():
        state = (torch.zeros(num_layers, 1, hidden_size), torch.zeros(num_layers, 1, hidden_size))
        prob = torch.ones(vocab_size)
        input = torch.multinomial(prob, num_samples=1).unsqueeze(1)
        words = []
        for i in range(6):
            output, state = model(input, state)
            prob = output.exp()
            word_id = torch.multinomial(prob, num_samples=1).item()
            input.fill_(word_id)
            words.append(word_id)
        print(words, input, input.dtype)


def yunjey_gan_vae(torch):
    # 03-advanced/generative_adversarial_network and variational_autoencoder
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    latent_size, hidden_size, image_size, batch_size = 4, 8, 9, 3
    D = nn.Sequential(nn.Linear(image_size, hidden_size), nn.LeakyReLU(0.2), nn.Linear(hidden_size, hidden_size),
                      nn.LeakyReLU(0.2), nn.Linear(hidden_size, 1), nn.Sigmoid())
    G = nn.Sequential(nn.Linear(latent_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, hidden_size), nn.ReLU(),
                      nn.Linear(hidden_size, image_size), nn.Tanh())
    criterion = nn.BCELoss()
    d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
    g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)
    def denorm(x):
        out = (x + 1) / 2
        return out.clamp(0, 1)
    def reset_grad():
        d_optimizer.zero_grad(); g_optimizer.zero_grad()
    images = torch.rand(batch_size, image_size) * 2 - 1
    for i in range(2):
        real_labels = torch.ones(batch_size, 1); fake_labels = torch.zeros(batch_size, 1)
        outputs = D(images); d_loss_real = criterion(outputs, real_labels); real_score = outputs
        z = torch.randn(batch_size, latent_size)
        fake_images = G(z)
        outputs = D(fake_images); d_loss_fake = criterion(outputs, fake_labels); fake_score = outputs
        d_loss = d_loss_real + d_loss_fake
        reset_grad(); d_loss.backward(); d_optimizer.step()
        z = torch.randn(batch_size, latent_size)
        fake_images = G(z); outputs = D(fake_images)
        g_loss = criterion(outputs, real_labels)
        reset_grad(); g_loss.backward(); g_optimizer.step()
        print('Step [{}/{}], d_loss: {:.4f}, g_loss: {:.4f}, D(x): {:.2f}, D(G(z)): {:.2f}'
              .format(i + 1, 2, d_loss.item(), g_loss.item(), real_score.mean().item(), fake_score.mean().item()))
    print(denorm(fake_images).reshape(fake_images.size(0), 1, 3, 3)[0])

    class VAE(nn.Module):
        def __init__(self, image_size=9, h_dim=6, z_dim=2):
            super(VAE, self).__init__()
            self.fc1 = nn.Linear(image_size, h_dim); self.fc2 = nn.Linear(h_dim, z_dim)
            self.fc3 = nn.Linear(h_dim, z_dim); self.fc4 = nn.Linear(z_dim, h_dim)
            self.fc5 = nn.Linear(h_dim, image_size)
        def encode(self, x):
            h = F.relu(self.fc1(x))
            return self.fc2(h), self.fc3(h)
        def reparameterize(self, mu, log_var):
            std = torch.exp(log_var / 2)
            eps = torch.randn_like(std)
            return mu + eps * std
        def decode(self, z):
            h = F.relu(self.fc4(z))
            return F.sigmoid(self.fc5(h))
        def forward(self, x):
            mu, log_var = self.encode(x)
            z = self.reparameterize(mu, log_var)
            return self.decode(z), mu, log_var

    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(batch_size, 9)
    for i in range(2):
        x_reconst, mu, log_var = model(x)
        reconst_loss = F.binary_cross_entropy(x_reconst, x, size_average=False)
        kl_div = - 0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
        loss = reconst_loss + kl_div
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print("Step [{}/{}], Reconst Loss: {:.4f}, KL Div: {:.4f}".format(i + 1, 2, reconst_loss.item(), kl_div.item()))
    print(F.mse_loss(x, x_reconst, reduce=False).shape, nn.MSELoss(size_average=True).reduction)
    print(F.l1_loss(x, x_reconst, size_average=False, reduce=True), nn.BCELoss(reduce=False).reduction)
    print(nn.NLLLoss(size_average=False, reduce=False).reduction, F.kl_div(x.log(), x_reconst, reduction='batchmean'))
    print(F.kl_div(x.log(), x_reconst))
    out = torch.randn(2, 3); out2 = torch.randn(2, 3)
    torch.manual_seed(1)
    z = torch.randn(2, 2); sample = model.decode(z).view(-1, 1, 3, 3)
    x_concat = torch.cat([x.view(-1, 1, 3, 3), x_reconst.view(-1, 1, 3, 3)], dim=3)
    print(sample.shape, x_concat.shape, x_concat.grad_fn)


def atcold_tensor_and_autograd(torch):
    # Atcold/NYU-DLSP20 01-tensor_tutorial.ipynb and 03-autograd_tutorial.ipynb
    torch.manual_seed(0)
    x = torch.Tensor(5, 3)
    print(x.shape, x.dtype, type(x))
    x = torch.rand(5, 3); print(x, x.size())
    y = torch.rand(5, 3)
    print(x + y, torch.add(x, y))
    result = torch.Tensor(5, 3)
    torch.add(x, y, out=result); print(result)
    y.add_(x); print(y, x[:, 1])
    x = torch.randn(4, 4)
    y = x.view(16); z = x.view(-1, 8)
    print(x.size(), y.size(), z.size())
    a = torch.ones(5); b = a.numpy(); print(a, b)
    a.add_(1); print(a, b)
    a = np.ones(5); b = torch.from_numpy(a)
    np.add(a, 1, out=a); print(a, b)
    print(torch.cuda.is_available(), x.device)
    x = torch.arange(1., 5.).view(2, 2).requires_grad_()
    print(x)
    y = x - 2
    print(y, y.grad_fn, x.grad_fn)
    print(y.grad_fn.next_functions[0][0], y.grad_fn.next_functions[0][0].variable)
    z = y * y * 3
    a = z.mean()
    print(z, a)
    a.backward()
    print(x.grad)
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    i = 0
    while y.data.norm() < 1000:
        y = y * 2
        i += 1
    print(y, i)
    gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
    y.backward(gradients)
    print(x.grad)
    print(x.requires_grad, (x ** 2).requires_grad)
    with torch.no_grad():
        print((x ** 2).requires_grad)
    x = torch.arange(1., 10, requires_grad=True)
    y = x.view(3, 3) @ torch.eye(3)
    print(y, y.grad_fn, y.grad_fn.next_functions)
    attempt(lambda: y.backward())
    x = torch.arange(1, 4, requires_grad=True) if False else None
    attempt(lambda: torch.arange(1, 4, requires_grad=True))
    attempt(lambda: torch.tensor([1, 2]).requires_grad_())


def atcold_space_stretching_spiral(torch):
    # 02-space_stretching.ipynb and 04-spiral_classification.ipynb
    nn = torch.nn
    torch.manual_seed(0)
    n_points = 20
    X = torch.randn(n_points, 2)
    colors = X[:, 0]
    for i in range(3):
        W = torch.randn(2, 2)
        Y = X @ W.t()
        U, S, V = torch.svd(W)
        print(W.shape, S.shape, [round(v, 4) for v in S.tolist()], U.dtype, Y[:2])
    model = nn.Sequential(nn.Linear(2, 5, bias=False), nn.Tanh())
    with torch.no_grad():
        Y = model(X)
    print(Y[:2], Y.requires_grad)
    N, D, C, H = 10, 2, 3, 8
    X = torch.zeros(N * C, D)
    y = torch.zeros(N * C, dtype=torch.long)
    for c in range(C):
        index = 0
        t = torch.linspace(0, 1, N)
        inner_var = torch.linspace((2 * math.pi / C) * c, (2 * math.pi / C) * (2 + c), N) + torch.randn(N) * 0.2
        for ix in range(N * c, N * (c + 1)):
            X[ix] = t[index] * torch.FloatTensor((math.sin(inner_var[index]), math.cos(inner_var[index])))
            y[ix] = c
            index += 1
    print("Shapes:", "X:", tuple(X.size()), "y:", tuple(y.size()))
    learning_rate, lambda_l2 = 1e-1, 1e-5
    model = nn.Sequential(nn.Linear(D, H), nn.Linear(H, C))
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, weight_decay=lambda_l2)
    for t in range(6):
        y_pred = model(X)
        loss = criterion(y_pred, y)
        score, predicted = torch.max(y_pred, 1)
        acc = (y == predicted).sum().float() / len(y)
        print("[EPOCH]: %i, [LOSS]: %.6f, [ACCURACY]: %.3f" % (t, loss.item(), acc))
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(model)
    model = nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, weight_decay=lambda_l2)
    for t in range(6):
        y_pred = model(X)
        loss = criterion(y_pred, y)
        score, predicted = torch.max(y_pred, 1)
        acc = ((y == predicted).sum().float() / len(y))
        print("[EPOCH]: %i, [LOSS]: %.6f, [ACCURACY]: %.3f" % (t, loss.item(), acc))
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    mesh = torch.arange(-1.1, 1.1, 0.5)
    xx, yy = np.meshgrid(mesh, mesh)
    with torch.no_grad():
        data = torch.from_numpy(np.vstack((xx.reshape(-1), yy.reshape(-1))).T).float()
        Z = model(data).detach()
    Z = np.argmax(Z, axis=1).reshape(xx.shape)
    print(xx.dtype, Z, acc)


def atcold_regression_convnet(torch):
    # 05-regression.ipynb (ensembles with dropout, .mean/.std over models) and
    # 06-convnet.ipynb (FC2Layer vs CNN, get_n_params, permuted pixels)
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    N = 12
    X = torch.rand(N, 1) * 2 - 1
    y = X ** 3 + 0.1 * torch.randn(N, 1)
    models = []
    for activation in (nn.ReLU, nn.Tanh):
        for i in range(2):
            model = nn.Sequential(nn.Linear(1, 10), activation(), nn.Dropout(0.2), nn.Linear(10, 1))
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-5)
            for t in range(5):
                y_pred = model(X)
                loss = nn.MSELoss()(y_pred, y)
                optimizer.zero_grad(); loss.backward(); optimizer.step()
            print("[MODEL]: %i, [LOSS]: %.6f" % (i + 1, loss.item()))
            models.append(model)
    xx = torch.linspace(-1.2, 1.2, 5).unsqueeze(1)
    with torch.no_grad():
        for model in models: model.train()
        y_preds = torch.stack([model(xx) for model in models], dim=0)
    print(y_preds.mean(0).view(-1), y_preds.std(0).view(-1))

    def get_n_params(model):
        np_ = 0
        for p in list(model.parameters()):
            np_ += p.nelement()
        return np_

    class FC2Layer(nn.Module):
        def __init__(self, input_size, n_hidden, output_size):
            super(FC2Layer, self).__init__()
            self.input_size = input_size
            self.network = nn.Sequential(nn.Linear(input_size, n_hidden), nn.ReLU(), nn.Linear(n_hidden, n_hidden),
                                         nn.ReLU(), nn.Linear(n_hidden, output_size), nn.LogSoftmax(dim=1))
        def forward(self, x):
            x = x.view(-1, self.input_size)
            return self.network(x)

    class CNN(nn.Module):
        def __init__(self, input_size, n_feature, output_size):
            super(CNN, self).__init__()
            self.n_feature = n_feature
            self.conv1 = nn.Conv2d(in_channels=1, out_channels=n_feature, kernel_size=3)
            self.conv2 = nn.Conv2d(n_feature, n_feature, kernel_size=3)
            self.fc1 = nn.Linear(n_feature, 10)
            self.fc2 = nn.Linear(10, 4)
        def forward(self, x, verbose=False):
            x = self.conv1(x); x = F.relu(x); x = F.max_pool2d(x, kernel_size=2)
            x = self.conv2(x); x = F.relu(x); x = F.max_pool2d(x, kernel_size=2)
            x = x.view(-1, self.n_feature * 1 * 1)
            x = F.relu(self.fc1(x))
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    data = torch.randn(6, 1, 10, 10); target = torch.randint(0, 4, (6,))
    perm = torch.randperm(100)
    for model in (FC2Layer(100, 8, 4), CNN(100, 3, 4)):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
        print('Number of parameters: {}'.format(get_n_params(model)))
        for permute in (False, True):
            d = data
            if permute:
                d = d.view(-1, 10 * 10); d = d[:, perm]; d = d.view(-1, 1, 10, 10)
            model.train()
            output = model(d)
            loss = F.nll_loss(output, target)
            optimizer.zero_grad(); loss.backward(); optimizer.step()
            model.eval()
            output = model(d)
            test_loss = F.nll_loss(output, target, reduction='sum').item()
            pred = output.data.max(1, keepdim=True)[1]
            correct = pred.eq(target.data.view_as(pred)).cpu().sum().item()
            print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
                test_loss / 6, correct, 6, 100. * correct / 6))
    print(pred.eq(target.data.view_as(pred)).cpu().sum(), perm[:5])


def mit_6s191_lab1(torch):
    # MIT 6.S191 lab 1 (PyTorch) part 1: tensors of each rank, a dense layer by hand, Sequential
    # and subclassed models, autograd and gradient descent by re-wrapping x with torch.tensor
    nn = torch.nn
    torch.manual_seed(0)
    integer = torch.tensor(1234)
    decimal = torch.tensor(3.14159265359)
    print(f"`integer` is a {integer.ndim}-d Tensor: {integer}")
    print(f"`decimal` is a {decimal.ndim}-d Tensor: {decimal}")
    fibonacci = torch.tensor([1, 1, 2, 3, 5, 8])
    count_to_100 = torch.tensor(range(100))
    print(f"`fibonacci` is a {fibonacci.ndim}-d Tensor with shape: {fibonacci.shape}")
    print(f"`count_to_100` is a {count_to_100.ndim}-d Tensor with shape: {count_to_100.shape}")
    matrix = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert isinstance(matrix, torch.Tensor), "matrix must be a torch Tensor object"
    assert matrix.ndim == 2
    images = torch.zeros(10, 3, 16, 16)
    assert images.ndim == 4, "images must have 4 dimensions"
    assert images.shape == (10, 3, 16, 16), "images is incorrect shape"
    print(f"images is a {images.ndim}-d Tensor with shape: {images.shape}")
    row_vector = matrix[1]; column_vector = matrix[:, 1]; scalar = matrix[0, 1]
    print(f"`row_vector`: {row_vector}", f"`column_vector`: {column_vector}", f"`scalar`: {scalar}")
    a = torch.tensor(15); b = torch.tensor(61)
    c1 = torch.add(a, b); c2 = a + b
    print(f"c1: {c1}", f"c2: {c2}")
    def func(a, b):
        c = torch.add(a, b)
        d = torch.subtract(b, 1)
        e = torch.multiply(c, d)
        return e
    a, b = 1.5, 2.5
    e_out = func(a, b) if False else func(torch.tensor(a), torch.tensor(b))
    print(f"e_out: {e_out}")

    class OurDenseLayer(torch.nn.Module):
        def __init__(self, num_inputs, num_outputs):
            super(OurDenseLayer, self).__init__()
            self.W = torch.nn.Parameter(torch.randn(num_inputs, num_outputs))
            self.bias = torch.nn.Parameter(torch.randn(num_outputs))
        def forward(self, x):
            z = torch.matmul(x, self.W) + self.bias
            y = torch.sigmoid(z)
            return y

    num_inputs, num_outputs = 2, 3
    layer = OurDenseLayer(num_inputs, num_outputs)
    x_input = torch.tensor([[1, 2.]])
    y = layer(x_input)
    print(f"input shape: {x_input.shape}", f"output shape: {y.shape}", f"output result: {y}")
    model = nn.Sequential(nn.Linear(num_inputs, num_outputs), nn.Sigmoid())
    print(model, model(x_input))

    class LinearWithSigmoidActivation(nn.Module):
        def __init__(self, num_inputs, num_outputs):
            super(LinearWithSigmoidActivation, self).__init__()
            self.linear = nn.Linear(num_inputs, num_outputs)
            self.activation = nn.Sigmoid()
        def forward(self, inputs):
            return self.activation(self.linear(inputs))

    class LinearButSometimesIdentity(nn.Module):
        def __init__(self, num_inputs, num_outputs):
            super(LinearButSometimesIdentity, self).__init__()
            self.linear = nn.Linear(num_inputs, num_outputs)
        def forward(self, inputs, isidentity=False):
            return inputs if isidentity else self.linear(inputs)

    print(LinearWithSigmoidActivation(2, 3)(x_input))
    model = LinearButSometimesIdentity(num_inputs=2, num_outputs=3)
    print(f"input: {x_input}", f"Network linear output: {model(x_input)}; network identity output: "
          f"{model(x_input, isidentity=True)}")
    x = torch.randn(1)
    x.requires_grad = True
    y = x * x
    y.backward()
    dy_dx = x.grad
    print("dy_dx of y=x^2 at x={:.3f} is: ".format(x.item()), dy_dx)
    x = torch.randn(1)
    learning_rate = 1e-2
    history = []
    x_f = 4
    for i in range(50):
        x = torch.tensor([x], requires_grad=True)
        loss = (x - x_f) ** 2
        loss.backward()
        x = x.item() - learning_rate * x.grad
        history.append(x.item())
    print(x, history[:3], history[-1], x.shape)
    # (a tensor requiring grad in the list would warn once per process, in torch as here: that
    # is tested in forked processes below, test_tensor_leaves_of_a_list_convert_as_torch)
    x = torch.tensor([x[0].detach()], requires_grad=True)
    loss = (x - x_f) ** 2
    loss.backward()
    print(x, x.grad, loss.grad_fn)


def mit_6s191_music_lstm(torch):
    # MIT 6.S191 lab 1 part 2: character-level LSTM on vectorised text with get_batch,
    # init_hidden, the loss on flattened logits and sampling with multinomial
    nn = torch.nn
    torch.manual_seed(0)
    np.random.seed(0)
    songs_joined = "X:1\nT:a\nK:D\nABcd efga|bagf edcB|ABcd e2 fg|\n" * 2
    vocab = sorted(set(songs_joined))
    char2idx = {u: i for i, u in enumerate(vocab)}
    idx2char = np.array(vocab)
    def vectorize_string(string):
        return np.array([char2idx[s] for s in string])
    vectorized_songs = vectorize_string(songs_joined)
    print('{} ---- characters mapped to int ----> {}'.format(repr(songs_joined[:10]), vectorized_songs[:10]))
    def get_batch(vectorized_songs, seq_length, batch_size):
        n = vectorized_songs.shape[0] - 1
        idx = np.random.choice(n - seq_length, batch_size)
        input_batch = [vectorized_songs[i: i + seq_length] for i in idx]
        output_batch = [vectorized_songs[i + 1: i + seq_length + 1] for i in idx]
        x_batch = torch.tensor(input_batch, dtype=torch.long)
        y_batch = torch.tensor(output_batch, dtype=torch.long)
        return x_batch, y_batch
    x_batch, y_batch = get_batch(vectorized_songs, seq_length=5, batch_size=2)
    print(x_batch, y_batch)

    class LSTMModel(nn.Module):
        def __init__(self, vocab_size, embedding_dim, hidden_size):
            super(LSTMModel, self).__init__()
            self.hidden_size = hidden_size
            self.embedding = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
            self.fc = nn.Linear(hidden_size, vocab_size)
        def init_hidden(self, batch_size, device):
            return (torch.zeros(1, batch_size, self.hidden_size).to(device),
                    torch.zeros(1, batch_size, self.hidden_size).to(device))
        def forward(self, x, state=None, return_state=False):
            x = self.embedding(x)
            if state is None:
                state = self.init_hidden(x.size(0), x.device)
            out, state = self.lstm(x, state)
            out = self.fc(out)
            return out if not return_state else (out, state)

    model = LSTMModel(len(vocab), 4, 8)
    print(model)
    pred = model(x_batch)
    print("Input shape:      ", x_batch.shape, " # (batch_size, sequence_length)")
    print("Prediction shape: ", pred.shape, "# (batch_size, sequence_length, vocab_size)")
    cross_entropy = nn.CrossEntropyLoss()
    def compute_loss(labels, logits):
        batched_labels = labels.view(-1)
        batched_logits = logits.view(-1, logits.size(-1))
        return cross_entropy(batched_logits, batched_labels)
    example_batch_loss = compute_loss(y_batch, pred)
    # (KNOWN: torch's float32 LSTM layer is oneDNN's kernel, whose last bits leafgrad does not
    # have, as tests/test_tutorials2_findings.py notes: losses printed to 5 decimals)
    print(f"scalar_loss:      {example_batch_loss.mean().item():.5f}")
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    for iter in range(3):
        x_batch, y_batch = get_batch(vectorized_songs, 5, 2)
        model.train(); optimizer.zero_grad()
        y_hat = model(x_batch)
        loss = compute_loss(y_batch, y_hat)
        loss.backward(); optimizer.step()
        print(iter, f"{loss.item():.5f}")
    def generate_text(model, start_string, generation_length=8):
        input_idx = [char2idx[s] for s in start_string]
        input_idx = torch.tensor([input_idx], dtype=torch.long)
        state = model.init_hidden(input_idx.size(0), 'cpu')
        text_generated = []
        for i in range(generation_length):
            predictions, state = model(input_idx, state, return_state=True)
            predictions = predictions.squeeze(0)
            input_idx = torch.multinomial(torch.softmax(predictions, dim=-1), num_samples=1)
            text_generated.append(idx2char[input_idx].item())
        return (start_string + ''.join(text_generated))
    print(repr(generate_text(model, start_string="X")))



def udacity_intro_parts_1_3(torch):
    # udacity/deep-learning-v2-pytorch intro-to-pytorch parts 1-3: a sigmoid unit by hand,
    # multilayer weights, the NumPy bridge, softmax by hand, Network classes, weight init
    # through .data, nn.Sequential from an OrderedDict
    nn = torch.nn; F = torch.nn.functional
    from collections import OrderedDict
    def activation(x):
        return 1 / (1 + torch.exp(-x))
    torch.manual_seed(7)
    features = torch.randn((1, 5))
    weights = torch.randn_like(features)
    bias = torch.randn((1, 1))
    y = activation(torch.sum(features * weights) + bias)
    print(y, activation((features * weights).sum() + bias))
    attempt(lambda: torch.mm(features, weights))
    y = activation(torch.mm(features, weights.view(5, 1)) + bias)
    print(y, weights.reshape(5, 1).shape, weights.resize_(1, 5).shape)
    torch.manual_seed(7)
    features = torch.randn((1, 3))
    n_input = features.shape[1]; n_hidden = 2; n_output = 1
    W1 = torch.randn(n_input, n_hidden); W2 = torch.randn(n_hidden, n_output)
    B1 = torch.randn((1, n_hidden)); B2 = torch.randn((1, n_output))
    h = activation(torch.mm(features, W1) + B1)
    output = activation(torch.mm(h, W2) + B2)
    print(output)
    a = np.random.RandomState(0).rand(4, 3)
    b = torch.from_numpy(a)
    print(b, b.numpy() is a, b.mul_(2), a)
    inputs = torch.randn(64, 784)[:6]
    w1 = torch.randn(784, 256)[:, :8]; b1 = torch.randn(8)
    w2 = torch.randn(8, 10); b2 = torch.randn(10)
    h = activation(torch.mm(inputs, w1) + b1)
    out = torch.mm(h, w2) + b2
    def softmax(x):
        return torch.exp(x) / torch.sum(torch.exp(x), dim=1).view(-1, 1)
    probabilities = softmax(out)
    print(probabilities.shape, probabilities.sum(dim=1))

    class Network(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(12, 8)
            self.output = nn.Linear(8, 10)
            self.sigmoid = nn.Sigmoid()
            self.softmax = nn.Softmax(dim=1)
        def forward(self, x):
            x = self.hidden(x); x = self.sigmoid(x)
            x = self.output(x); x = self.softmax(x)
            return x

    model = Network()
    print(model)

    class Network2(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(12, 8); self.fc2 = nn.Linear(8, 6); self.fc3 = nn.Linear(6, 10)
        def forward(self, x):
            x = F.relu(self.fc1(x)); x = F.relu(self.fc2(x))
            return F.softmax(self.fc3(x), dim=1)

    model = Network2()
    print(model.fc1.weight.shape, model.fc1.bias[:3])
    model.fc1.bias.data.fill_(0)
    model.fc1.weight.data.normal_(std=0.01)
    print(model.fc1.bias, model.fc1.weight[0, :4])
    images = torch.rand(2, 1, 3, 4)
    images.resize_(images.shape[0], 1, 12)
    img_idx = 0
    ps = model.forward(images[img_idx, :])
    print(images.shape, ps)
    model = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 10),
                          nn.Softmax(dim=1))
    print(model, model[0], model[0].weight.shape)
    model = nn.Sequential(OrderedDict([('fc1', nn.Linear(12, 8)), ('relu1', nn.ReLU()),
                                       ('fc2', nn.Linear(8, 6)), ('relu2', nn.ReLU()),
                                       ('output', nn.Linear(6, 10)), ('softmax', nn.Softmax(dim=1))]))
    print(model, model[0], model.fc1)
    attempt(lambda: model['fc1'])


def udacity_intro_parts_4_6(torch):
    # intro-to-pytorch parts 3-6: LogSoftmax + NLLLoss, autograd checks, a training pass,
    # inference with topk and the accuracy as a FloatTensor mean, dropout, saving a checkpoint
    # and loading it into a model of another size
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    torch.manual_seed(0)
    images = torch.rand(8, 1, 4, 4); labels = torch.randint(0, 10, (8,))
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 10))
    criterion = nn.CrossEntropyLoss()
    images = images.view(images.shape[0], -1)
    logits = model(images)
    loss = criterion(logits, labels)
    print(loss)
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 10), nn.LogSoftmax(dim=1))
    criterion = nn.NLLLoss()
    logps = model(images)
    loss = criterion(logps, labels)
    print(loss)
    x = torch.randn(2, 2, requires_grad=True)
    print(x)
    y = x ** 2
    print(y, y.grad_fn)
    z = y.mean()
    print(z, x.grad)
    z.backward()
    print(x.grad, x / 2)
    print('Before backward pass: \n', model[0].weight.grad)
    loss.backward()
    print('After backward pass: \n', model[0].weight.grad[:2, :4])
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    print('Initial weights - ', model[0].weight[:1, :4])
    optimizer.zero_grad()
    output = model(images)
    loss = criterion(output, labels)
    loss.backward()
    print('Gradient -', model[0].weight.grad[:1, :4])
    optimizer.step()
    print('Updated weights - ', model[0].weight[:1, :4])
    for e in range(3):
        running_loss = 0
        for i in range(2):
            optimizer.zero_grad()
            output = model(images[i * 4:(i + 1) * 4])
            loss = criterion(output, labels[i * 4:(i + 1) * 4])
            loss.backward(); optimizer.step()
            running_loss += loss.item()
        else:
            print(f"Training loss: {running_loss / 2}")

    class Classifier(nn.Module):
        def __init__(self, hidden=8):
            super().__init__()
            self.fc1 = nn.Linear(16, hidden); self.fc2 = nn.Linear(hidden, 10)
            self.dropout = nn.Dropout(p=0.2)
        def forward(self, x):
            x = x.view(x.shape[0], -1)
            x = self.dropout(F.relu(self.fc1(x)))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Classifier()
    optimizer = optim.Adam(model.parameters(), lr=0.003)
    train_losses, test_losses = [], []
    for e in range(2):
        optimizer.zero_grad()
        log_ps = model(images)
        loss = criterion(log_ps, labels)
        loss.backward(); optimizer.step()
        test_loss = 0; accuracy = 0
        with torch.no_grad():
            model.eval()
            log_ps = model(images)
            test_loss += criterion(log_ps, labels)
            ps = torch.exp(log_ps)
            top_p, top_class = ps.topk(1, dim=1)
            equals = top_class == labels.view(*top_class.shape)
            accuracy += torch.mean(equals.type(torch.FloatTensor))
        model.train()
        train_losses.append(loss.item()); test_losses.append(test_loss)
        print("Epoch: {}/{}.. ".format(e + 1, 2), "Training Loss: {:.3f}.. ".format(loss.item()),
              "Test Loss: {:.3f}.. ".format(test_loss / 1), "Test Accuracy: {:.3f}".format(accuracy / 1))
        print(f'Accuracy: {accuracy.item() * 100}%', top_p[:2], top_class[:2].T, equals.shape, equals.dtype)
    print(test_losses)
    print("Our model: \n\n", model, '\n')
    print("The state dict keys: \n\n", model.state_dict().keys())
    buffer = io.BytesIO()
    checkpoint = {'input_size': 16, 'output_size': 10, 'hidden': 8, 'state_dict': model.state_dict()}
    torch.save(checkpoint, buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer)
    model2 = Classifier(checkpoint['hidden'])
    print(model2.load_state_dict(checkpoint['state_dict']))
    model3 = Classifier(6)
    attempt(lambda: model3.load_state_dict(checkpoint['state_dict']))
    print(checkpoint.keys(), type(checkpoint['state_dict']))


def zero_to_gans_linear_regression(torch):
    # Jovian "Deep Learning with PyTorch: Zero to GANs" lessons 1-2: gradients of a toy
    # expression, linear regression from scratch (matrix model, MSE, manual updates under
    # no_grad), then with TensorDataset/DataLoader, nn.Linear, F.mse_loss and a fit function
    nn = torch.nn; F = torch.nn.functional
    x = torch.tensor(3.)
    w = torch.tensor(4., requires_grad=True)
    b = torch.tensor(5., requires_grad=True)
    print(x, w, b)
    y = w * x + b
    print(y)
    y.backward()
    print('dy/dx:', x.grad)
    print('dy/dw:', w.grad)
    print('dy/db:', b.grad)
    t6 = torch.full((3, 2), 42)
    t7 = torch.cat((torch.tensor([[5., 6], [7, 8], [9, 10]]), t6))
    t8 = torch.sin(t7)
    print(t6, t7, t8.reshape(3, 2, 2)[0])
    inputs = np.array([[73, 67, 43], [91, 88, 64], [87, 134, 58], [102, 43, 37], [69, 96, 70]], dtype='float32')
    targets = np.array([[56, 70], [81, 101], [119, 133], [22, 37], [103, 119]], dtype='float32')
    inputs = torch.from_numpy(inputs); targets = torch.from_numpy(targets)
    print(inputs, targets)
    torch.manual_seed(42)
    w = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    print(w, b)
    def model(x):
        return x @ w.t() + b
    preds = model(inputs)
    print(preds)
    def mse(t1, t2):
        diff = t1 - t2
        return torch.sum(diff * diff) / diff.numel()
    loss = mse(preds, targets)
    print(loss)
    loss.backward()
    print(w, w.grad, b.grad)
    with torch.no_grad():
        w -= w.grad * 1e-5
        b -= b.grad * 1e-5
    print(w, b)
    w.grad.zero_(); b.grad.zero_()
    print(w.grad, b.grad)
    for i in range(20):
        preds = model(inputs)
        loss = mse(preds, targets)
        loss.backward()
        with torch.no_grad():
            w -= w.grad * 1e-5
            b -= b.grad * 1e-5
            w.grad.zero_(); b.grad.zero_()
    print(loss, preds[:2], targets[:2])
    TensorDataset = torch.utils.data.TensorDataset; DataLoader = torch.utils.data.DataLoader
    train_ds = TensorDataset(inputs, targets)
    print(train_ds[0:3])
    batch_size = 2
    train_dl = DataLoader(train_ds, batch_size, shuffle=True)
    for xb, yb in train_dl:
        print(xb, yb)
        break
    model = nn.Linear(3, 2)
    print(model.weight, model.bias, list(model.parameters()))
    preds = model(inputs)
    loss_fn = F.mse_loss
    loss = loss_fn(model(inputs), targets)
    print(loss)
    opt = torch.optim.SGD(model.parameters(), lr=1e-5)
    def fit(num_epochs, model, loss_fn, opt, train_dl):
        for epoch in range(num_epochs):
            for xb, yb in train_dl:
                pred = model(xb)
                loss = loss_fn(pred, yb)
                loss.backward()
                opt.step()
                opt.zero_grad()
            if (epoch + 1) % 5 == 0:
                print('Epoch [{}/{}], Loss: {:.4f}'.format(epoch + 1, num_epochs, loss.item()))
    fit(10, model, loss_fn, opt, train_dl)
    print(model(torch.tensor([[75, 63, 44.]])))


def zero_to_gans_logistic_regression(torch):
    # Zero to GANs lesson 3-4: random_split, a model class with training_step/validation_step
    # and epoch_end (stacking batch losses), accuracy as torch.tensor(...), evaluate/fit with
    # history, a feed-forward net and DeviceDataLoader/to_device helpers
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    X = torch.rand(30, 1, 3, 3); Y = torch.randint(0, 3, (30,))
    dataset = torch.utils.data.TensorDataset(X, Y)
    train_ds, val_ds = torch.utils.data.random_split(dataset, [24, 6])
    print(len(train_ds), len(val_ds), type(train_ds).__name__, train_ds.indices[:5])
    train_loader = torch.utils.data.DataLoader(train_ds, 8, shuffle=True)
    val_loader = torch.utils.data.DataLoader(val_ds, 8)
    input_size = 9; num_classes = 3
    def accuracy(outputs, labels):
        _, preds = torch.max(outputs, dim=1)
        return torch.tensor(torch.sum(preds == labels).item() / len(preds))

    class MnistModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(input_size, num_classes)
        def forward(self, xb):
            xb = xb.reshape(-1, 9)
            return self.linear(xb)
        def training_step(self, batch):
            images, labels = batch
            out = self(images)
            return F.cross_entropy(out, labels)
        def validation_step(self, batch):
            images, labels = batch
            out = self(images)
            loss = F.cross_entropy(out, labels)
            acc = accuracy(out, labels)
            return {'val_loss': loss, 'val_acc': acc}
        def validation_epoch_end(self, outputs):
            batch_losses = [x['val_loss'] for x in outputs]
            epoch_loss = torch.stack(batch_losses).mean()
            batch_accs = [x['val_acc'] for x in outputs]
            epoch_acc = torch.stack(batch_accs).mean()
            return {'val_loss': epoch_loss.item(), 'val_acc': epoch_acc.item()}
        def epoch_end(self, epoch, result):
            print("Epoch [{}], val_loss: {:.4f}, val_acc: {:.4f}".format(epoch, result['val_loss'], result['val_acc']))

    model = MnistModel()
    print(model.linear.weight.shape, model.linear.bias.shape, list(model.parameters())[1])
    for images, labels in train_loader:
        outputs = model(images)
        break
    probs = F.softmax(outputs, dim=1)
    print("Sample probabilities:\n", probs[:2].data)
    print("Sum: ", torch.sum(probs[0]).item())
    max_probs, preds = torch.max(probs, dim=1)
    print(preds, max_probs, accuracy(outputs, labels))

    def evaluate(model, val_loader):
        outputs = [model.validation_step(batch) for batch in val_loader]
        return model.validation_epoch_end(outputs)

    def fit(epochs, lr, model, train_loader, val_loader, opt_func=torch.optim.SGD):
        optimizer = opt_func(model.parameters(), lr)
        history = []
        for epoch in range(epochs):
            for batch in train_loader:
                loss = model.training_step(batch)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            result = evaluate(model, val_loader)
            model.epoch_end(epoch, result)
            history.append(result)
        return history

    result0 = evaluate(model, val_loader)
    print(result0)
    history1 = fit(3, 0.1, model, train_loader, val_loader)
    print(history1[-1])

    def get_default_device():
        if torch.cuda.is_available():
            return torch.device('cuda')
        else:
            return torch.device('cpu')
    def to_device(data, device):
        if isinstance(data, (list, tuple)):
            return [to_device(x, device) for x in data]
        return data.to(device, non_blocking=True)

    class DeviceDataLoader():
        def __init__(self, dl, device):
            self.dl = dl; self.device = device
        def __iter__(self):
            for b in self.dl:
                yield to_device(b, self.device)
        def __len__(self):
            return len(self.dl)

    device = get_default_device()
    print(device, repr(device), device.type)
    train_loader = DeviceDataLoader(train_loader, device)
    for xb, yb in train_loader:
        print('xb.device:', xb.device, 'yb:', yb)
        break

    class MnistModel2(nn.Module):
        def __init__(self, in_size, hidden_size, out_size):
            super().__init__()
            self.linear1 = nn.Linear(in_size, hidden_size)
            self.linear2 = nn.Linear(hidden_size, out_size)
        def forward(self, xb):
            xb = xb.view(xb.size(0), -1)
            out = self.linear1(xb)
            out = F.relu(out)
            return self.linear2(out)

    model = MnistModel2(9, 4, 3)
    to_device(model, device)
    for t in model.parameters():
        print(t.shape)
    @torch.no_grad()
    def evaluate2(model, loader):
        model.eval()
        outs = [F.cross_entropy(model(xb), yb) for xb, yb in loader]
        return torch.stack(outs).mean()
    print(evaluate2(model, val_loader), evaluate2.__name__)



def d2l_math_geometry_eigen(torch):
    # d2l-en appendix "Mathematics for Deep Learning": geometry and linear algebraic operations
    # (angles, cosine similarity, hyperplanes, determinants, einsum), eigendecompositions
    # (power iteration, the Gershgorin discs, normalising a random matrix's growth)
    def angle(v, w):
        return torch.acos(v.dot(w) / (torch.norm(v) * torch.norm(w)))
    print(angle(torch.tensor([0, 1, 2], dtype=torch.float32), torch.tensor([2.0, 3, 4])))
    attempt(lambda: angle(torch.tensor([0, 1, 2]), torch.tensor([2.0, 3, 4])))
    torch.manual_seed(0)
    X = torch.rand(6, 2)
    w = torch.tensor([1.0, -1.0])
    predictions = X @ w > 0
    print(predictions, torch.mean(predictions.float()))
    M = torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)
    M_inv = torch.tensor([[2, -1], [-0.5, 0.5]])
    print(M_inv @ M, torch.det(torch.tensor([[1, -1], [2, 3]], dtype=torch.float32)))
    B = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    A = torch.tensor([[1, 2], [3, 4]])
    v = torch.tensor([1, 2])
    print(torch.mm(A, v.reshape(-1, 1)).reshape(-1), torch.einsum("ij, j -> i", A, v))
    attempt(lambda: torch.det(B))
    print(torch.linalg.matrix_rank(B.float()), torch.trace(B), B.T @ B, torch.outer(v, v))
    print(torch.einsum(A, [0, 1], v, [1], [0]), torch.tensordot(A, A, dims=([1], [0])))
    eigenvalues, eigenvectors = torch.linalg.eig(torch.tensor([[2, 1], [2, 3]], dtype=torch.float64))
    print(eigenvalues, eigenvalues.dtype, eigenvectors.abs().round(decimals=6))
    A = torch.tensor([[1.0, 0.1, 0.1, 0.1], [0.1, 3.0, 0.2, 0.3], [0.1, 0.2, 5.0, 0.5],
                      [0.1, 0.3, 0.5, 9.0]], dtype=torch.float64)
    v, _ = torch.linalg.eigh(A)
    print(v.round(decimals=6))
    torch.manual_seed(42)
    k = 5
    A = torch.randn(k, k, dtype=torch.float64)
    v_in = torch.randn(k, 1, dtype=torch.float64)
    norm_list = [torch.norm(v_in).item()]
    for i in range(1, 30):
        v_in = A @ v_in
        norm_list.append(torch.norm(v_in).item())
    norm_ratio_list = []
    for i in range(1, 30):
        norm_ratio_list.append(norm_list[i] / norm_list[i - 1])
    print(["%.6f" % r for r in norm_ratio_list[-3:]])
    eigs = torch.linalg.eig(A).eigenvalues.tolist()
    norm_eigs = [torch.abs(torch.tensor(x)) for x in eigs]
    norm_eigs.sort()
    print(f'largest eigenvalue: {norm_eigs[-1]:.6f}')
    A /= norm_eigs[-1]
    v_in = torch.randn(k, 1, dtype=torch.float64)
    print(type(eigs[0]), norm_eigs[-1].dtype, A.abs().max() <= 10)


def d2l_math_calculus_probability(torch):
    # d2l-en appendix: single and multivariable calculus (finite differences, gradients with
    # autograd, Hessians), integral calculus (Riemann sums), random variables, maximum
    # likelihood by gradient descent, distributions (Bernoulli, uniform, binomial, Poisson,
    # Gaussian) and statistics (bias, variance, confidence intervals)
    def L(x):
        return torch.log(1 + x)
    for h in [1e-1, 1e-3, 1e-5]:
        print(f'h={h:.0e}: {(L(torch.tensor(1 + h, dtype=torch.float64)) - L(torch.tensor(1., dtype=torch.float64))) / h:.5f}')
    x = torch.arange(-2, 2, 0.5)
    f = lambda x: torch.exp(-x ** 2)
    print(f(x), torch.sin(x).sum())
    w, x_, y, z = [torch.tensor(v, requires_grad=True) for v in (-1., 0., -2., 1.)]
    a, b = (w + x_ + y + z) ** 2, (w + x_ - y - z) ** 2
    u, v = (a + b) ** 2, (a - b) ** 2
    f = (u + v) ** 2
    f.backward()
    print(f'df/dw at {w.data.item()}, {x_.data.item()}, {y.data.item()}, {z.data.item()} is {w.grad.data.item()}')
    print(x_.grad, y.grad, z.grad)
    H = torch.autograd.functional.hessian(lambda t: (t[0] * t[1] ** 2 + t[0] ** 3).sum(), torch.tensor([1.0, 2.0]))
    print(H)
    epsilon = 0.05
    a_, b_ = 0, 2
    x = torch.arange(a_, b_, epsilon)
    f = x / (1 + x ** 2)
    approx = torch.sum(epsilon * f)
    true = torch.log(torch.tensor([5.])) / 2
    print(f'approximation: {approx}, truth: {true}')
    torch.manual_seed(8675309)
    print(torch.distributions.uniform.Uniform(0, 1).sample((3,)), torch.rand(2))
    p = 0.3
    print(1 * (torch.rand(10) < p))
    n, p = 10, 0.2
    def binom(n, k):
        comb = 1
        for i in range(min(k, n - k)):
            comb = comb * (n - i) // (i + 1)
        return comb
    pmf = torch.tensor([p ** i * (1 - p) ** (n - i) * binom(n, i) for i in range(n + 1)])
    print(pmf, pmf.dtype, pmf.sum())
    m = torch.distributions.binomial.Binomial(n, p)
    print(m.sample(sample_shape=(4, 3)), m.mean, m.variance)
    lam = 5.0
    xs = [i for i in range(6)]
    pmf = torch.tensor([torch.exp(torch.tensor(-lam)) * lam ** k / factorial for k, factorial in
                        zip(xs, [math.factorial(k) for k in xs])])
    print(pmf)
    m = torch.distributions.poisson.Poisson(lam)
    print(m.sample((8,)), m.log_prob(torch.tensor([0., 3., 7.])))
    mu, sigma = 0, 1
    x = torch.arange(-3, 3, 1.5)
    p = 1 / torch.sqrt(2 * torch.pi * sigma ** 2) * torch.exp(-(x - mu) ** 2 / (2 * sigma ** 2))
    print(p, torch.distributions.Normal(mu, sigma).log_prob(x).exp())
    n_heads, n_tails = 9, 1
    theta = torch.tensor(0.5, requires_grad=True)
    lr = 1e-2
    for iter in range(20):
        loss = -(n_heads * torch.log(theta) + n_tails * torch.log(1 - theta))
        loss.backward()
        with torch.no_grad():
            theta -= lr * theta.grad
        theta.grad.zero_()
    print(theta, n_heads / (n_heads + n_tails))
    torch.manual_seed(8675309)
    sample = torch.normal(0, 1, size=(20, 1))
    def stat_bias(true_theta, est_theta):
        return (torch.mean(est_theta) - true_theta)
    def mse(data, true_theta):
        return (torch.mean(torch.square(data - true_theta)))
    theta_est = torch.mean(sample)
    print(theta_est, mse(sample, 0), stat_bias(0, sample), torch.var(sample, unbiased=False))
    N = 1000
    samples = torch.normal(mu, sigma, size=(N,))
    sample_mean = torch.mean(samples)
    sample_std = torch.std(samples)
    print(sample_mean - 1.96 * sample_std / torch.sqrt(torch.tensor(N, dtype=torch.float32)),
          torch.tensor(N, dtype=torch.float32).sqrt())


def d2l_math_information_theory(torch):
    # d2l-en appendix "Information Theory" and "Naive Bayes": self-information, entropy with a
    # nansum, joint and conditional entropy, mutual information, KL divergence, cross-entropy
    # and its NLLLoss equivalence; naive Bayes on binary features with add-one smoothing
    nn = torch.nn
    def nansum(x):
        return x[~torch.isnan(x)].sum()
    def self_information(p):
        return -torch.log2(torch.tensor(p)).item()
    print(self_information(1 / 64))
    def entropy(p):
        entropy = - p * torch.log2(p)
        out = nansum(entropy)
        return out
    print(entropy(torch.tensor([0.1, 0.5, 0.1, 0.3])), entropy(torch.tensor([0.0, 1.0])))
    def joint_entropy(p_xy):
        joint_ent = -p_xy * torch.log2(p_xy)
        return nansum(joint_ent)
    print(joint_entropy(torch.tensor([[0.1, 0.5], [0.1, 0.3]])))
    def conditional_entropy(p_xy, p_x):
        p_y_given_x = p_xy / p_x
        cond_ent = -p_xy * torch.log2(p_y_given_x)
        return nansum(cond_ent)
    print(conditional_entropy(torch.tensor([[0.1, 0.5], [0.2, 0.3]]), torch.tensor([0.2, 0.8])))
    def mutual_information(p_xy, p_x, p_y):
        p = p_xy / (p_x * p_y)
        mutual = p_xy * torch.log2(p)
        return nansum(mutual)
    print(mutual_information(torch.tensor([[0.1, 0.5], [0.1, 0.3]]), torch.tensor([0.2, 0.8]),
                             torch.tensor([[0.75, 0.25]])))
    def kl_divergence(p, q):
        kl = p * torch.log2(p / q)
        out = nansum(kl)
        return out.abs().item()
    torch.manual_seed(1)
    tensor_len = 1000
    p = torch.normal(0, 1, (tensor_len,))
    q1 = torch.normal(-1, 1, (tensor_len,))
    q2 = torch.normal(1, 1, (tensor_len,))
    p = torch.sort(p)[0]; q1 = torch.sort(q1)[0]; q2 = torch.sort(q2)[0]
    kl_pq1 = kl_divergence(p, q1)
    kl_pq2 = kl_divergence(p, q2)
    similar_percentage = abs(kl_pq1 - kl_pq2) / ((kl_pq1 + kl_pq2) / 2) * 100
    print(kl_pq1, kl_pq2, similar_percentage)
    print(kl_divergence(q2, p), torch.isnan(p / q1).sum(), (p / q1).isinf().any())
    def cross_entropy(y_hat, y):
        ce = -torch.log(y_hat[range(len(y_hat)), y])
        return ce.mean()
    labels = torch.tensor([0, 2])
    preds = torch.tensor([[0.3, 0.6, 0.1], [0.2, 0.3, 0.5]])
    print(cross_entropy(preds, labels))
    nll_loss = nn.NLLLoss()
    loss = nll_loss(torch.log(preds), labels)
    print(loss, torch.nn.functional.cross_entropy(torch.log(preds), labels))
    torch.manual_seed(0)
    X = (torch.rand(40, 6) > 0.5).float(); Y = torch.randint(0, 3, (40,))
    n_y = torch.zeros(3)
    for y in range(3):
        n_y[y] = (Y == y).sum()
    P_y = n_y / n_y.sum()
    n_x = torch.zeros((3, 6))
    for y in range(3):
        n_x[y] = torch.tensor(X.numpy()[Y.numpy() == y].sum(axis=0))
    P_xy = (n_x + 1) / (n_y + 2).reshape(3, 1)
    print(P_y, P_xy[:, :3])
    log_P_xy = torch.log(P_xy); log_P_xy_neg = torch.log(1 - P_xy); log_P_y = torch.log(P_y)
    def bayes_pred_stable(x):
        x = x.unsqueeze(0)
        p_xy = log_P_xy * x + log_P_xy_neg * (1 - x)
        p_xy = p_xy.reshape(3, -1).sum(axis=1)
        return p_xy + log_P_y
    py = bayes_pred_stable(X[0])
    print(py, py.argmax(dim=0), int(py.argmax(dim=0)))
    preds = torch.tensor([bayes_pred_stable(x).argmax(dim=0) for x in X], dtype=torch.int32)
    print(float((preds == Y).sum()) / len(Y), preds[:8])



def dataloader_walkthrough(torch):
    # Dataset/DataLoader tutorials: map-style and iterable datasets, default_collate of dicts,
    # tuples, NumPy arrays, numbers and strings, a padding collate_fn, samplers (Sequential,
    # Random with a generator, SubsetRandom, WeightedRandom, BatchSampler), drop_last, Subset
    # and ConcatDataset, random_split by fractions, and collate's error for unequal sizes
    data = torch.utils.data
    torch.manual_seed(0)

    class Squares(data.Dataset):
        def __init__(self, n):
            self.n = n
        def __len__(self):
            return self.n
        def __getitem__(self, i):
            return {"x": torch.tensor([i, i ** 2], dtype=torch.float32), "y": i % 2,
                    "name": f"item{i}", "arr": np.full(2, i, dtype=np.int32), "w": 0.5 * i}

    ds = Squares(7)
    loader = data.DataLoader(ds, batch_size=3)
    for batch in loader:
        print(batch["x"], batch["y"], batch["name"], batch["arr"], batch["arr"].dtype, batch["w"])
    print(len(loader), len(data.DataLoader(ds, batch_size=3, drop_last=True)))
    g = torch.Generator().manual_seed(1)
    print(list(data.RandomSampler(ds, generator=g)), list(data.SequentialSampler(ds)))
    print(list(data.BatchSampler(data.SequentialSampler(range(7)), batch_size=3, drop_last=False)))
    print(list(data.SubsetRandomSampler([0, 2, 4], generator=torch.Generator().manual_seed(2))))
    ws = data.WeightedRandomSampler([0.1, 0.9, 0.4], num_samples=6, replacement=True,
                                    generator=torch.Generator().manual_seed(3))
    print(list(ws))

    def pad_collate(batch):
        seqs = [torch.tensor(b[0]) for b in batch]
        lens = torch.tensor([len(s) for s in seqs])
        padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1)
        return padded, lens, torch.tensor([b[1] for b in batch])

    seq_ds = [([1, 2, 3], 0), ([4], 1), ([5, 6], 0), ([7, 8, 9, 10], 1)]
    for padded, lens, ys in data.DataLoader(seq_ds, batch_size=2, collate_fn=pad_collate):
        print(padded, lens, ys)
    bad = data.DataLoader([torch.ones(3), torch.ones(2)], batch_size=2)
    attempt(lambda: next(iter(bad)))
    print(data.default_collate([(1, 2.0), (3, 4.0)]), data.default_collate([np.float64(1.5), np.float64(2)]))
    print(data.default_collate([[1, 2], [3, 4]]), data.default_convert(np.arange(3)))
    Point = collections.namedtuple("Point", ["a", "b"])
    print(data.default_collate([Point(1, torch.zeros(2)), Point(2, torch.ones(2))]))

    class Stream(data.IterableDataset):
        def __init__(self, start, end):
            super().__init__(); self.start, self.end = start, end
        def __iter__(self):
            info = data.get_worker_info()
            print("worker info:", info)
            return iter(range(self.start, self.end))

    print(list(data.DataLoader(Stream(3, 8), batch_size=2)))
    attempt(lambda: len(data.DataLoader(Stream(3, 8))))
    sub = data.Subset(ds, [1, 3])
    cat = data.ConcatDataset([data.TensorDataset(torch.arange(3.)), data.TensorDataset(torch.arange(10., 12.))])
    print(len(sub), sub[1]["name"], len(cat), cat[4], cat.cumulative_sizes)
    parts = data.random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(42))
    print([list(p) for p in parts], [len(p) for p in parts])
    attempt(lambda: data.random_split(range(10), [5, 6]))
    attempt(lambda: data.DataLoader(ds, batch_size=2, shuffle=True, sampler=data.SequentialSampler(ds)))
    loader = data.DataLoader(data.TensorDataset(torch.arange(10.).view(5, 2), torch.arange(5)), batch_size=2,
                             shuffle=True, generator=torch.Generator().manual_seed(0))
    print([(x.tolist(), y.tolist()) for x, y in loader], loader.batch_size, type(loader.sampler).__name__)


def atcold_autoencoder_vae(torch):
    # Atcold/NYU-DLSP20 10-autoencoder.ipynb (denoising with a dropout mask) and 11-VAE.ipynb
    # (reparameterise with std.data.new(...).normal_(), BCE + KLD, sampling)
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(1)
    d = 6

    class Autoencoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(16, d), nn.Tanh())
            self.decoder = nn.Sequential(nn.Linear(d, 16), nn.Tanh())
        def forward(self, x):
            x = self.encoder(x)
            x = self.decoder(x)
            return x

    model = Autoencoder()
    criterion = nn.MSELoss()
    learning_rate = 1e-3
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    img = torch.rand(4, 1, 4, 4) * 2 - 1
    do = nn.Dropout()
    for epoch in range(3):
        noise = do(torch.ones(img.shape))
        img_bad = (img * noise)
        img_bad = img_bad.view(img_bad.size(0), -1)
        output = model(img_bad)
        loss = criterion(output, img.view(img.size(0), -1))
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(f'epoch [{epoch + 1}/{3}], loss:{loss.item():.4f}', noise.unique())
    print(model.encoder[0].weight.data.abs().max(), noise.sum())

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(16, d ** 2), nn.ReLU(), nn.Linear(d ** 2, d * 2))
            self.decoder = nn.Sequential(nn.Linear(d, d ** 2), nn.ReLU(), nn.Linear(d ** 2, 16), nn.Sigmoid())
        def reparameterise(self, mu, logvar):
            if self.training:
                std = logvar.mul(0.5).exp_()
                eps = std.data.new(std.size()).normal_()
                return eps.mul(std).add_(mu)
            else:
                return mu
        def forward(self, x):
            mu_logvar = self.encoder(x.view(-1, 16)).view(-1, 2, d)
            mu = mu_logvar[:, 0, :]
            logvar = mu_logvar[:, 1, :]
            z = self.reparameterise(mu, logvar)
            return self.decoder(z), mu, logvar

    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    def loss_function(x_hat, x, mu, logvar):
        BCE = nn.functional.binary_cross_entropy(x_hat, x.view(-1, 16), reduction='sum')
        KLD = 0.5 * torch.sum(logvar.exp() - logvar - 1 + mu.pow(2))
        return BCE + KLD
    x = torch.rand(4, 1, 4, 4)
    for epoch in range(2):
        model.train()
        x_hat, mu, logvar = model(x)
        loss = loss_function(x_hat, x, mu, logvar)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(f'====> Epoch: {epoch} Average loss: {loss.item() / len(x):.4f}')
        with torch.no_grad():
            model.eval()
            x_hat, mu, logvar = model(x)
            test_loss = loss_function(x_hat, x, mu, logvar).item()
        print(f'====> Test set loss: {test_loss / len(x):.4f}', mu.requires_grad)
    N = 3
    z = torch.randn((N, d))
    sample = model.decoder(z)
    print(sample.shape, sample.grad_fn, sample[0, :3])
    A, B = 0, 1
    z1, z2 = mu[A], mu[B]
    N = 4
    code = torch.Tensor(N, d)
    for i in range(N):
        code[i] = i / (N - 1) * z2 + (1 - i / (N - 1)) * z1
    print(code.grad_fn, code.shape, model.decoder(code)[:, :2])
    attempt(lambda: logvar.mul(0.5).exp_().backward())


def atcold_transformer_encoder(torch):
    # Atcold/NYU-DLSP20 15-transformer.ipynb: multi-head attention from scratch, sinusoidal
    # embeddings built with NumPy and frozen with detach_(), an encoder layer and classifier
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)

    class MultiHeadAttention(nn.Module):
        def __init__(self, d_model, num_heads, p, d_input=None):
            super().__init__()
            self.num_heads = num_heads
            self.d_model = d_model
            if d_input is None:
                d_xq = d_xk = d_xv = d_model
            else:
                d_xq, d_xk, d_xv = d_input
            assert d_model % self.num_heads == 0
            self.d_k = d_model // self.num_heads
            self.W_q = nn.Linear(d_xq, d_model, bias=False)
            self.W_k = nn.Linear(d_xk, d_model, bias=False)
            self.W_v = nn.Linear(d_xv, d_model, bias=False)
            self.W_h = nn.Linear(d_model, d_model)
        def scaled_dot_product_attention(self, Q, K, V):
            batch_size = Q.size(0)
            k_length = K.size(-2)
            Q = Q / np.sqrt(self.d_k)
            scores = torch.matmul(Q, K.transpose(2, 3))
            A = nn.Softmax(dim=-1)(scores)
            H = torch.matmul(A, V)
            return H, A
        def split_heads(self, x, batch_size):
            return x.view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        def group_heads(self, x, batch_size):
            return x.transpose(1, 2).contiguous().view(batch_size, -1, self.num_heads * self.d_k)
        def forward(self, X_q, X_k, X_v):
            batch_size, seq_length, dim = X_q.size()
            Q = self.split_heads(self.W_q(X_q), batch_size)
            K = self.split_heads(self.W_k(X_k), batch_size)
            V = self.split_heads(self.W_v(X_v), batch_size)
            H_cat, A = self.scaled_dot_product_attention(Q, K, V)
            H_cat = self.group_heads(H_cat, batch_size)
            H = self.W_h(H_cat)
            return H, A

    temp_mha = MultiHeadAttention(d_model=512 // 64, num_heads=2, p=0)
    def print_out(Q, K, V):
        temp_out, temp_attn = temp_mha.scaled_dot_product_attention(Q, K, V)
        print('Attention weights are:', temp_attn.squeeze())
        print('Output is:', temp_out.squeeze())
    test_K = torch.tensor([[10, 0, 0], [0, 10, 0], [0, 0, 10], [0, 0, 10]]).float()[None, None]
    test_V = torch.tensor([[1, 0, 0], [10, 0, 0], [100, 5, 0], [1000, 6, 0]]).float()[None, None]
    test_Q = torch.tensor([[0, 10, 0]]).float()[None, None]
    print_out(test_Q, test_K, test_V)
    test_Q = torch.tensor([[0, 0, 10]]).float()[None, None]
    print_out(test_Q, test_K, test_V)
    test_Q = torch.tensor([[0, 0, 10], [0, 10, 0], [10, 10, 0]]).float()[None, None]
    print_out(test_Q, test_K, test_V)

    class CNN(nn.Module):
        def __init__(self, d_model, hidden_dim, p):
            super().__init__()
            self.k1convL1 = nn.Linear(d_model, hidden_dim)
            self.k1convL2 = nn.Linear(hidden_dim, d_model)
            self.activation = nn.ReLU()
        def forward(self, x):
            x = self.k1convL1(x); x = self.activation(x)
            return self.k1convL2(x)

    class EncoderLayer(nn.Module):
        def __init__(self, d_model, num_heads, conv_hidden_dim, p=0.1):
            super().__init__()
            self.mha = MultiHeadAttention(d_model, num_heads, p)
            self.cnn = CNN(d_model, conv_hidden_dim, p)
            self.layernorm1 = nn.LayerNorm(normalized_shape=d_model, eps=1e-6)
            self.layernorm2 = nn.LayerNorm(normalized_shape=d_model, eps=1e-6)
        def forward(self, x):
            attn_output, _ = self.mha(x, x, x)
            out1 = self.layernorm1(x + attn_output)
            cnn_output = self.cnn(out1)
            return self.layernorm2(out1 + cnn_output)

    def create_sinusoidal_embeddings(nb_p, dim, E):
        theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(nb_p)])
        E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
        E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
        E.detach_()
        E.requires_grad = False
        E = E.to('cpu')

    class Embeddings(nn.Module):
        def __init__(self, d_model, vocab_size, max_position_embeddings, p):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
            self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
            attempt(lambda: create_sinusoidal_embeddings(nb_p=max_position_embeddings, dim=d_model,
                                                         E=self.position_embeddings.weight))
            with torch.no_grad():  # (the notebook's call writes into a parameter: as above)
                create_sinusoidal_embeddings(nb_p=max_position_embeddings, dim=d_model,
                                             E=self.position_embeddings.weight)
            self.LayerNorm = nn.LayerNorm(d_model, eps=1e-12)
        def forward(self, input_ids):
            seq_length = input_ids.size(1)
            position_ids = torch.arange(seq_length, dtype=torch.long, device=input_ids.device)
            position_ids = position_ids.unsqueeze(0).expand_as(input_ids)
            word_embeddings = self.word_embeddings(input_ids)
            position_embeddings = self.position_embeddings(position_ids)
            embeddings = word_embeddings + position_embeddings
            return self.LayerNorm(embeddings)

    class TransformerClassifier(nn.Module):
        def __init__(self, num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size, num_answers):
            super().__init__()
            self.d_model = d_model
            self.num_layers = num_layers
            self.embedding = Embeddings(d_model, input_vocab_size, 16, 0)
            self.enc_layers = nn.ModuleList()
            for _ in range(num_layers):
                self.enc_layers.append(EncoderLayer(d_model, num_heads, conv_hidden_dim, p=0))
            self.dense = nn.Linear(d_model, num_answers)
        def forward(self, x):
            x = self.embedding(x)
            for i in range(self.num_layers):
                x = self.enc_layers[i](x)
            x, _ = torch.max(x, dim=1)
            return self.dense(x)

    model = TransformerClassifier(num_layers=1, d_model=8, num_heads=2, conv_hidden_dim=16,
                                  input_vocab_size=20, num_answers=2)
    pe = model.embedding.position_embeddings.weight
    print(pe.requires_grad, pe.grad_fn, pe[:3, :4], type(pe).__name__)
    print([n for n, p in model.named_parameters() if not p.requires_grad])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    x = torch.randint(0, 20, (3, 6)); y = torch.tensor([0, 1, 1])
    for epoch in range(2):
        optimizer.zero_grad()
        y_pred = model(x)
        loss = F.cross_entropy(y_pred, y)
        loss.backward(); optimizer.step()
        acc = (y_pred.argmax(1) == y).float().mean()
        print(f"Epoch {epoch}: loss {loss.item():.4f} acc {acc}", pe.grad)
    print(model.embedding.word_embeddings.weight.grad[1], model.enc_layers[0].mha.W_q.weight.grad[0, :4])


SNIPPETS = [morvan_torch_numpy, morvan_activation_regression, morvan_save_batch_optimizers,
            morvan_cnn_rnn, morvan_gan_dropout_batchnorm, yunjey_basics, yunjey_regressions,
            yunjey_cnn_resnet, yunjey_rnn_language_model, yunjey_gan_vae,
            atcold_tensor_and_autograd, atcold_space_stretching_spiral, atcold_regression_convnet,
            mit_6s191_lab1, mit_6s191_music_lstm, udacity_intro_parts_1_3,
            udacity_intro_parts_4_6, zero_to_gans_linear_regression,
            zero_to_gans_logistic_regression, d2l_math_geometry_eigen,
            d2l_math_calculus_probability, d2l_math_information_theory, dataloader_walkthrough,
            atcold_autoencoder_vae, atcold_transformer_encoder]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet, default_validation):
    assert first_difference(snippet, lg, torch) is None


# -- one test per defect found, sweeping its class --------------------------------------------


def _outcome(function):
    """A call's result or its exception as torch's tests compare it: type and first line."""
    try:
        result = function()
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        return f"raised {type(error).__name__}: {str(error).splitlines()[0]}"
    return repr(result).replace("leafgrad", "torch")


# MIT 6.S191's gradient descent re-wraps x with torch.tensor([x], requires_grad=True) while x
# requires grad: torch stores each tensor leaf of a list through Python's number protocol for
# the target dtype, so a float or complex target calls __float__/__complex__ (their once-per-
# process warning for a tensor requiring grad while grad mode is on), an integer or bool target
# __index__ (a floating tensor refused, an integer one range-checked). Each case runs in a
# process forked after the import, as tests/test_scalar_conversion_warning.py does.
_LEAF_CHILD = r"""
import json, os, sys, warnings
lib = __import__(sys.argv[1])
for code in json.loads(sys.argv[2]):
    sys.stdout.flush()
    # a case that can warn once per process (a tensor requiring grad) runs in a fork
    forked = "requires_grad" in code or "t" in compile(code, "", "eval").co_names
    pid = os.fork() if forked else 0
    if pid == 0:
        t = lib.tensor(1.5, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = repr(eval(code, {"torch": lib, "t": t})).replace("leafgrad", "torch")
            except Exception as error:
                value = "raised %s: %s" % (type(error).__name__, str(error).splitlines()[0])
        print(json.dumps([code, value, [str(w.message).split(" (Triggered")[0] for w in caught]]))
        sys.stdout.flush()
        if forked:
            os._exit(0)
    if forked:
        os.waitpid(pid, 0)
"""

_LEAVES = ["t", "t.reshape(1, 1)", "torch.tensor(1.5)", "torch.tensor(3)", "torch.tensor(300)",
           "torch.tensor(True)", "torch.tensor(1 + 2j, requires_grad=True)",
           "torch.tensor(2.0, dtype=torch.float64)", "torch.ones(2, requires_grad=True)"]
_TARGETS = ["", ", dtype=torch.float64", ", dtype=torch.float16", ", dtype=torch.bfloat16",
            ", dtype=torch.complex64", ", dtype=torch.int64", ", dtype=torch.int16",
            ", dtype=torch.uint8", ", dtype=torch.bool", ", dtype=torch.uint64"]
_LEAF_CASES = [f"torch.tensor([{leaf}]{target})" for leaf in _LEAVES for target in _TARGETS] + [
    f"{make}([{leaf}])" for make in ("torch.as_tensor", "torch.Tensor", "torch.FloatTensor",
                                     "torch.DoubleTensor", "torch.LongTensor", "t.new_tensor",
                                     "torch.asarray")
    for leaf in ("t", "torch.tensor(1.5)", "torch.tensor(3)")] + [
    "torch.tensor([[1.0, t], [t, 2.0]])", "torch.tensor([1, t])", "torch.tensor([t * 2])", "torch.tensor((t, [t][0]))",
    "torch.tensor([t], requires_grad=True)", "[torch.no_grad().__enter__(), torch.tensor([t])]",
    "[torch.no_grad().__enter__(), torch.tensor([t], dtype=torch.complex64)]",
    "[(mode := torch.inference_mode()).__enter__(), torch.tensor([t])]",
    "[torch.no_grad().__enter__(), complex(t)]", "torch.tensor([1, torch.tensor(1.5)], dtype=torch.int64)",
    "torch.tensor([torch.tensor(-3)], dtype=torch.uint8)", "torch.tensor([t, 'a'])"]


def _leaf_outcomes(lib: str) -> dict:
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(os.path.dirname(__file__), "..", "src"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", _LEAF_CHILD, lib, json.dumps(_LEAF_CASES)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
    return {row[0]: row[1:] for row in rows}


def test_tensor_leaves_of_a_list_convert_as_torch():
    ours, theirs = _leaf_outcomes("leafgrad"), _leaf_outcomes("torch")
    assert len(theirs) == len(_LEAF_CASES)
    differ = [(code, ours.get(code), theirs[code]) for code in _LEAF_CASES
              if ours.get(code) != theirs[code]]
    assert not differ, differ[:5]


# torch's random in-place fills read their parameters as C doubles: a 0-d tensor only when it
# does not require grad (nn.init.normal_(w, t) with a parameter-derived t, a 1-element tensor,
# a str or None are its TypeError, named for the call as given); leafgrad's took float() of
# anything. bernoulli's p is a double too (torch.bernoulli(x, p=t)).
_FILLS = [("uniform_", ("from", "to")), ("normal_", ("mean", "std")), ("exponential_", ("lambd",)),
          ("geometric_", ("p",)), ("log_normal_", ("mean", "std")), ("cauchy_", ("median", "sigma"))]
_DOUBLES = {"grad": lambda m: m.tensor(0.25, requires_grad=True), "0-d": lambda m: m.tensor(0.25),
            "1-element": lambda m: m.ones(1) / 4, "str": lambda m: "0.25", "None": lambda m: None,
            "complex": lambda m: 0.25 + 1j, "np.float32": lambda m: np.float32(0.25),
            "np.complex128": lambda m: np.complex128(0.25 + 1j), "bool": lambda m: True,
            "int": lambda m: 1, "float": lambda m: 0.25}


def _fill_outcomes(m):
    rows = []
    for (name, params), (kind, make), keyword in itertools.product(
            _FILLS, _DOUBLES.items(), (False, True)):
        for index, param in enumerate(params):
            m.manual_seed(0)
            args = [0.125 if p != "to" else 4.0 for p in params][:index]
            value = make(m)
            x = m.zeros(2, 3, dtype=m.float64)[:, ::2]
            if keyword:
                call = lambda: getattr(x, name)(*args, **{param: value})
            else:
                call = lambda: getattr(x, name)(*args, value)
            rows.append((name, param, kind, keyword, _outcome(call)))
    for init in ("normal_", "uniform_", "trunc_normal_", "xavier_uniform_", "kaiming_normal_"):
        for kind, make in _DOUBLES.items():
            m.manual_seed(0)
            w = m.empty(3, 4)
            if init == "xavier_uniform_":
                call = lambda: getattr(m.nn.init, init)(w, gain=make(m))
            elif init == "kaiming_normal_":
                call = lambda: getattr(m.nn.init, init)(w, a=make(m))
            else:
                call = lambda: getattr(m.nn.init, init)(w, make(m))
            rows.append((init, kind, _outcome(call)))
    for kind, make in _DOUBLES.items():
        for form in ("function", "keyword", "method"):
            m.manual_seed(0)
            x = m.full((2, 3), 0.5)
            call = {"function": lambda: m.bernoulli(x, make(m)),
                    "keyword": lambda: m.bernoulli(x, p=make(m)),
                    "method": lambda: x.bernoulli(make(m))}[form]
            rows.append(("bernoulli", kind, form, _outcome(call)))
        for form in ("mean", "std"):
            m.manual_seed(0)
            given = {"mean": 0.0, "std": 1.0, form: make(m)}
            rows.append(("normal", kind, form,
                         _outcome(lambda: m.normal(given["mean"], given["std"], (2,)))))
            rows.append(("normal", kind, form, "keywords", _outcome(
                lambda: m.normal(mean=given["mean"], std=given["std"], size=(2,)))))
    return rows


def _fill_outcomes_and_warnings(m):
    import warnings

    with warnings.catch_warnings(record=True) as caught:  # (NumPy's, for a complex number)
        warnings.simplefilter("always")
        rows = _fill_outcomes(m)
    return rows, [(w.category.__name__, str(w.message)) for w in caught]


def test_random_fill_doubles_as_torch():
    (ours, our_warnings), (theirs, their_warnings) = map(_fill_outcomes_and_warnings, (lg, torch))
    assert our_warnings == their_warnings
    assert len(ours) == len(theirs)
    differ = [(a, b) for a, b in zip(ours, theirs) if a != b]
    assert not differ, differ[:4]


# Udacity's intro to PyTorch shows the NumPy bridge: torch's numpy() hands out a new ndarray
# over the tensor's memory on each call (``b.numpy() is a`` for b = from_numpy(a) is False,
# as is ``t.numpy() is t.numpy()``); leafgrad's handed back its own array.
def _numpy_identities(m):
    rows = []
    for dtype, layout in itertools.product(("float32", "int64", "bool", "float64"),
                                           ("contiguous", "transposed", "strided", "empty", "0-d")):
        a = np.arange(12).reshape(3, 4).astype(dtype)
        a = {"contiguous": a, "transposed": a.T, "strided": a[:, ::2], "empty": a[:0],
             "0-d": np.array(a[1, 1])}[layout]
        for make in ("from_numpy", "as_tensor", "Tensor method"):
            t = m.from_numpy(a) if make == "from_numpy" else m.as_tensor(a)
            if make == "Tensor method":
                t = t[...]
            first, second = t.numpy(), t.numpy()
            second[...] = 1 if second.size else second  # (written through: memory shared)
            rows.append((dtype, layout, make, first is a, first is second,
                         np.shares_memory(first, a) if a.size else None, t.tolist(),
                         first.strides, first.flags.writeable))
    return rows


def test_numpy_returns_a_new_array_over_the_memory_as_torch():
    assert _numpy_identities(lg) == _numpy_identities(torch)


# torch.special's aliases are bindings of their own: torch.special.logit(x, 'a') is
# "special_logit(): argument 'eps' (position 2) must be float, not str" (leafgrad named logit()),
# a keyword-given argument has no position, types are checked before a missing argument is
# reported. (KNOWN, left: the polynomials, xlogy/xlog1py/zeta/gammainc/gammaincc given a
# non-tensor alone report Python's missing argument where torch checks the type first, and
# spherical_bessel_j0 names its argument 'x' in torch.)
_SPECIAL_ALIASES = ["erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "psi", "digamma", "gammaln",
                    "i0", "sinc", "logit", "logsumexp", "softmax", "log_softmax", "multigammaln",
                    "polygamma"]


def _special_outcomes(m):
    x = m.tensor([[0.25, 0.5], [0.75, 0.125]], dtype=m.float64)
    extra = {"logsumexp": (1,), "softmax": (0,), "log_softmax": (1,), "multigammaln": (2,)}
    rows = []
    for name in _SPECIAL_ALIASES:
        f = getattr(m.special, name)
        rest = extra.get(name, ())
        first = (1,) if name == "polygamma" else ()
        calls = {
            "str input": lambda: f(*first, "a", *rest),
            "keyword str input": lambda: f(*first, input="a", **({} if not rest else {"dim" if name != "multigammaln" else "p": rest[0]})),
            "missing": lambda: f(*first),
            "str only": lambda: f("a"),
            "one too many": lambda: f(*first, x, *rest, 1, 2, 3),
            "out=int": lambda: f(*first, x, *rest, out=3),
            "valid": lambda: f(*first, x, *rest),
            "valid out=": lambda: (lambda out: (f(*first, x, *rest, out=out), out)[1])(m.empty(0, dtype=m.float64)),
            "unknown keyword": lambda: f(*first, x, *rest, bogus=1),
        }
        if name == "logit":
            calls.update({"eps str": lambda: f(x, "a"), "eps= list": lambda: f(x, eps=[1]),
                          "eps= grad": lambda: f(x, eps=m.tensor(0.1, requires_grad=True)),
                          "eps 0-d": lambda: f(x, m.tensor(0.1))})
        for form, call in calls.items():
            rows.append((name, form, _outcome(call)))
    return rows


def test_special_aliases_parse_as_torch():
    ours, theirs = _special_outcomes(lg), _special_outcomes(torch)
    differ = [(a, b) for a, b in zip(ours, theirs) if a != b]
    assert len(ours) == len(theirs) and not differ, differ[:4]
