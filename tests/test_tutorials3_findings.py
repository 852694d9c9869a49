"""Code from other people's tutorials, examples and blog posts not covered before
(pytorch/examples' vae, dcgan, siamese_network, time_sequence_prediction, regression, gcn, gat,
mnist_forward_forward, language_translation, reinforce and actor_critic; pytorch/tutorials'
intermediate DQN, spatial transformer, char-rnn generation and seq2seq translation; d2l-en's GAN,
optimisation, learning-rate-scheduler, computer vision (anchors, SSD, FCN, style transfer), NLP
(TextCNN, BERT heads), recommender, vision transformer and attention pooling chapters;
pytorch/tutorials' Learning PyTorch with Examples and torch.func pages (per-sample gradients,
ensembling, jacobians and hessians); nanoGPT's model; fast_neural_style and super_resolution;
normalising flows and policy gradients with torch.distributions; tinygrad's test_ops style op
checks), shrunk to small synthetic data made with torch's own RNG and run with torch and with
leafgrad in one process: every printed line, warning and error must be the same
(tests/_tutorial_harness.py); then one test per defect found, sweeping its class of inputs."""

import itertools
import math
import random
import string
import warnings
from collections import deque, namedtuple

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import first_difference

torch = require_torch()
with warnings.catch_warnings():  # torch's first jacfwd imports a module that warns once per
    warnings.simplefilter("ignore")  # process (torch.jit.script's deprecation): not a snippet's
    torch.func.jacfwd(torch.sin)(torch.zeros(1))


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)

def pt_examples_vae(torch):
    # pytorch/examples vae/main.py
    nn = torch.nn; F = torch.nn.functional
    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(16, 8)
            self.fc21 = nn.Linear(8, 2)
            self.fc22 = nn.Linear(8, 2)
            self.fc3 = nn.Linear(2, 8)
            self.fc4 = nn.Linear(8, 16)
        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)
        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5*logvar)
            eps = torch.randn_like(std)
            return mu + eps*std
        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))
        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 16))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar
    torch.manual_seed(1)
    model = VAE()
    print(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    def loss_function(recon_x, x, mu, logvar):
        BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction='sum')
        KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return BCE + KLD
    data = torch.rand(5, 1, 4, 4)
    model.train()
    train_loss = 0
    for epoch in range(3):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        print('Train Epoch: {} Loss: {:.6f}'.format(epoch, loss.item() / len(data)), loss.grad_fn)
    model.eval()
    with torch.no_grad():
        recon_batch, mu, logvar = model(data)
        comparison = torch.cat([data[:2], recon_batch.view(5, 1, 4, 4)[:2]])
        print(comparison.shape, recon_batch)
        sample = torch.randn(4, 2)
        sample = model.decode(sample)
        print(sample.view(4, 1, 4, 4))
    print(optimizer.state_dict()['state'][0]['exp_avg'])


def pt_examples_dcgan(torch):
    # pytorch/examples dcgan/main.py (tiny sizes)
    nn = torch.nn
    nz, ngf, ndf, nc = 4, 2, 2, 3
    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find('Conv') != -1:
            torch.nn.init.normal_(m.weight, 0.0, 0.02)
        elif classname.find('BatchNorm') != -1:
            torch.nn.init.normal_(m.weight, 1.0, 0.02)
            torch.nn.init.zeros_(m.bias)
    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
                nn.BatchNorm2d(ngf * 4),
                nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ngf * 2),
                nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
                nn.Tanh())
        def forward(self, input):
            return self.main(input)
    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ndf * 2),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
                nn.Sigmoid())
        def forward(self, input):
            output = self.main(input)
            return output.view(-1, 1).squeeze(1)
    torch.manual_seed(3)
    netG = Generator(); netG.apply(weights_init); print(netG)
    netD = Discriminator(); netD.apply(weights_init); print(netD)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(2, nz, 1, 1)
    real_label, fake_label = 1, 0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    real_cpu = torch.rand(2, nc, 16, 16) * 2 - 1
    for i in range(2):
        netD.zero_grad()
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = torch.randn(batch_size, nz, 1, 1)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        print('Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
              % (errD.item(), errG.item(), D_x, D_G_z1, D_G_z2), errD.grad_fn, label.dtype)
    fake = netG(fixed_noise)
    # (transposed convolutions are oneDNN's, whose sums leafgrad does not order as torch: the
    # values to 3 decimals)
    print([round(v, 3) for v in fake.detach()[0, 0].flatten().tolist()],
          [round(v, 3) for v in netG.main[1].running_mean.tolist()],
          netD.main[3].num_batches_tracked, fake.grad_fn)


def pt_examples_siamese(torch):
    # pytorch/examples siamese_network/main.py (small resnet replaced by a conv stack)
    nn = torch.nn; F = torch.nn.functional
    class SiameseNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)))
            self.fc_in_features = 3
            self.fc = nn.Sequential(
                nn.Linear(self.fc_in_features * 2, 4),
                nn.ReLU(inplace=True),
                nn.Linear(4, 1),
            )
            self.sigmoid = nn.Sigmoid()
            self.cnn.apply(self.init_weights)
            self.fc.apply(self.init_weights)
        def init_weights(self, m):
            if isinstance(m, nn.Linear):
                torch.nn.init.xavier_uniform_(m.weight)
                m.bias.data.fill_(0.01)
        def forward_once(self, x):
            output = self.cnn(x)
            output = output.view(output.size()[0], -1)
            return output
        def forward(self, input1, input2):
            output1 = self.forward_once(input1)
            output2 = self.forward_once(input2)
            output = torch.cat((output1, output2), 1)
            output = self.fc(output)
            output = self.sigmoid(output)
            return output
    torch.manual_seed(4)
    model = SiameseNetwork()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    criterion = nn.BCELoss()
    images_1, images_2 = torch.randn(4, 1, 6, 6), torch.randn(4, 1, 6, 6)
    targets = torch.tensor([1, 0, 1, 0]).float()
    for epoch in range(1, 4):
        model.train()
        optimizer.zero_grad()
        outputs = model(images_1, images_2).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        print('Train Epoch: {} \tLoss: {:.6f}'.format(epoch, loss.item()))
        model.eval()
        with torch.no_grad():
            outputs = model(images_1, images_2).squeeze()
            test_loss = criterion(outputs, targets).sum().item()
            pred = torch.where(outputs > 0.5, 1, 0)
            correct = pred.eq(targets.view_as(pred)).sum().item()
        print(test_loss, correct, pred, scheduler.get_last_lr())
        scheduler.step()
    print(scheduler.state_dict())


def pt_examples_time_sequence(torch):
    # pytorch/examples time_sequence_prediction/train.py + generate_sine_wave.py
    nn = torch.nn
    np.random.seed(2)
    T, L, N = 20, 30, 5
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, 6)
            self.lstm2 = nn.LSTMCell(6, 6)
            self.linear = nn.Linear(6, 1)
        def forward(self, input, future=0):
            outputs = []
            h_t = torch.zeros(input.size(0), 6, dtype=torch.double)
            c_t = torch.zeros(input.size(0), 6, dtype=torch.double)
            h_t2 = torch.zeros(input.size(0), 6, dtype=torch.double)
            c_t2 = torch.zeros(input.size(0), 6, dtype=torch.double)
            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for i in range(future):
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            outputs = torch.cat(outputs, dim=1)
            return outputs
    torch.manual_seed(0)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=4)
    for i in range(2):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 5
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            y = pred.detach().numpy()
        print(y[:, -3:])


def pt_examples_regression(torch):
    # pytorch/examples regression/main.py
    POLY_DEGREE = 4
    torch.manual_seed(5)
    W_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5
    def make_features(x):
        x = x.unsqueeze(1)
        return torch.cat([x ** i for i in range(1, POLY_DEGREE+1)], 1)
    def f(x):
        return x.mm(W_target) + b_target.item()
    def poly_desc(W, b):
        result = 'y = '
        for i, w in enumerate(W):
            result += '{:+.2f} x^{} '.format(w, i + 1)
        result += '{:+.2f}'.format(b[0])
        return result
    def get_batch(batch_size=8):
        random = torch.randn(batch_size)
        x = make_features(random)
        y = f(x)
        return x, y
    fc = torch.nn.Linear(W_target.size(0), 1)
    for batch_idx in range(1, 30):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = torch.nn.functional.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        for param in fc.parameters():
            param.data.add_(-0.01 * param.grad)
        if loss < 1e-3:
            break
    print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
    print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
    print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))


def pt_examples_gcn(torch):
    # pytorch/examples gcn/main.py (sparse adjacency replaced by a dense one)
    nn = torch.nn; F = torch.nn.functional
    class GraphConv(nn.Module):
        def __init__(self, input_dim, output_dim, use_bias=False):
            super().__init__()
            self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
            nn.init.xavier_normal_(self.kernel)
            self.bias = None
            if use_bias:
                self.bias = nn.Parameter(torch.Tensor(output_dim))
                nn.init.zeros_(self.bias)
        def forward(self, input_tensor, adj_mat):
            support = torch.mm(input_tensor, self.kernel)
            output = torch.mm(adj_mat, support)
            if self.bias is not None:
                output = output + self.bias
            return output
    class GCN(nn.Module):
        def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
            super().__init__()
            self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
            self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
            self.dropout = nn.Dropout(dropout_p)
        def forward(self, input_tensor, adj_mat):
            x = self.gc1(input_tensor, adj_mat)
            x = F.relu(x)
            x = self.dropout(x)
            x = self.gc2(x, adj_mat)
            return F.log_softmax(x, dim=1)
    torch.manual_seed(6)
    n = 7
    features = torch.rand(n, 5)
    features = features / features.sum(1, keepdim=True)
    adj = (torch.rand(n, n) > 0.6).float()
    adj = adj + adj.T + torch.eye(n)
    adj = (adj > 0).float()
    deg = adj.sum(1)
    d_inv_sqrt = torch.pow(deg, -0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.
    d_mat = torch.diag(d_inv_sqrt)
    adj = d_mat @ adj @ d_mat
    labels = torch.randint(0, 3, (n,))
    idx_train = torch.LongTensor(range(4)); idx_val = torch.LongTensor(range(4, 7))
    gcn = GCN(5, 4, 3)
    optimizer = torch.optim.Adam(gcn.parameters(), lr=0.01, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    for epoch in range(3):
        gcn.train()
        optimizer.zero_grad()
        y_pred = gcn(features, adj)
        train_loss = criterion(y_pred[idx_train], labels[idx_train])
        train_acc = (y_pred[idx_train].argmax(1) == labels[idx_train]).float().mean()
        train_loss.backward()
        optimizer.step()
        gcn.eval()
        with torch.no_grad():
            y_pred = gcn(features, adj)
            val_loss = criterion(y_pred[idx_val], labels[idx_val])
            val_acc = (y_pred[idx_val].argmax(1) == labels[idx_val]).float().mean()
        print(f'Epoch {epoch}: {train_loss.item():.6f} {train_acc.item():.4f} '
              f'{val_loss.item():.6f} {val_acc.item():.4f}')
    print(y_pred, train_loss)


def pt_dqn_update(torch):
    # pytorch/tutorials intermediate_source/reinforcement_q_learning.py: optimize_model
    nn = torch.nn; F = torch.nn.functional
    Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))
    class ReplayMemory(object):
        def __init__(self, capacity):
            self.memory = deque([], maxlen=capacity)
        def push(self, *args):
            self.memory.append(Transition(*args))
        def sample(self, batch_size):
            return random.sample(self.memory, batch_size)
        def __len__(self):
            return len(self.memory)
    class DQN(nn.Module):
        def __init__(self, n_observations, n_actions):
            super(DQN, self).__init__()
            self.layer1 = nn.Linear(n_observations, 16)
            self.layer2 = nn.Linear(16, 16)
            self.layer3 = nn.Linear(16, n_actions)
        def forward(self, x):
            x = F.relu(self.layer1(x))
            x = F.relu(self.layer2(x))
            return self.layer3(x)
    BATCH_SIZE, GAMMA, EPS_START, EPS_END = 8, 0.99, 0.9, 0.05
    EPS_DECAY, TAU, LR = 1000, 0.005, 1e-4
    torch.manual_seed(9); random.seed(9)
    n_actions, n_observations = 2, 4
    policy_net = DQN(n_observations, n_actions)
    target_net = DQN(n_observations, n_actions)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(100)
    steps_done = 0
    def select_action(state):
        nonlocal steps_done
        sample = random.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with torch.no_grad():
                return policy_net(state).max(1).indices.view(1, 1)
        else:
            return torch.tensor([[random.randrange(n_actions)]], dtype=torch.long)
    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return
        transitions = memory.sample(BATCH_SIZE)
        batch = Transition(*zip(*transitions))
        non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)),
                                      dtype=torch.bool)
        non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)
        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE)
        with torch.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        return loss
    state = torch.randn(4).unsqueeze(0)
    for t in range(14):
        action = select_action(state)
        observation = torch.randn(4)
        reward = torch.tensor([1.0])
        terminated = t % 5 == 4
        next_state = None if terminated else observation.clone().unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state if next_state is not None else torch.randn(4).unsqueeze(0)
        loss = optimize_model()
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = (policy_net_state_dict[key]*TAU
                                          + target_net_state_dict[key]*(1-TAU))
        target_net.load_state_dict(target_net_state_dict)
        print(t, action, loss)
    print(target_net.layer3.bias, optimizer.state_dict()['state'][5])


def pt_spatial_transformer(torch):
    # pytorch/tutorials intermediate_source/spatial_transformer_tutorial.py (small sizes)
    nn = torch.nn; F = torch.nn.functional
    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.localization = nn.Sequential(
                nn.Conv2d(1, 2, kernel_size=3),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
            )
            self.fc_loc = nn.Sequential(
                nn.Linear(2 * 3 * 3, 8),
                nn.ReLU(True),
                nn.Linear(8, 3 * 2)
            )
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 2 * 3 * 3)
            theta = self.fc_loc(xs)
            theta = theta.view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size())
            x = F.grid_sample(x, grid)
            return x
        def forward(self, x):
            return self.stn(x)
    torch.manual_seed(10)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    data = torch.rand(3, 1, 8, 8)
    target = torch.rand(3, 1, 8, 8)
    for i in range(3):
        optimizer.zero_grad()
        output = model(data)
        loss = F.mse_loss(output, target)
        loss.backward()
        optimizer.step()
        print(loss, output.grad_fn, model.fc_loc[2].bias)
    theta = torch.tensor([[[0.9, 0.2, 0.1], [-0.1, 1.1, -0.2]]], requires_grad=True)
    for align in (False, True):
        grid = F.affine_grid(theta, (1, 1, 4, 5), align_corners=align)
        print(grid, grid.grad_fn)
        for mode in ('bilinear', 'nearest', 'bicubic'):
            for pad in ('zeros', 'border', 'reflection'):
                img = data[:1].clone().requires_grad_()
                out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=align)
                out.sum().backward()
                print(mode, pad, out, img.grad.sum())
        print(theta.grad)


def reinforce_distributions(torch):
    # pytorch/examples reinforcement_learning/reinforce.py (synthetic environment)
    nn = torch.nn; F = torch.nn.functional
    Categorical = torch.distributions.Categorical
    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(4, 16)
            self.dropout = nn.Dropout(p=0.6)
            self.affine2 = nn.Linear(16, 2)
            self.saved_log_probs = []
            self.rewards = []
        def forward(self, x):
            x = self.affine1(x)
            x = self.dropout(x)
            x = F.relu(x)
            action_scores = self.affine2(x)
            return F.softmax(action_scores, dim=1)
    torch.manual_seed(11)
    policy = Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    eps = np.finfo(np.float32).eps.item()
    gamma = 0.99
    def select_action(state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        probs = policy(state)
        m = Categorical(probs)
        action = m.sample()
        policy.saved_log_probs.append(m.log_prob(action))
        return action.item()
    def finish_episode():
        R = 0
        policy_loss = []
        returns = deque()
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.appendleft(R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        return policy_loss
    rng = np.random.RandomState(0)
    for episode in range(3):
        state = rng.randn(4)
        actions = []
        for t in range(6):
            action = select_action(state)
            actions.append(action)
            state = rng.randn(4) + action
            policy.rewards.append(float(action) + 0.5)
        print(episode, actions, finish_episode())
    probs = torch.tensor([[0.2, 0.8], [0.5, 0.5]])
    m = Categorical(probs)
    print(m, m.entropy(), m.probs, m.logits, m.sample((3,)), m.log_prob(torch.tensor([0, 1])))
    n = torch.distributions.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
    a = n.rsample()
    print(n, a, n.log_prob(a), n.entropy(), n.mean, n.stddev)
    mu = torch.zeros(2, requires_grad=True)
    dist = torch.distributions.Normal(mu, torch.ones(2))
    s = dist.rsample()
    lp = dist.log_prob(s.detach()).sum()
    lp.backward()
    print(s, lp, mu.grad, lp.grad_fn)


def lr_schedulers(torch):
    # d2l-en chapter_optimization/lr-scheduler.md + the torch.optim.lr_scheduler docs
    nn = torch.nn
    torch.manual_seed(12)
    net = nn.Linear(3, 1)
    def make(opt_kind='sgd'):
        return torch.optim.SGD(net.parameters(), lr=0.3, momentum=0.9)
    sched_makers = [
        lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
        lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.5),
        lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
        lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
        lambda o: torch.optim.lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch),
        lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=8),
        lambda o: torch.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2),
        lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
        lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=3),
        lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0),
        lambda o: torch.optim.lr_scheduler.SequentialLR(o, schedulers=[
            torch.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2),
            torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[2]),
    ]
    X = torch.randn(5, 3); y = torch.randn(5, 1)
    for make_sched in sched_makers:
        opt = make()
        sched = make_sched(opt)
        lrs = []
        for epoch in range(7):
            opt.zero_grad()
            loss = ((net(X) - y) ** 2).mean()
            loss.backward()
            opt.step()
            lrs.append(opt.param_groups[0]['lr'])
            sched.step()
        print(type(sched).__name__, lrs, sched.get_last_lr())
    opt = make()
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, 'min', patience=1, factor=0.5)
    for v in [1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7]:
        plateau.step(v)
        print(opt.param_groups[0]['lr'], plateau.num_bad_epochs, plateau.best)
    print(net.weight)
    class SquareRootScheduler:
        def __init__(self, lr=0.1):
            self.lr = lr
        def __call__(self, num_update):
            return self.lr * pow(num_update + 1.0, -0.5)
    scheduler = SquareRootScheduler(lr=0.1)
    print([scheduler(t) for t in range(5)])


def pt_char_rnn_generation(torch):
    # pytorch/tutorials intermediate_source/char_rnn_generation_tutorial.py
    nn = torch.nn
    all_letters = string.ascii_letters + " .,;'-"
    n_letters = len(all_letters) + 1
    all_categories = ['English', 'French', 'Greek']
    n_categories = len(all_categories)
    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super(RNN, self).__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
            self.o2o = nn.Linear(hidden_size + output_size, output_size)
            self.dropout = nn.Dropout(0.1)
            self.softmax = nn.LogSoftmax(dim=1)
        def forward(self, category, input, hidden):
            input_combined = torch.cat((category, input, hidden), 1)
            hidden = self.i2h(input_combined)
            output = self.i2o(input_combined)
            output_combined = torch.cat((hidden, output), 1)
            output = self.o2o(output_combined)
            output = self.dropout(output)
            output = self.softmax(output)
            return output, hidden
        def initHidden(self):
            return torch.zeros(1, self.hidden_size)
    def categoryTensor(category):
        li = all_categories.index(category)
        tensor = torch.zeros(1, n_categories)
        tensor[0][li] = 1
        return tensor
    def inputTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li in range(len(line)):
            letter = line[li]
            tensor[li][0][all_letters.find(letter)] = 1
        return tensor
    def targetTensor(line):
        letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
        letter_indexes.append(n_letters - 1)
        return torch.LongTensor(letter_indexes)
    torch.manual_seed(13)
    criterion = nn.NLLLoss()
    learning_rate = 0.0005
    rnn = RNN(n_letters, 16, n_letters)
    def train(category_tensor, input_line_tensor, target_line_tensor):
        target_line_tensor.unsqueeze_(-1)
        hidden = rnn.initHidden()
        rnn.zero_grad()
        loss = torch.Tensor([0])
        for i in range(input_line_tensor.size(0)):
            output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
            l = criterion(output, target_line_tensor[i])
            loss += l
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item() / input_line_tensor.size(0)
    for name, cat in [('Smith', 'English'), ('Dupont', 'French'), ('Pappas', 'Greek')]:
        output, loss = train(categoryTensor(cat), inputTensor(name), targetTensor(name))
        print(output.shape, '%.6f' % loss, output.grad_fn)
    max_length = 6
    def sample(category, start_letter='A'):
        with torch.no_grad():
            category_tensor = categoryTensor(category)
            input = inputTensor(start_letter)
            hidden = rnn.initHidden()
            output_name = start_letter
            for i in range(max_length):
                output, hidden = rnn(category_tensor, input[0], hidden)
                topv, topi = output.topk(1)
                topi = topi[0][0]
                if topi == n_letters - 1:
                    break
                else:
                    letter = all_letters[topi]
                    output_name += letter
                input = inputTensor(letter)
            return output_name, topv
    rnn.eval()
    print(sample('English', 'S'), sample('French', 'D'))


def pt_seq2seq_translation(torch):
    # pytorch/tutorials intermediate_source/seq2seq_translation_tutorial.py (model pieces)
    nn = torch.nn; F = torch.nn.functional
    SOS_token, EOS_token, MAX_LENGTH = 0, 1, 5
    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.1):
            super(EncoderRNN, self).__init__()
            self.hidden_size = hidden_size
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)
        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            output, hidden = self.gru(embedded)
            return output, hidden
    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super(BahdanauAttention, self).__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)
        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights
    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.1):
            super(AttnDecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)
        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs = []
            attentions = []
            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)
                if target_tensor is not None:
                    decoder_input = target_tensor[:, i].unsqueeze(1)
                else:
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            attentions = torch.cat(attentions, dim=1)
            return decoder_outputs, decoder_hidden, attentions
        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))
            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)
            output, hidden = self.gru(input_gru, hidden)
            output = self.out(output)
            return output, hidden, attn_weights
    torch.manual_seed(14)
    encoder = EncoderRNN(10, 8)
    decoder = AttnDecoderRNN(8, 9)
    encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.001)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.001)
    criterion = nn.NLLLoss()
    input_tensor = torch.randint(2, 10, (3, MAX_LENGTH))
    target_tensor = torch.randint(2, 9, (3, MAX_LENGTH))
    for epoch in range(2):
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        print(loss, encoder_outputs.grad_fn, decoder_outputs.grad_fn)
    encoder.eval(); decoder.eval()
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(input_tensor[:1])
        decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)
        _, topi = decoder_outputs.topk(1)
        decoded_ids = topi.squeeze()
        print(decoded_ids, decoder_attn, decoder_hidden)


def d2l_gan(torch):
    # d2l-en chapter_generative-adversarial-networks/gan.md
    nn = torch.nn
    torch.manual_seed(15)
    X = torch.normal(0.0, 1, (20, 2))
    A = torch.tensor([[1, 2], [-0.1, 0.5]])
    b = torch.tensor([1, 2])
    data = torch.matmul(X, A) + b
    print(data[:3], f'The covariance matrix is\n{torch.matmul(A.T, A)}')
    net_G = nn.Sequential(nn.Linear(2, 2))
    net_D = nn.Sequential(nn.Linear(2, 5), nn.Tanh(), nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 1))
    def update_D(X, Z, net_D, net_G, loss, trainer_D):
        batch_size = X.shape[0]
        ones = torch.ones((batch_size,), device=X.device)
        zeros = torch.zeros((batch_size,), device=X.device)
        trainer_D.zero_grad()
        real_Y = net_D(X)
        fake_X = net_G(Z)
        fake_Y = net_D(fake_X.detach())
        loss_D = (loss(real_Y, ones.reshape(real_Y.shape))
                  + loss(fake_Y, zeros.reshape(fake_Y.shape))) / 2
        loss_D.backward()
        trainer_D.step()
        return loss_D
    def update_G(Z, net_D, net_G, loss, trainer_G):
        batch_size = Z.shape[0]
        ones = torch.ones((batch_size,), device=Z.device)
        trainer_G.zero_grad()
        fake_X = net_G(Z)
        fake_Y = net_D(fake_X)
        loss_G = loss(fake_Y, ones.reshape(fake_Y.shape))
        loss_G.backward()
        trainer_G.step()
        return loss_G
    loss = nn.BCEWithLogitsLoss(reduction='sum')
    for w in net_D.parameters():
        nn.init.normal_(w, 0, 0.02)
    for w in net_G.parameters():
        nn.init.normal_(w, 0, 0.02)
    trainer_D = torch.optim.Adam(net_D.parameters(), lr=0.05)
    trainer_G = torch.optim.Adam(net_G.parameters(), lr=0.005)
    for epoch in range(3):
        for i in range(0, 20, 5):
            X = data[i:i + 5]
            Z = torch.normal(0, 1, size=(5, 2))
            lD = update_D(X, Z, net_D, net_G, loss, trainer_D)
            lG = update_G(Z, net_D, net_G, loss, trainer_G)
        print(epoch, lD, lG)
    Z = torch.normal(0, 1, size=(4, 2))
    print(net_G(Z).detach().numpy())


def realnvp_flow(torch):
    # normalising-flow blog code (RealNVP affine coupling on 2-d data, torch.distributions)
    nn = torch.nn
    D = torch.distributions
    class Coupling(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer('mask', mask)
            self.s = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(), nn.Linear(8, 2), nn.Tanh())
            self.t = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(), nn.Linear(8, 2))
        def forward(self, x):
            x_m = x * self.mask
            s = self.s(x_m) * (1 - self.mask)
            t = self.t(x_m) * (1 - self.mask)
            y = x_m + (1 - self.mask) * (x * torch.exp(s) + t)
            return y, s.sum(dim=1)
        def inverse(self, y):
            y_m = y * self.mask
            s = self.s(y_m) * (1 - self.mask)
            t = self.t(y_m) * (1 - self.mask)
            return y_m + (1 - self.mask) * ((y - t) * torch.exp(-s))
    class Flow(nn.Module):
        def __init__(self):
            super().__init__()
            masks = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])] * 2
            self.layers = nn.ModuleList([Coupling(m) for m in masks])
            self.prior = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
        def forward(self, x):
            log_det = torch.zeros(x.shape[0])
            for layer in self.layers:
                x, ld = layer(x)
                log_det = log_det + ld
            return x, log_det
        def log_prob(self, x):
            z, log_det = self(x)
            return self.prior.log_prob(z) + log_det
        def sample(self, n):
            z = self.prior.sample((n,))
            for layer in reversed(self.layers):
                z = layer.inverse(z)
            return z
    torch.manual_seed(16)
    flow = Flow()
    opt = torch.optim.Adam(flow.parameters(), lr=1e-2)
    x = torch.randn(32, 2) @ torch.tensor([[1.0, 0.5], [0.0, 0.7]]) + torch.tensor([0.5, -1.0])
    for step in range(4):
        loss = -flow.log_prob(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, loss)
    print(flow.sample(3), flow.prior, flow.prior.log_prob(torch.zeros(2)))
    base = D.Normal(torch.zeros(2), torch.ones(2))
    ind = D.Independent(base, 1)
    print(ind, ind.log_prob(x[:3]), ind.batch_shape, ind.event_shape)
    tr = D.TransformedDistribution(base, [D.transforms.AffineTransform(1.0, 2.0),
                                          D.transforms.ExpTransform()])
    s = tr.sample((2,))
    print(s, tr.log_prob(s))
    L = torch.linalg.cholesky(torch.tensor([[2.0, 0.3], [0.3, 1.0]]))
    mvn = D.MultivariateNormal(torch.zeros(2), scale_tril=L)
    print(mvn.log_prob(x[:3]), mvn.entropy(), mvn.covariance_matrix, mvn.rsample((2,)))


def policy_gradient_gaussian(torch):
    # REINFORCE with a Gaussian policy (continuous actions) blog code
    nn = torch.nn
    D = torch.distributions
    class GaussianPolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
            self.log_std = nn.Parameter(torch.zeros(2))
        def forward(self, s):
            return D.Normal(self.mu(s), self.log_std.exp())
    torch.manual_seed(17)
    pi = GaussianPolicy()
    opt = torch.optim.RMSprop(pi.parameters(), lr=1e-2)
    for it in range(3):
        states = torch.randn(8, 3)
        dist = pi(states)
        actions = dist.sample()
        rewards = -(actions - states[:, :2]).pow(2).sum(-1)
        adv = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
        logp = dist.log_prob(actions).sum(-1)
        loss = -(logp * adv).mean() - 0.01 * dist.entropy().sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(pi.parameters(), 0.5)
        opt.step()
        print(it, loss, pi.log_std)
    beta = D.Beta(torch.tensor([2.0]), torch.tensor([3.0]))
    cat = D.Categorical(logits=torch.tensor([[1.0, 2.0, 0.5]]))
    bern = D.Bernoulli(probs=torch.tensor([0.3, 0.9]))
    print(beta.mean, beta.variance, cat.probs, cat.entropy(), bern.sample((2,)), bern.entropy())
    kl = D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(torch.tensor(1.0), torch.tensor(2.0)))
    print(kl, D.kl_divergence(cat, D.Categorical(probs=torch.tensor([[0.2, 0.5, 0.3]]))))


def d2l_optim_torch(torch):
    # d2l-en chapter_optimization: the concise versions with torch.optim, and parameter groups
    nn = torch.nn
    torch.manual_seed(18)
    X = torch.randn(40, 5); y = X @ torch.arange(1.0, 6.0) + 0.1 * torch.randn(40)
    def train(trainer_fn, hyperparams, num_epochs=2):
        net = nn.Sequential(nn.Linear(5, 1))
        def init_weights(module):
            if type(module) == nn.Linear:
                torch.nn.init.normal_(module.weight, std=0.01)
        net.apply(init_weights)
        optimizer = trainer_fn(net.parameters(), **hyperparams)
        loss = nn.MSELoss(reduction='none')
        for _ in range(num_epochs):
            for i in range(0, 40, 10):
                optimizer.zero_grad()
                out = net(X[i:i + 10])
                l = loss(out, y[i:i + 10].reshape(out.shape))
                l.mean().backward()
                optimizer.step()
        return net[0].weight.data, loss(net(X), y.reshape(-1, 1)).mean()
    print(train(torch.optim.SGD, {'lr': 0.05}))
    print(train(torch.optim.SGD, {'lr': 0.005, 'momentum': 0.9}))
    print(train(torch.optim.SGD, {'lr': 0.005, 'momentum': 0.9, 'nesterov': True,
                                  'weight_decay': 1e-3}))
    print(train(torch.optim.Adagrad, {'lr': 0.1}))
    print(train(torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9}))
    print(train(torch.optim.Adadelta, {'rho': 0.9}))
    print(train(torch.optim.Adam, {'lr': 0.01}))
    print(train(torch.optim.AdamW, {'lr': 0.01, 'weight_decay': 0.1}))
    print(train(torch.optim.NAdam, {'lr': 0.01}))
    print(train(torch.optim.RAdam, {'lr': 0.01}))
    print(train(torch.optim.Adamax, {'lr': 0.01}))
    print(train(torch.optim.ASGD, {'lr': 0.01}))
    print(train(torch.optim.Rprop, {'lr': 0.01}))
    net = nn.Sequential(nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 1))
    params_1x = [param for name, param in net.named_parameters()
                 if name not in ["2.weight", "2.bias"]]
    trainer = torch.optim.SGD([{'params': params_1x}, {'params': net[2].parameters(), 'lr': 0.1}],
                              lr=0.01, weight_decay=0.001)
    l = ((net(X) - y.reshape(-1, 1)) ** 2).mean()
    l.backward()
    trainer.step()
    print(trainer, net[2].weight, [g['lr'] for g in trainer.param_groups])


def tinygrad_test_ops_style(torch):
    # tinygrad test/test_ops.py helper_test_op style: forward and backward of many ops
    F = torch.nn.functional
    torch.manual_seed(19)
    cases = [
        (lambda x: x.relu(), [(3, 4)]),
        (lambda x: x.sigmoid(), [(3, 4)]),
        (lambda x: x.tanh(), [(3, 4)]),
        (lambda x: torch.nn.functional.gelu(x), [(3, 4)]),
        (lambda x: torch.nn.functional.gelu(x, approximate='tanh'), [(3, 4)]),
        (lambda x: torch.nn.functional.softplus(x), [(3, 4)]),
        (lambda x: torch.nn.functional.mish(x), [(3, 4)]),
        (lambda x: torch.nn.functional.silu(x), [(3, 4)]),
        (lambda x: torch.nn.functional.elu(x), [(3, 4)]),
        (lambda x: torch.nn.functional.selu(x), [(3, 4)]),
        (lambda x: torch.nn.functional.hardswish(x), [(3, 4)]),
        (lambda x: torch.nn.functional.hardsigmoid(x), [(3, 4)]),
        (lambda x: torch.nn.functional.leaky_relu(x, 0.01), [(3, 4)]),
        (lambda x: torch.nn.functional.celu(x), [(3, 4)]),
        (lambda x: x.abs().sqrt(), [(3, 4)]),
        (lambda x: x.abs().log(), [(3, 4)]),
        (lambda x: x.exp2(), [(3, 4)]),
        (lambda x: x.sin() + x.cos(), [(3, 4)]),
        (lambda x: x.abs().rsqrt(), [(3, 4)]),
        (lambda x, y: x.maximum(y), [(3, 4), (3, 4)]),
        (lambda x, y: torch.where(x > 0, x, y), [(3, 4), (3, 4)]),
        (lambda x: x.max(), [(3, 4)]),
        (lambda x: x.max(1)[0], [(3, 4)]),
        (lambda x: x.min(0, keepdim=True)[0], [(3, 4)]),
        (lambda x: x.logsumexp(1), [(3, 4)]),
        (lambda x: x.cumsum(1), [(3, 4)]),
        (lambda x: x.cumprod(0), [(3, 4)]),
        (lambda x: x.std(1), [(3, 4)]),
        (lambda x: x.var(0, correction=0), [(3, 4)]),
        (lambda x, y: x @ y, [(3, 4), (4, 5)]),
        (lambda x, y: torch.einsum('ij,jk->ik', x, y), [(3, 4), (4, 5)]),
        (lambda x: torch.nn.functional.pad(x, (1, 2)), [(3, 4)]),
        (lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1), mode='reflect'), [(1, 3, 4)]),
        (lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1), mode='replicate'), [(1, 3, 4)]),
        (lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1), mode='circular'), [(1, 3, 4)]),
        (lambda x: x.flip(1).roll(1, 0), [(3, 4)]),
        (lambda x: x.unfold(1, 2, 1), [(3, 4)]),
        (lambda x: torch.nn.functional.avg_pool2d(x, 2), [(1, 1, 4, 4)]),
        (lambda x: torch.nn.functional.max_pool2d(x, 2, 1, 1), [(1, 1, 4, 4)]),
        (lambda x: F.interpolate(x, scale_factor=2, mode='bilinear'), [(1, 1, 3, 3)]),
        (lambda x: F.interpolate(x, size=(5, 5), mode='bicubic', align_corners=True),
         [(1, 1, 3, 3)]),
        (lambda x: F.interpolate(x, scale_factor=2, mode='nearest'), [(1, 1, 3, 3)]),
        (lambda x: torch.nn.functional.layer_norm(x, (4,)), [(3, 4)]),
        (lambda x: torch.nn.functional.normalize(x, dim=1), [(3, 4)]),
        (lambda x, y: torch.nn.functional.cross_entropy(x, y.softmax(1)), [(3, 4), (3, 4)]),
        (lambda x: F.cross_entropy(x, torch.tensor([0, 3, 1]), label_smoothing=0.1), [(3, 4)]),
        (lambda x, y: F.binary_cross_entropy_with_logits(x, y.sigmoid(),
                                                         pos_weight=torch.ones(4) * 2),
         [(3, 4), (3, 4)]),
        (lambda x: F.scaled_dot_product_attention(x, x, x, is_causal=True), [(1, 2, 3, 4)]),
        (lambda x: x.triu(1) + x.tril(-1), [(3, 4)]),
        (lambda x: x[[0, 2], 1:3], [(3, 4)]),
        (lambda x: x.masked_fill(x > 0.5, 0.0), [(3, 4)]),
        (lambda x: torch.stack([x, x * 2], 1).sum(1), [(3, 4)]),
        (lambda x: x.clamp(-0.5, 0.5), [(3, 4)]),
        (lambda x: torch.nn.functional.one_hot(torch.tensor([0, 2, 1]), 4).float() * x, [(3, 4)]),
        (lambda x: x.square().mean(), [(3, 4)]),
        (lambda x: torch.nn.functional.conv1d(x, torch.ones(2, 3, 2)), [(1, 3, 5)]),
    ]
    for i, (fn, shapes) in enumerate(cases):
        xs = [torch.randn(*s, requires_grad=True) for s in shapes]
        out = fn(*xs)
        out.sum().backward()
        print(i, out, [x.grad for x in xs])


def d2l_anchors(torch):
    # d2l-en chapter_computer-vision/bounding-box.md, anchor.md (multibox_prior, box_iou,
    # assign_anchor_to_bbox, offset_boxes, multibox_target, nms, multibox_detection)
    def box_corner_to_center(boxes):
        x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        cx = (x1 + x2) / 2
        cy = (y1 + y2) / 2
        w = x2 - x1
        h = y2 - y1
        return torch.stack((cx, cy, w, h), axis=-1)
    def box_center_to_corner(boxes):
        cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        x1 = cx - 0.5 * w
        y1 = cy - 0.5 * h
        x2 = cx + 0.5 * w
        y2 = cy + 0.5 * h
        return torch.stack((x1, y1, x2, y2), axis=-1)
    dog_bbox, cat_bbox = [60.0, 45.0, 378.0, 516.0], [400.0, 112.0, 655.0, 493.0]
    boxes = torch.tensor((dog_bbox, cat_bbox))
    print(box_center_to_corner(box_corner_to_center(boxes)) == boxes)
    def multibox_prior(data, sizes, ratios):
        in_height, in_width = data.shape[-2:]
        device, num_sizes, num_ratios = data.device, len(sizes), len(ratios)
        boxes_per_pixel = (num_sizes + num_ratios - 1)
        size_tensor = torch.tensor(sizes, device=device)
        ratio_tensor = torch.tensor(ratios, device=device)
        offset_h, offset_w = 0.5, 0.5
        steps_h = 1.0 / in_height
        steps_w = 1.0 / in_width
        center_h = (torch.arange(in_height, device=device) + offset_h) * steps_h
        center_w = (torch.arange(in_width, device=device) + offset_w) * steps_w
        shift_y, shift_x = torch.meshgrid(center_h, center_w, indexing='ij')
        shift_y, shift_x = shift_y.reshape(-1), shift_x.reshape(-1)
        w = torch.cat((size_tensor * torch.sqrt(ratio_tensor[0]),
                       sizes[0] * torch.sqrt(ratio_tensor[1:]))) * in_height / in_width
        h = torch.cat((size_tensor / torch.sqrt(ratio_tensor[0]),
                       sizes[0] / torch.sqrt(ratio_tensor[1:])))
        anchor_manipulations = torch.stack((-w, -h, w, h)).T.repeat(in_height * in_width, 1) / 2
        out_grid = torch.stack([shift_x, shift_y, shift_x, shift_y],
                               dim=1).repeat_interleave(boxes_per_pixel, dim=0)
        output = out_grid + anchor_manipulations
        return output.unsqueeze(0)
    img = torch.rand(1, 3, 4, 6)
    Y = multibox_prior(img, sizes=[0.75, 0.5, 0.25], ratios=[1, 2, 0.5])
    print(Y.shape)
    boxes = Y.reshape(4, 6, 5, 4)
    print(boxes[1, 2, 0, :])
    def box_iou(boxes1, boxes2):
        box_area = lambda boxes: ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
        areas1 = box_area(boxes1)
        areas2 = box_area(boxes2)
        inter_upperlefts = torch.max(boxes1[:, None, :2], boxes2[:, :2])
        inter_lowerrights = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
        inters = (inter_lowerrights - inter_upperlefts).clamp(min=0)
        inter_areas = inters[:, :, 0] * inters[:, :, 1]
        union_areas = areas1[:, None] + areas2 - inter_areas
        return inter_areas / union_areas
    def assign_anchor_to_bbox(ground_truth, anchors, device, iou_threshold=0.5):
        num_anchors, num_gt_boxes = anchors.shape[0], ground_truth.shape[0]
        jaccard = box_iou(anchors, ground_truth)
        anchors_bbox_map = torch.full((num_anchors,), -1, dtype=torch.long, device=device)
        max_ious, indices = torch.max(jaccard, dim=1)
        anc_i = torch.nonzero(max_ious >= iou_threshold).reshape(-1)
        box_j = indices[max_ious >= iou_threshold]
        anchors_bbox_map[anc_i] = box_j
        col_discard = torch.full((num_anchors,), -1)
        row_discard = torch.full((num_gt_boxes,), -1)
        for _ in range(num_gt_boxes):
            max_idx = torch.argmax(jaccard)
            box_idx = (max_idx % num_gt_boxes).long()
            anc_idx = (max_idx / num_gt_boxes).long()
            anchors_bbox_map[anc_idx] = box_idx
            jaccard[:, box_idx] = col_discard
            jaccard[anc_idx, :] = row_discard
        return anchors_bbox_map
    def offset_boxes(anchors, assigned_bb, eps=1e-6):
        c_anc = box_corner_to_center(anchors)
        c_assigned_bb = box_corner_to_center(assigned_bb)
        offset_xy = 10 * (c_assigned_bb[:, :2] - c_anc[:, :2]) / c_anc[:, 2:]
        offset_wh = 5 * torch.log(eps + c_assigned_bb[:, 2:] / c_anc[:, 2:])
        offset = torch.cat([offset_xy, offset_wh], axis=1)
        return offset
    def multibox_target(anchors, labels):
        batch_size, anchors = labels.shape[0], anchors.squeeze(0)
        batch_offset, batch_mask, batch_class_labels = [], [], []
        device, num_anchors = anchors.device, anchors.shape[0]
        for i in range(batch_size):
            label = labels[i, :, :]
            anchors_bbox_map = assign_anchor_to_bbox(label[:, 1:], anchors, device)
            bbox_mask = ((anchors_bbox_map >= 0).float().unsqueeze(-1)).repeat(1, 4)
            class_labels = torch.zeros(num_anchors, dtype=torch.long, device=device)
            assigned_bb = torch.zeros((num_anchors, 4), dtype=torch.float32, device=device)
            indices_true = torch.nonzero(anchors_bbox_map >= 0)
            bb_idx = anchors_bbox_map[indices_true]
            class_labels[indices_true] = label[bb_idx, 0].long() + 1
            assigned_bb[indices_true] = label[bb_idx, 1:]
            offset = offset_boxes(anchors, assigned_bb) * bbox_mask
            batch_offset.append(offset.reshape(-1))
            batch_mask.append(bbox_mask.reshape(-1))
            batch_class_labels.append(class_labels)
        bbox_offset = torch.stack(batch_offset)
        bbox_mask = torch.stack(batch_mask)
        class_labels = torch.stack(batch_class_labels)
        return (bbox_offset, bbox_mask, class_labels)
    ground_truth = torch.tensor([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    anchors = torch.tensor([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                            [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]])
    labels = multibox_target(anchors.unsqueeze(dim=0), ground_truth.unsqueeze(dim=0))
    print(labels)
    def offset_inverse(anchors, offset_preds):
        anc = box_corner_to_center(anchors)
        pred_bbox_xy = (offset_preds[:, :2] * anc[:, 2:] / 10) + anc[:, :2]
        pred_bbox_wh = torch.exp(offset_preds[:, 2:] / 5) * anc[:, 2:]
        pred_bbox = torch.cat((pred_bbox_xy, pred_bbox_wh), axis=1)
        predicted_bbox = box_center_to_corner(pred_bbox)
        return predicted_bbox
    def nms(boxes, scores, iou_threshold):
        B = torch.argsort(scores, dim=-1, descending=True)
        keep = []
        while B.numel() > 0:
            i = B[0]
            keep.append(i)
            if B.numel() == 1: break
            iou = box_iou(boxes[i, :].reshape(-1, 4), boxes[B[1:], :].reshape(-1, 4)).reshape(-1)
            inds = torch.nonzero(iou <= iou_threshold).reshape(-1)
            B = B[inds + 1]
        return torch.tensor(keep, device=boxes.device)
    def multibox_detection(cls_probs, offset_preds, anchors, nms_threshold=0.5,
                           pos_threshold=0.009999999):
        device, batch_size = cls_probs.device, cls_probs.shape[0]
        anchors = anchors.squeeze(0)
        num_classes, num_anchors = cls_probs.shape[1], cls_probs.shape[2]
        out = []
        for i in range(batch_size):
            cls_prob, offset_pred = cls_probs[i], offset_preds[i].reshape(-1, 4)
            conf, class_id = torch.max(cls_prob[1:], 0)
            predicted_bb = offset_inverse(anchors, offset_pred)
            keep = nms(predicted_bb, conf, nms_threshold)
            all_idx = torch.arange(num_anchors, dtype=torch.long, device=device)
            combined = torch.cat((keep, all_idx))
            uniques, counts = combined.unique(return_counts=True)
            non_keep = uniques[counts == 1]
            all_id_sorted = torch.cat((keep, non_keep))
            class_id[non_keep] = -1
            class_id = class_id[all_id_sorted]
            conf, predicted_bb = conf[all_id_sorted], predicted_bb[all_id_sorted]
            below_min_idx = (conf < pos_threshold)
            class_id[below_min_idx] = -1
            conf[below_min_idx] = 1 - conf[below_min_idx]
            pred_info = torch.cat((class_id.unsqueeze(1), conf.unsqueeze(1), predicted_bb), dim=1)
            out.append(pred_info)
        return torch.stack(out)
    anchors = torch.tensor([[0.1, 0.08, 0.52, 0.92], [0.08, 0.2, 0.56, 0.95],
                            [0.15, 0.3, 0.62, 0.91], [0.55, 0.2, 0.9, 0.88]])
    offset_preds = torch.tensor([0] * anchors.numel())
    cls_probs = torch.tensor([[0] * 4, [0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.9]])
    output = multibox_detection(cls_probs.unsqueeze(dim=0), offset_preds.unsqueeze(dim=0),
                                anchors.unsqueeze(dim=0), nms_threshold=0.5)
    print(output)


def d2l_ssd_pieces(torch):
    # d2l-en chapter_computer-vision/ssd.md: predictors, concat_preds, down_sample_blk, losses
    nn = torch.nn
    def cls_predictor(num_inputs, num_anchors, num_classes):
        return nn.Conv2d(num_inputs, num_anchors * (num_classes + 1), kernel_size=3, padding=1)
    def bbox_predictor(num_inputs, num_anchors):
        return nn.Conv2d(num_inputs, num_anchors * 4, kernel_size=3, padding=1)
    def forward(x, block):
        return block(x)
    torch.manual_seed(20)
    Y1 = forward(torch.zeros((2, 8, 6, 6)), cls_predictor(8, 5, 10))
    Y2 = forward(torch.zeros((2, 16, 3, 3)), cls_predictor(16, 3, 10))
    print(Y1.shape, Y2.shape)
    def flatten_pred(pred):
        return torch.flatten(pred.permute(0, 2, 3, 1), start_dim=1)
    def concat_preds(preds):
        return torch.cat([flatten_pred(p) for p in preds], dim=1)
    print(concat_preds([Y1, Y2]).shape)
    def down_sample_blk(in_channels, out_channels):
        blk = []
        for _ in range(2):
            blk.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
            blk.append(nn.BatchNorm2d(out_channels))
            blk.append(nn.ReLU())
            in_channels = out_channels
        blk.append(nn.MaxPool2d(2))
        return nn.Sequential(*blk)
    print(forward(torch.zeros((2, 3, 8, 8)), down_sample_blk(3, 4)).shape)
    print(down_sample_blk(3, 4))
    cls_loss = nn.CrossEntropyLoss(reduction='none')
    bbox_loss = nn.L1Loss(reduction='none')
    def calc_loss(cls_preds, cls_labels, bbox_preds, bbox_labels, bbox_masks):
        batch_size, num_classes = cls_preds.shape[0], cls_preds.shape[2]
        cls = cls_loss(cls_preds.reshape(-1, num_classes),
                       cls_labels.reshape(-1)).reshape(batch_size, -1).mean(dim=1)
        bbox = bbox_loss(bbox_preds * bbox_masks, bbox_labels * bbox_masks).mean(dim=1)
        return cls + bbox
    def cls_eval(cls_preds, cls_labels):
        return float((cls_preds.argmax(dim=-1).type(cls_labels.dtype) == cls_labels).sum())
    def bbox_eval(bbox_preds, bbox_labels, bbox_masks):
        return float((torch.abs((bbox_labels - bbox_preds) * bbox_masks)).sum())
    cls_preds = torch.randn(2, 6, 3, requires_grad=True)
    cls_labels = torch.randint(0, 3, (2, 6))
    bbox_preds = torch.randn(2, 24, requires_grad=True)
    bbox_labels = torch.randn(2, 24)
    bbox_masks = (torch.rand(2, 24) > 0.5).float()
    l = calc_loss(cls_preds, cls_labels, bbox_preds, bbox_labels, bbox_masks)
    l.mean().backward()
    print(l, cls_eval(cls_preds, cls_labels), bbox_eval(bbox_preds, bbox_labels, bbox_masks),
          cls_preds.grad[0], bbox_preds.grad[0])


def d2l_fcn_style_transfer(torch):
    # d2l-en chapter_computer-vision/fcn.md (bilinear kernel for a transposed convolution) and
    # neural-style.md (gram matrix, content/style/tv losses)
    nn = torch.nn
    def bilinear_kernel(in_channels, out_channels, kernel_size):
        factor = (kernel_size + 1) // 2
        if kernel_size % 2 == 1:
            center = factor - 1
        else:
            center = factor - 0.5
        og = (torch.arange(kernel_size).reshape(-1, 1), torch.arange(kernel_size).reshape(1, -1))
        filt = (1 - torch.abs(og[0] - center) / factor) * (1 - torch.abs(og[1] - center) / factor)
        weight = torch.zeros((in_channels, out_channels, kernel_size, kernel_size))
        weight[range(in_channels), range(out_channels), :, :] = filt
        return weight
    conv_trans = nn.ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2, bias=False)
    conv_trans.weight.data.copy_(bilinear_kernel(3, 3, 4))
    torch.manual_seed(21)
    X = torch.rand(1, 3, 3, 3)
    Y = conv_trans(X)
    print(Y.shape, [round(v, 4) for v in Y[0, 0].flatten().tolist()], bilinear_kernel(1, 1, 3))
    def content_loss(Y_hat, Y):
        return torch.square(Y_hat - Y.detach()).mean()
    def gram(X):
        num_channels, n = X.shape[1], X.numel() // X.shape[1]
        X = X.reshape((num_channels, n))
        return torch.matmul(X, X.T) / (num_channels * n)
    def style_loss(Y_hat, gram_Y):
        return torch.square(gram(Y_hat) - gram_Y.detach()).mean()
    def tv_loss(Y_hat):
        return 0.5 * (torch.abs(Y_hat[:, :, 1:, :] - Y_hat[:, :, :-1, :]).mean() +
                      torch.abs(Y_hat[:, :, :, 1:] - Y_hat[:, :, :, :-1]).mean())
    class SynthesizedImage(nn.Module):
        def __init__(self, img_shape, **kwargs):
            super(SynthesizedImage, self).__init__(**kwargs)
            self.weight = nn.Parameter(torch.rand(*img_shape))
        def forward(self):
            return self.weight
    gen_img = SynthesizedImage((1, 3, 5, 5))
    content = torch.rand(1, 3, 5, 5)
    style = torch.rand(1, 3, 5, 5)
    trainer = torch.optim.Adam(gen_img.parameters(), lr=0.3)
    scheduler = torch.optim.lr_scheduler.StepLR(trainer, 2, 0.8)
    for epoch in range(4):
        trainer.zero_grad()
        Y_hat = gen_img()
        l = (content_loss(Y_hat, content) + 1e3 * style_loss(Y_hat, gram(style))
             + 10 * tv_loss(Y_hat))
        l.backward()
        trainer.step()
        scheduler.step()
        print(epoch, l, gram(Y_hat).grad_fn)
    print(gen_img.weight.data[0, 0])


def d2l_textcnn_bert(torch):
    # d2l-en chapter_natural-language-processing-applications/sentiment-analysis-cnn.md and
    # chapter_natural-language-processing-pretraining/bert.md (encoder input, MaskLM, NSP)
    nn = torch.nn
    def corr1d(X, K):
        w = K.shape[0]
        Y = torch.zeros((X.shape[0] - w + 1))
        for i in range(Y.shape[0]):
            Y[i] = (X[i: i + w] * K).sum()
        return Y
    X, K = torch.tensor([0, 1, 2, 3, 4, 5, 6]), torch.tensor([1, 2])
    print(corr1d(X, K))
    class TextCNN(nn.Module):
        def __init__(self, vocab_size, embed_size, kernel_sizes, num_channels, **kwargs):
            super(TextCNN, self).__init__(**kwargs)
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.constant_embedding = nn.Embedding(vocab_size, embed_size)
            self.dropout = nn.Dropout(0.5)
            self.decoder = nn.Linear(sum(num_channels), 2)
            self.pool = nn.AdaptiveAvgPool1d(1)
            self.relu = nn.ReLU()
            self.convs = nn.ModuleList()
            for c, k in zip(num_channels, kernel_sizes):
                self.convs.append(nn.Conv1d(2 * embed_size, c, k))
        def forward(self, inputs):
            embeddings = torch.cat((self.embedding(inputs), self.constant_embedding(inputs)), dim=2)
            embeddings = embeddings.permute(0, 2, 1)
            encoding = torch.cat([torch.squeeze(self.relu(self.pool(conv(embeddings))), dim=-1)
                                  for conv in self.convs], dim=1)
            outputs = self.decoder(self.dropout(encoding))
            return outputs
    torch.manual_seed(22)
    net = TextCNN(20, 4, [3, 4, 5], [3, 3, 3])
    def init_weights(module):
        if type(module) in (nn.Linear, nn.Conv1d):
            nn.init.xavier_uniform_(module.weight)
    net.apply(init_weights)
    net.constant_embedding.weight.requires_grad = False
    trainer = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()), lr=0.01)
    loss = nn.CrossEntropyLoss(reduction="none")
    X = torch.randint(0, 20, (4, 9)); y = torch.tensor([0, 1, 1, 0])
    for epoch in range(2):
        trainer.zero_grad()
        l = loss(net(X), y)
        l.sum().backward()
        trainer.step()
        print(epoch, [round(v, 4) for v in l.tolist()], net.constant_embedding.weight.grad)
    def get_tokens_and_segments(tokens_a, tokens_b=None):
        tokens = ['<cls>'] + tokens_a + ['<sep>']
        segments = [0] * (len(tokens_a) + 2)
        if tokens_b is not None:
            tokens += tokens_b + ['<sep>']
            segments += [1] * (len(tokens_b) + 1)
        return tokens, segments
    print(get_tokens_and_segments(['a', 'b'], ['c']))
    class MaskLM(nn.Module):
        def __init__(self, vocab_size, num_hiddens, **kwargs):
            super(MaskLM, self).__init__(**kwargs)
            self.mlp = nn.Sequential(nn.LazyLinear(num_hiddens), nn.ReLU(),
                                     nn.LayerNorm(num_hiddens),
                                     nn.LazyLinear(vocab_size))
        def forward(self, X, pred_positions):
            num_pred_positions = pred_positions.shape[1]
            pred_positions = pred_positions.reshape(-1)
            batch_size = X.shape[0]
            batch_idx = torch.arange(0, batch_size)
            batch_idx = torch.repeat_interleave(batch_idx, num_pred_positions)
            masked_X = X[batch_idx, pred_positions]
            masked_X = masked_X.reshape((batch_size, num_pred_positions, -1))
            mlm_Y_hat = self.mlp(masked_X)
            return mlm_Y_hat
    class NextSentencePred(nn.Module):
        def __init__(self, **kwargs):
            super(NextSentencePred, self).__init__(**kwargs)
            self.output = nn.LazyLinear(2)
        def forward(self, X):
            return self.output(X)
    encoded_X = torch.randn(2, 8, 6, requires_grad=True)
    mlm = MaskLM(10, 6)
    print(mlm)
    mlm_positions = torch.tensor([[1, 5, 2], [6, 1, 5]])
    mlm_Y_hat = mlm(encoded_X, mlm_positions)
    print(mlm_Y_hat.shape, mlm)
    mlm_Y = torch.tensor([[7, 8, 9], [2, 3, 4]])
    loss = nn.CrossEntropyLoss(reduction='none')
    mlm_l = loss(mlm_Y_hat.reshape((-1, 10)), mlm_Y.reshape(-1))
    encoded_X_flat = torch.flatten(encoded_X, start_dim=1)
    nsp = NextSentencePred()
    nsp_Y_hat = nsp(encoded_X_flat)
    nsp_l = loss(nsp_Y_hat, torch.tensor([0, 1]))
    (mlm_l.sum() + nsp_l.sum()).backward()
    print(mlm_l, nsp_l, encoded_X.grad[0, 1], nsp)


def d2l_recsys_mf(torch):
    # d2l-en chapter_recommender-systems/mf.md, autorec.md, fm.md (PyTorch ports)
    nn = torch.nn
    class MF(nn.Module):
        def __init__(self, num_factors, num_users, num_items):
            super().__init__()
            self.P = nn.Embedding(num_users, num_factors)
            self.Q = nn.Embedding(num_items, num_factors)
            self.user_bias = nn.Embedding(num_users, 1)
            self.item_bias = nn.Embedding(num_items, 1)
        def forward(self, user_id, item_id):
            P_u = self.P(user_id)
            Q_i = self.Q(item_id)
            b_u = self.user_bias(user_id)
            b_i = self.item_bias(item_id)
            outputs = (P_u * Q_i).sum(axis=1) + torch.squeeze(b_u) + torch.squeeze(b_i)
            return outputs.flatten()
    class FM(nn.Module):
        def __init__(self, field_dims, num_factors):
            super().__init__()
            num_inputs = int(sum(field_dims))
            self.embedding = nn.Embedding(num_inputs, num_factors)
            self.fc = nn.Embedding(num_inputs, 1)
            self.linear_layer = nn.Linear(1, 1, bias=True)
        def forward(self, x):
            square_of_sum = torch.sum(self.embedding(x), dim=1) ** 2
            sum_of_square = torch.sum(self.embedding(x) ** 2, dim=1)
            x = (self.linear_layer(self.fc(x).sum(1))
                 + 0.5 * (square_of_sum - sum_of_square).sum(1, keepdims=True))
            x = torch.sigmoid(x)
            return x
    torch.manual_seed(23)
    net = MF(3, 6, 7)
    for p in net.parameters():
        nn.init.normal_(p, std=0.01)
    opt = torch.optim.Adam(net.parameters(), lr=0.02, weight_decay=1e-5)
    users = torch.randint(0, 6, (10,)); items = torch.randint(0, 7, (10,))
    ratings = torch.randint(1, 6, (10,)).float()
    for _ in range(3):
        opt.zero_grad()
        l = nn.MSELoss()(net(users, items), ratings)
        l.backward()
        opt.step()
        print(l, net.P.weight.grad.nonzero().shape)
    fm = FM([3, 4, 5], 2)
    x = torch.stack([torch.randint(0, 3, (4,)), torch.randint(3, 7, (4,)),
                     torch.randint(7, 12, (4,))], 1)
    y = fm(x)
    nn.BCELoss()(y.squeeze(), torch.tensor([1.0, 0, 1, 0])).backward()
    print(y, fm.embedding.weight.grad.abs().sum(), y.grad_fn)
    sparse_emb = nn.Embedding(5, 2, sparse=False, max_norm=1.0)
    out = sparse_emb(torch.tensor([0, 1, 1, 4]))
    print(out, sparse_emb.weight.norm(dim=1))
    bag = nn.EmbeddingBag(6, 3, mode='mean')
    print(bag(torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2])))


def pt_learning_with_examples(torch):
    # pytorch/tutorials beginner_source/examples_autograd, examples_nn (polynomial fit,
    # LegendrePolynomial3 custom Function, DynamicNet)
    import random as pyrandom
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = torch.sin(x)
    torch.manual_seed(24)
    a = torch.randn((), dtype=dtype, requires_grad=True)
    b = torch.randn((), dtype=dtype, requires_grad=True)
    c = torch.randn((), dtype=dtype, requires_grad=True)
    d = torch.randn((), dtype=dtype, requires_grad=True)
    learning_rate = 1e-6
    for t in range(300):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            print(t, loss.item())
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)
        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    for t in range(200):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            print(t, loss.item(), y_pred.grad_fn)
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None; b.grad = None; c.grad = None; d.grad = None
    print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    loss_fn = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(200):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            print(t, loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    linear_layer = model[0]
    print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + '
          f'{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
    class DynamicNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Parameter(torch.randn(()))
            self.b = torch.nn.Parameter(torch.randn(()))
            self.c = torch.nn.Parameter(torch.randn(()))
            self.d = torch.nn.Parameter(torch.randn(()))
            self.e = torch.nn.Parameter(torch.randn(()))
        def forward(self, x):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, pyrandom.randint(4, 6)):
                y = y + self.e * x ** exp
            return y
        def string(self):
            return (f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + '
                    f'{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?')
    pyrandom.seed(0)
    model = DynamicNet()
    criterion = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    for t in range(100):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item(), model.string())


def pt_torch_func_tutorials(torch):
    # pytorch/tutorials intermediate_source/per_sample_grads.py, ensembling.py,
    # jacobians_hessians.py
    nn = torch.nn; F = torch.nn.functional
    from_func = torch.func
    class SimpleCNN(nn.Module):
        def __init__(self):
            super(SimpleCNN, self).__init__()
            self.fc1 = nn.Linear(12, 8)
            self.fc2 = nn.Linear(8, 3)
        def forward(self, x):
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)
    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)
    torch.manual_seed(25)
    batch_size = 4
    data = torch.randn(batch_size, 1, 3, 4)
    targets = torch.randint(3, (batch_size,))
    model = SimpleCNN()
    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return torch.autograd.grad(loss, list(model.parameters()))
    def compute_sample_grads(data, targets):
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [torch.stack(shards) for shards in sample_grads]
        return sample_grads
    per_sample_grads = compute_sample_grads(data, targets)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = from_func.functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss
    ft_compute_grad = from_func.grad(compute_loss)
    ft_compute_sample_grad = from_func.vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
    for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
        print(torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5),
              (per_sample_grad - ft_per_sample_grad).abs().max())
    print(ft_per_sample_grads['fc2.bias'])
    # ensembling
    num_models = 3
    models = [SimpleCNN() for _ in range(num_models)]
    minibatch = data
    predictions_diff_minibatch_loop = [model(minibatch) for model in models]
    params, buffers = from_func.stack_module_state(models)
    import copy
    base_model = copy.deepcopy(models[0])
    base_model = base_model.to('meta')
    def fmodel(params, buffers, x):
        return from_func.functional_call(base_model, (params, buffers), (x,))
    predictions2_vmap = from_func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    print(torch.allclose(predictions2_vmap, torch.stack(predictions_diff_minibatch_loop),
                         atol=1e-3, rtol=1e-5))
    print(sorted(params.keys()), params['fc1.weight'].shape, predictions2_vmap[1])
    # jacobians and hessians
    D = 4
    weight = torch.randn(D, D)
    bias = torch.randn(D)
    x = torch.randn(D)
    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()
    xp = x.clone().requires_grad_()
    unit_vectors = torch.eye(D)
    def compute_jac(xp):
        jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                         for vec in unit_vectors]
        return torch.stack(jacobian_rows)
    jacobian = compute_jac(xp)
    vjp_fn = from_func.vjp(partial_predict(predict, weight, bias), x)[1]
    jacobian_v = from_func.vmap(vjp_fn)(unit_vectors)
    print(jacobian, torch.allclose(jacobian_v[0], jacobian))
    jacobian2 = from_func.jacrev(predict, argnums=2)(weight, bias, x)
    print(torch.allclose(jacobian2, jacobian), jacobian2 - jacobian)
    jacfwd_j = from_func.jacfwd(predict, argnums=2)(weight, bias, x)
    print(torch.allclose(jacfwd_j, jacobian))
    ft_jac_weight, ft_jac_bias = from_func.jacrev(predict, argnums=(0, 1))(weight, bias, x)
    print(ft_jac_weight.shape, ft_jac_bias)
    hess0 = from_func.hessian(predict, argnums=2)(weight, bias, x)
    hess1 = from_func.jacfwd(from_func.jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
    print(torch.allclose(hess0, hess1), hess0[0])
    batch_size = 3
    xb = torch.randn(batch_size, D)
    compute_batch_jacobian = from_func.vmap(from_func.jacrev(predict, argnums=2),
                                            in_dims=(None, None, 0))
    batch_jacobian0 = compute_batch_jacobian(weight, bias, xb)
    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)
    batch_jacobian1 = from_func.jacrev(predict_with_output_summed, argnums=2)(
        weight, bias, xb).movedim(1, 0)
    print(torch.allclose(batch_jacobian0, batch_jacobian1), batch_jacobian0[2])
    def hvp(f, primals, tangents):
        return from_func.jvp(from_func.grad(f), primals, tangents)[1]
    def f(x):
        return x.sin().sum()
    xh = torch.randn(5); tangent = torch.randn(5)
    print(hvp(f, (xh,), (tangent,)), -xh.sin() * tangent)


def partial_predict(predict, weight, bias):
    from functools import partial
    return partial(predict, weight, bias)


def nanogpt_pieces(torch):
    # karpathy/nanoGPT model.py: LayerNorm with optional bias, CausalSelfAttention (manual and
    # sdpa paths), MLP, Block, weight tying, _init_weights, configure_optimizers, generate
    nn = torch.nn; F = torch.nn.functional
    from dataclasses import dataclass
    class LayerNorm(nn.Module):
        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None
        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)
    class CausalSelfAttention(nn.Module):
        def __init__(self, config, flash):
            super().__init__()
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.dropout = config.dropout
            self.flash = flash
            if not self.flash:
                size = config.block_size
                self.register_buffer("bias", torch.tril(torch.ones(size, size))
                                     .view(1, 1, size, size))
        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            if self.flash:
                y = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0,
                    is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            y = self.resid_dropout(self.c_proj(y))
            return y
    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)
        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))
    class Block(nn.Module):
        def __init__(self, config, flash):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config, flash)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x
    @dataclass
    class GPTConfig:
        block_size: int = 8
        vocab_size: int = 11
        n_layer: int = 2
        n_head: int = 2
        n_embd: int = 8
        dropout: float = 0.0
        bias: bool = True
    class GPT(nn.Module):
        def __init__(self, config, flash):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config, flash) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
        def get_num_params(self, non_embedding=True):
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params
        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            return logits, loss
        def configure_optimizers(self, weight_decay, learning_rate, betas):
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {'params': decay_params, 'weight_decay': weight_decay},
                {'params': nodecay_params, 'weight_decay': 0.0}
            ]
            num_decay_params = sum(p.numel() for p in decay_params)
            num_nodecay_params = sum(p.numel() for p in nodecay_params)
            print(f"num decayed parameter tensors: {len(decay_params)}, "
                  f"with {num_decay_params:,} parameters")
            print(f"num non-decayed parameter tensors: {len(nodecay_params)}, "
                  f"with {num_nodecay_params:,} parameters")
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, foreach=False)
        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                size = self.config.block_size
                idx_cond = idx if idx.size(1) <= size else idx[:, -size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx
    for flash in (False, True):
        torch.manual_seed(26)
        model = GPT(GPTConfig(), flash)
        print("number of parameters: %.2fM" % (model.get_num_params() / 1e6,),
              model.get_num_params())
        optimizer = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
        X = torch.randint(0, 11, (3, 8)); Y = torch.randint(0, 11, (3, 8)); Y[0, :2] = -1
        for it in range(3):
            logits, loss = model(X, Y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            print(it, loss.item(), logits.grad_fn)
        print(model.generate(torch.zeros((1, 1), dtype=torch.long), 10, temperature=0.8, top_k=5))
        print(model.lm_head.weight is model.transformer.wte.weight, len(list(model.parameters())))


def pt_examples_fast_neural_style_sr(torch):
    # pytorch/examples fast_neural_style/neural_style/transformer_net.py and utils.gram_matrix;
    # super_resolution/model.py (PixelShuffle)
    nn = torch.nn
    class ConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride):
            super(ConvLayer, self).__init__()
            reflection_padding = kernel_size // 2
            self.reflection_pad = nn.ReflectionPad2d(reflection_padding)
            self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)
        def forward(self, x):
            out = self.reflection_pad(x)
            out = self.conv2d(out)
            return out
    class ResidualBlock(nn.Module):
        def __init__(self, channels):
            super(ResidualBlock, self).__init__()
            self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in1 = nn.InstanceNorm2d(channels, affine=True)
            self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in2 = nn.InstanceNorm2d(channels, affine=True)
            self.relu = nn.ReLU()
        def forward(self, x):
            residual = x
            out = self.relu(self.in1(self.conv1(x)))
            out = self.in2(self.conv2(out))
            out = out + residual
            return out
    class UpsampleConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
            super(UpsampleConvLayer, self).__init__()
            self.upsample = upsample
            reflection_padding = kernel_size // 2
            self.reflection_pad = nn.ReflectionPad2d(reflection_padding)
            self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)
        def forward(self, x):
            x_in = x
            if self.upsample:
                x_in = torch.nn.functional.interpolate(x_in, mode='nearest',
                                                       scale_factor=self.upsample)
            out = self.reflection_pad(x_in)
            out = self.conv2d(out)
            return out
    class TransformerNet(nn.Module):
        def __init__(self):
            super(TransformerNet, self).__init__()
            self.conv1 = ConvLayer(3, 4, kernel_size=3, stride=1)
            self.in1 = nn.InstanceNorm2d(4, affine=True)
            self.conv2 = ConvLayer(4, 6, kernel_size=3, stride=2)
            self.in2 = nn.InstanceNorm2d(6, affine=True)
            self.res1 = ResidualBlock(6)
            self.deconv1 = UpsampleConvLayer(6, 4, kernel_size=3, stride=1, upsample=2)
            self.in4 = nn.InstanceNorm2d(4, affine=True)
            self.deconv3 = ConvLayer(4, 3, kernel_size=3, stride=1)
            self.relu = nn.ReLU()
        def forward(self, X):
            y = self.relu(self.in1(self.conv1(X)))
            y = self.relu(self.in2(self.conv2(y)))
            y = self.res1(y)
            y = self.relu(self.in4(self.deconv1(y)))
            y = self.deconv3(y)
            return y
    def gram_matrix(y):
        (b, ch, h, w) = y.size()
        features = y.view(b, ch, w * h)
        features_t = features.transpose(1, 2)
        gram = features.bmm(features_t) / (ch * h * w)
        return gram
    def normalize_batch(batch):
        mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
        std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
        batch = batch.div_(255.0)
        return (batch - mean) / std
    torch.manual_seed(27)
    net = TransformerNet()
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    x = torch.rand(2, 3, 8, 8) * 255
    for it in range(2):
        opt.zero_grad()
        y = net(x)
        yn = normalize_batch(y.clone())
        loss = torch.nn.functional.mse_loss(gram_matrix(yn),
                                            gram_matrix(normalize_batch(x.clone())))
        loss.backward()
        opt.step()
        print(it, '%.4f' % loss.item(), y.shape, y.grad_fn, net.in1.weight.grad is not None)
    class SRNet(nn.Module):
        def __init__(self, upscale_factor):
            super(SRNet, self).__init__()
            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 4, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(4, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
            nn.init.orthogonal_(self.conv1.weight, nn.init.calculate_gain('relu'))
            nn.init.orthogonal_(self.conv2.weight)
        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.pixel_shuffle(self.conv2(x))
            return x
    sr = SRNet(2)
    out = sr(torch.rand(1, 1, 4, 4))
    print(out.shape, out.grad_fn, [round(v, 3) for v in out.flatten()[:6].tolist()])
    ps = nn.PixelShuffle(2); pu = nn.PixelUnshuffle(2)
    t = torch.arange(32.).reshape(1, 8, 2, 2)
    print(ps(t), pu(ps(t)).equal(t), ps, pu)
    inn = nn.InstanceNorm1d(3)
    z = torch.randn(2, 3, 5, requires_grad=True)
    o = inn(z); o.sum().backward()
    print(o, z.grad, inn, nn.InstanceNorm2d(4, affine=True, track_running_stats=True))


def pt_examples_gat(torch):
    # pytorch/examples gat/main.py: GraphAttentionLayer (dense adjacency)
    nn = torch.nn; F = torch.nn.functional
    class GraphAttentionLayer(nn.Module):
        def __init__(self, in_features, out_features, n_heads, concat=False, dropout=0.4,
                     leaky_relu_slope=0.2):
            super(GraphAttentionLayer, self).__init__()
            self.n_heads = n_heads
            self.concat = concat
            self.dropout = dropout
            if concat:
                self.out_features = out_features
                assert out_features % n_heads == 0
                self.n_hidden = out_features // n_heads
            else:
                self.n_hidden = out_features
            self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))
            self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))
            self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)
            self.softmax = nn.Softmax(dim=1)
            self.reset_parameters()
        def reset_parameters(self):
            nn.init.xavier_normal_(self.W)
            nn.init.xavier_normal_(self.a)
        def _get_attention_scores(self, h_transformed):
            source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
            target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])
            e = source_scores + target_scores.mT
            return self.leakyrelu(e)
        def forward(self, h, adj_mat):
            n_nodes = h.shape[0]
            h_transformed = torch.mm(h, self.W)
            h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)
            h_transformed = h_transformed.view(n_nodes, self.n_heads,
                                               self.n_hidden).permute(1, 0, 2)
            e = self._get_attention_scores(h_transformed)
            connectivity_mask = -9e16 * torch.ones_like(e)
            e = torch.where(adj_mat > 0, e, connectivity_mask)
            attention = F.softmax(e, dim=-1)
            attention = F.dropout(attention, self.dropout, training=self.training)
            h_prime = torch.matmul(attention, h_transformed)
            if self.concat:
                h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
            else:
                h_prime = h_prime.mean(dim=0)
            return h_prime
    class GAT(nn.Module):
        def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False,
                     dropout=0.4, leaky_relu_slope=0.2):
            super(GAT, self).__init__()
            self.gat1 = GraphAttentionLayer(in_features=in_features, out_features=n_hidden,
                                            n_heads=n_heads, concat=concat, dropout=dropout,
                                            leaky_relu_slope=leaky_relu_slope)
            self.gat2 = GraphAttentionLayer(in_features=n_hidden, out_features=num_classes,
                                            n_heads=1, concat=False, dropout=dropout,
                                            leaky_relu_slope=leaky_relu_slope)
        def forward(self, input_tensor, adj_mat):
            x = self.gat1(input_tensor, adj_mat)
            x = F.elu(x)
            x = self.gat2(x, adj_mat)
            return F.log_softmax(x, dim=1)
    torch.manual_seed(28)
    n = 6
    features = torch.rand(n, 5)
    adj = ((torch.rand(n, n) > 0.5).float() + torch.eye(n)).clamp(max=1)
    labels = torch.randint(0, 3, (n,))
    gat_net = GAT(in_features=5, n_hidden=8, n_heads=2, num_classes=3, concat=True)
    optimizer = torch.optim.Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    for epoch in range(3):
        gat_net.train()
        optimizer.zero_grad()
        y = gat_net(features, adj)
        loss = criterion(y, labels)
        loss.backward()
        optimizer.step()
        gat_net.eval()
        with torch.no_grad():
            out = gat_net(features, adj)
            acc = (out.argmax(dim=1) == labels).sum() / n
        print(epoch, loss, acc, out[0])


def pt_examples_forward_forward(torch):
    # pytorch/examples mnist_forward_forward/main.py: overlay_y_on_x, Layer.train's goodness
    nn = torch.nn
    def overlay_y_on_x(x, y, classes=4):
        x_ = x.clone()
        x_[:, :classes] *= 0.0
        x_[range(x.shape[0]), y] = x.max()
        return x_
    class Layer(nn.Linear):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__(in_features, out_features, bias, device, dtype)
            self.relu = torch.nn.ReLU()
            self.opt = torch.optim.Adam(self.parameters(), lr=0.03)
            self.threshold = 2.0
            self.num_epochs = 5
        def forward(self, x):
            x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
            return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))
        def train(self, x_pos, x_neg):
            for i in range(self.num_epochs):
                g_pos = self.forward(x_pos).pow(2).mean(1)
                g_neg = self.forward(x_neg).pow(2).mean(1)
                loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold,
                                                          g_neg - self.threshold]))).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            return self.forward(x_pos).detach(), self.forward(x_neg).detach()
    class Net(torch.nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.layers = [Layer(dims[d], dims[d + 1]) for d in range(len(dims) - 1)]
        def predict(self, x):
            goodness_per_label = []
            for label in range(4):
                h = overlay_y_on_x(x, label)
                goodness = []
                for layer in self.layers:
                    h = layer(h)
                    goodness += [h.pow(2).mean(1)]
                goodness_per_label += [sum(goodness).unsqueeze(1)]
            goodness_per_label = torch.cat(goodness_per_label, 1)
            return goodness_per_label.argmax(1)
        def train(self, x_pos, x_neg):
            h_pos, h_neg = x_pos, x_neg
            for i, layer in enumerate(self.layers):
                h_pos, h_neg = layer.train(h_pos, h_neg)
    torch.manual_seed(29)
    net = Net([10, 8, 8])
    x = torch.rand(6, 10); y = torch.randint(0, 4, (6,))
    x_pos = overlay_y_on_x(x, y)
    rnd = torch.randperm(x.size(0))
    x_neg = overlay_y_on_x(x, y[rnd])
    net.train(x_pos, x_neg)
    print(net.predict(x), 1.0 - net.predict(x).eq(y).float().mean().item(), net.layers[0].weight[0])


def pt_examples_translation_transformer(torch):
    # pytorch/examples language_translation (Seq2SeqTransformer with nn.Transformer, masks,
    # PositionalEncoding, TokenEmbedding) and the nn.Transformer tutorial's
    # generate_square_subsequent_mask
    nn = torch.nn
    class PositionalEncoding(nn.Module):
        def __init__(self, emb_size, dropout, maxlen=50):
            super(PositionalEncoding, self).__init__()
            den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
            pos = torch.arange(0, maxlen).reshape(maxlen, 1)
            pos_embedding = torch.zeros((maxlen, emb_size))
            pos_embedding[:, 0::2] = torch.sin(pos * den)
            pos_embedding[:, 1::2] = torch.cos(pos * den)
            pos_embedding = pos_embedding.unsqueeze(-2)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer('pos_embedding', pos_embedding)
        def forward(self, token_embedding):
            return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])
    class TokenEmbedding(nn.Module):
        def __init__(self, vocab_size, emb_size):
            super(TokenEmbedding, self).__init__()
            self.embedding = nn.Embedding(vocab_size, emb_size)
            self.emb_size = emb_size
        def forward(self, tokens):
            return self.embedding(tokens.long()) * math.sqrt(self.emb_size)
    class Seq2SeqTransformer(nn.Module):
        def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size,
                     tgt_vocab_size, dim_feedforward=16, dropout=0.1):
            super(Seq2SeqTransformer, self).__init__()
            self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead,
                                              num_encoder_layers=num_encoder_layers,
                                              num_decoder_layers=num_decoder_layers,
                                              dim_feedforward=dim_feedforward, dropout=dropout)
            self.generator = nn.Linear(emb_size, tgt_vocab_size)
            self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
            self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
            self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)
        def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                    memory_key_padding_mask):
            src_emb = self.positional_encoding(self.src_tok_emb(src))
            tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
            outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                    src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
            return self.generator(outs)
    PAD_IDX = 1
    def generate_square_subsequent_mask(sz):
        mask = (torch.triu(torch.ones((sz, sz))) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1,
                                                                              float(0.0))
        return mask
    def create_mask(src, tgt):
        src_seq_len = src.shape[0]
        tgt_seq_len = tgt.shape[0]
        tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
        src_mask = torch.zeros((src_seq_len, src_seq_len)).type(torch.bool)
        src_padding_mask = (src == PAD_IDX).transpose(0, 1)
        tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
        return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask
    torch.manual_seed(30)
    model = Seq2SeqTransformer(1, 1, 8, 2, 12, 13)
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0001, betas=(0.9, 0.98), eps=1e-9)
    src = torch.randint(2, 12, (5, 3)); src[4, 0] = PAD_IDX
    tgt = torch.randint(2, 13, (6, 3)); tgt[5, 1] = PAD_IDX
    print(generate_square_subsequent_mask(4))
    for it in range(2):
        model.train()
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                       src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        print(it, loss, logits.shape, logits.grad_fn)
    model.eval()
    with torch.no_grad():
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt[:-1])
        logits = model(src, tgt[:-1], src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                       src_padding_mask)
        print(logits[0, 0], logits.argmax(-1))


def d2l_vit_nadaraya(torch):
    # d2l-en chapter_attention-mechanisms-and-transformers/vision-transformer.md and
    # attention-pooling.md (Nadaraya-Watson kernel regression)
    nn = torch.nn
    class PatchEmbedding(nn.Module):
        def __init__(self, img_size=8, patch_size=4, num_hiddens=6):
            super().__init__()
            def _make_tuple(x):
                if not isinstance(x, (list, tuple)):
                    return (x, x)
                return x
            img_size, patch_size = _make_tuple(img_size), _make_tuple(patch_size)
            self.num_patches = (img_size[0] // patch_size[0]) * (img_size[1] // patch_size[1])
            self.conv = nn.LazyConv2d(num_hiddens, kernel_size=patch_size, stride=patch_size)
        def forward(self, X):
            return self.conv(X).flatten(2).transpose(1, 2)
    class ViTMLP(nn.Module):
        def __init__(self, mlp_num_hiddens, mlp_num_outputs, dropout=0.5):
            super().__init__()
            self.dense1 = nn.LazyLinear(mlp_num_hiddens)
            self.gelu = nn.GELU()
            self.dropout1 = nn.Dropout(dropout)
            self.dense2 = nn.LazyLinear(mlp_num_outputs)
            self.dropout2 = nn.Dropout(dropout)
        def forward(self, x):
            return self.dropout2(self.dense2(self.dropout1(self.gelu(self.dense1(x)))))
    class ViTBlock(nn.Module):
        def __init__(self, num_hiddens, norm_shape, mlp_num_hiddens, num_heads, dropout,
                     use_bias=False):
            super().__init__()
            self.ln1 = nn.LayerNorm(norm_shape)
            self.attention = nn.MultiheadAttention(num_hiddens, num_heads, dropout=dropout,
                                                   bias=use_bias, batch_first=True)
            self.ln2 = nn.LayerNorm(norm_shape)
            self.mlp = ViTMLP(mlp_num_hiddens, num_hiddens, dropout)
        def forward(self, X, valid_lens=None):
            Y = self.ln1(X)
            X = X + self.attention(Y, Y, Y, need_weights=False)[0]
            return X + self.mlp(self.ln2(X))
    class ViT(nn.Module):
        def __init__(self, img_size, patch_size, num_hiddens, mlp_num_hiddens, num_heads,
                     num_blks, emb_dropout, blk_dropout, lr=0.1, use_bias=False, num_classes=3):
            super().__init__()
            self.patch_embedding = PatchEmbedding(img_size, patch_size, num_hiddens)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, num_hiddens))
            num_steps = self.patch_embedding.num_patches + 1
            self.pos_embedding = nn.Parameter(torch.randn(1, num_steps, num_hiddens))
            self.dropout = nn.Dropout(emb_dropout)
            self.blks = nn.Sequential()
            for i in range(num_blks):
                self.blks.add_module(f"{i}", ViTBlock(num_hiddens, num_hiddens,
                                                      mlp_num_hiddens, num_heads, blk_dropout,
                                                      use_bias))
            self.head = nn.Sequential(nn.LayerNorm(num_hiddens),
                                      nn.Linear(num_hiddens, num_classes))
        def forward(self, X):
            X = self.patch_embedding(X)
            X = torch.cat((self.cls_token.expand(X.shape[0], -1, -1), X), 1)
            X = self.dropout(X + self.pos_embedding)
            for blk in self.blks:
                X = blk(X)
            return self.head(X[:, 0])
    torch.manual_seed(31)
    model = ViT(8, 4, 6, 12, 2, 2, 0.1, 0.1)
    X = torch.rand(2, 3, 8, 8)
    y = model(X)
    print(y.shape, model.patch_embedding.conv)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for it in range(2):
        l = torch.nn.functional.cross_entropy(model(X), torch.tensor([0, 2]))
        opt.zero_grad(); l.backward(); opt.step()
        print(it, '%.5f' % l.item(), model.cls_token.grad.abs().sum() > 0)
    model.eval()
    print([round(v, 4) for v in model(X).flatten().tolist()])
    def f(x):
        return 2 * torch.sin(x) + x
    n = 12
    x_train, _ = torch.sort(torch.rand(n) * 5)
    y_train = f(x_train) + torch.randn(n)
    x_val = torch.arange(0, 5, 0.5)
    def gaussian(x):
        return torch.exp(-x**2 / 2)
    def nadaraya_watson(x_train, y_train, x_val, kernel):
        dists = x_train.reshape((-1, 1)) - x_val.reshape((1, -1))
        k = kernel(dists).type(torch.float32)
        attention_w = k / k.sum(0)
        y_hat = y_train @ attention_w
        return y_hat, attention_w
    y_hat, w = nadaraya_watson(x_train, y_train, x_val, gaussian)
    print(y_hat, w.sum(0))
    class NWKernelRegression(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.rand((1,), requires_grad=True))
        def forward(self, queries, keys, values):
            queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
            self.attention_weights = nn.functional.softmax(-((queries - keys) * self.w)**2 / 2,
                                                           dim=1)
            return torch.bmm(self.attention_weights.unsqueeze(1),
                             values.unsqueeze(-1)).reshape(-1)
    X_tile = x_train.repeat((n, 1))
    Y_tile = y_train.repeat((n, 1))
    keys = X_tile[(1 - torch.eye(n)).type(torch.bool)].reshape((n, -1))
    values = Y_tile[(1 - torch.eye(n)).type(torch.bool)].reshape((n, -1))
    net = NWKernelRegression()
    loss = nn.MSELoss(reduction='none')
    trainer = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(3):
        trainer.zero_grad()
        l = loss(net(x_train, keys, values), y_train)
        l.sum().backward()
        trainer.step()
        print(f'epoch {epoch + 1}, loss {float(l.sum()):.6f}', net.w)


def pt_examples_actor_critic(torch):
    # pytorch/examples reinforcement_learning/actor_critic.py (synthetic environment)
    nn = torch.nn; F = torch.nn.functional
    Categorical = torch.distributions.Categorical
    SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])
    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(4, 16)
            self.action_head = nn.Linear(16, 2)
            self.value_head = nn.Linear(16, 1)
            self.saved_actions = []
            self.rewards = []
        def forward(self, x):
            x = F.relu(self.affine1(x))
            action_prob = F.softmax(self.action_head(x), dim=-1)
            state_values = self.value_head(x)
            return action_prob, state_values
    torch.manual_seed(32)
    model = Policy()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()
    def select_action(state):
        state = torch.from_numpy(state).float()
        probs, state_value = model(state)
        m = Categorical(probs)
        action = m.sample()
        model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
        return action.item()
    def finish_episode():
        R = 0
        saved_actions = model.saved_actions
        policy_losses = []
        value_losses = []
        returns = []
        for r in model.rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for (log_prob, value), R in zip(saved_actions, returns):
            advantage = R - value.item()
            policy_losses.append(-log_prob * advantage)
            value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
        optimizer.zero_grad()
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
        loss.backward()
        optimizer.step()
        del model.rewards[:]
        del model.saved_actions[:]
        return loss
    rng = np.random.RandomState(1)
    for episode in range(3):
        state = rng.randn(4)
        actions = []
        for t in range(5):
            action = select_action(state)
            actions.append(action)
            state = rng.randn(4) * (1 + action)
            model.rewards.append(1.0 - 0.5 * action)
        print(episode, actions, finish_episode())


SNIPPETS = [pt_examples_vae, pt_examples_dcgan, pt_examples_siamese, pt_examples_time_sequence,
            pt_examples_regression, pt_examples_gcn, pt_dqn_update, pt_spatial_transformer,
            reinforce_distributions, lr_schedulers, pt_char_rnn_generation,
            pt_seq2seq_translation, d2l_gan, realnvp_flow, policy_gradient_gaussian,
            d2l_optim_torch, tinygrad_test_ops_style, d2l_anchors, d2l_ssd_pieces,
            d2l_fcn_style_transfer, d2l_textcnn_bert, d2l_recsys_mf, pt_learning_with_examples,
            pt_torch_func_tutorials, nanogpt_pieces, pt_examples_fast_neural_style_sr,
            pt_examples_gat, pt_examples_forward_forward, pt_examples_translation_transformer,
            d2l_vit_nadaraya, pt_examples_actor_critic]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet):
    assert first_difference(snippet, lg, torch) is None


# -- defects found, each swept over its class of inputs -----------------------------------------


def _same(got, want) -> bool:
    """Both None, or arrays of one shape with the same bits (NaN where NaN)."""
    if got is None or want is None:
        return got is None and want is None
    return got.shape == want.shape and np.array_equal(got, want, equal_nan=True)


def _affine_grids(m, dtype_name, size, align):
    """affine_grid's grid and theta's gradient (under a random weighting), as float32 arrays."""
    m.manual_seed(1)
    dims = len(size) - 2
    theta = (m.randn(size[0], dims, dims + 1) * 0.7).to(getattr(m, dtype_name))
    theta.requires_grad_(True)
    grid = m.nn.functional.affine_grid(theta, size, align_corners=align)
    (grid * m.randn(*grid.shape).to(grid.dtype)).sum().backward()
    return grid.detach().float().numpy(), theta.grad.float().numpy()


def test_affine_grid_as_torch():
    # the spatial transformer tutorial's affine_grid: the base grid times theta^T is torch's
    # bmm (its own loop below 400 multiply-adds per matrix, adding in order; a gemm above),
    # and so is the backward's base^T @ grad; 2-d and 3-d, unit, empty-batch and large grids
    sizes = [(1, 1, 4, 5), (2, 3, 9, 9), (3, 1, 20, 30), (1, 1, 1, 7), (2, 1, 2, 3, 4),
             (1, 1, 5, 6, 7), (0, 1, 3, 3)]
    for dtype_name, size, align in itertools.product(
            ["float32", "float64", "bfloat16", "float16"], sizes, [False, True]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _outcome(lambda: _affine_grids(lg, dtype_name, size, align))
            want = _outcome(lambda: _affine_grids(torch, dtype_name, size, align))
        if isinstance(want, tuple) and isinstance(want[0], str):
            assert got == want, (dtype_name, size, align)
        else:
            assert all(_same(a, b) for a, b in zip(got, want)), (dtype_name, size, align)


def _outcome(function):
    """The call's result, or its exception's type and first line."""
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).splitlines()[0]


def _grid_samples(m, dtype_name, mode, padding, align, shapes, wants, layout, create_graph):
    """grid_sample's output and the gradients of a random weighting of it, for input and grid
    stored contiguously, with the grid's coordinate dim first in memory (a conv net's (N, 2,
    H, W) output permuted) or with H and W swapped in memory (the kernel's row by row case)."""
    m.manual_seed(3)
    dtype = getattr(m, dtype_name)
    shape, grid_shape = shapes
    x = m.randn(*shape, dtype=dtype)
    grid = m.rand(*grid_shape, dtype=dtype) * 2.6 - 1.3
    if layout == "coordinates first":
        grid = grid.permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1)
    elif layout == "columns first":
        grid = grid.transpose(1, 2).contiguous().transpose(1, 2)
    x.requires_grad_(wants[0])
    grid.requires_grad_(wants[1])
    out = m.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding,
                                      align_corners=align)
    results = [out.detach().numpy()]
    inputs = [t for t, want in zip((x, grid), wants) if want]
    if inputs:
        weight = m.randn(*out.shape, dtype=dtype)
        grads = m.autograd.grad((out * weight).sum(), inputs, create_graph=create_graph)
        results += [g.detach().numpy() for g in grads]
    return results


def test_grid_sample_as_torch():
    # the spatial transformer tutorial's grid_sample: ATen's vectorised kernel's bits
    # (Note: grid_sample's bits, and its bicubic bits): a fused multiply-add unnormalising and
    # interpolating, reflection by truncated flips, the input's gradient added in the kernel's
    # order (8 float32 or 4 float64 points at a time, over H*W or row by row); bicubic (which
    # leafgrad refused before); plain and create_graph backward, every subset of inputs
    # requiring grad, empty batches
    shapes = [((2, 3, 5, 7), (2, 4, 6, 2)), ((2, 1, 3, 3), (2, 1, 1, 2)),
              ((1, 2, 1, 6), (1, 3, 11, 2)), ((0, 2, 3, 3), (0, 2, 2, 2))]
    calls = [(wants, "contiguous") for wants in itertools.product((True, False), repeat=2)]
    calls += [((True, True), "coordinates first"), ((True, True), "columns first")]
    for dtype_name, mode, padding, align, pair, (wants, layout) in itertools.product(
            ["float32", "float64"], ["bilinear", "nearest", "bicubic"],
            ["zeros", "border", "reflection"], [False, True], shapes, calls):
        if layout != "contiguous" and align:  # (the walks are the same with align_corners)
            continue
        create_graph = wants == (True, True) and layout == "contiguous"
        got = _grid_samples(lg, dtype_name, mode, padding, align, pair, wants, layout,
                            create_graph)
        want = _grid_samples(torch, dtype_name, mode, padding, align, pair, wants, layout,
                             create_graph)
        case = (dtype_name, mode, padding, align, pair, wants, layout)
        assert len(got) == len(want) and all(_same(a, b) for a, b in zip(got[1:], want[1:])), case
        if mode == "bicubic" and layout != "contiguous" and (
                dtype_name == "float64" or padding == "reflection"):
            # a strided grid's bicubic kernels: some last bits differ (docs/known-differences.md)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-6 if dtype_name == "float32"
                                       else 1e-14, atol=1e-6 if dtype_name == "float32"
                                       else 1e-14, err_msg=str(case))
        else:
            assert _same(got[0], want[0]), case


def _recurrent_outputs(m, dtype_name):
    """(grad_fn name, strides, version) of each recurrent module's output, batch_first or not,
    batched or not, one or two layers, one or two directions, with and without grad."""
    m.manual_seed(5)
    dtype = getattr(m, dtype_name)
    seen = []
    for cls, batch_first, bidirectional, layers in itertools.product(
            (m.nn.RNN, m.nn.GRU, m.nn.LSTM), (False, True), (False, True), (1, 2)):
        net = cls(3, 4, num_layers=layers, batch_first=batch_first,
                  bidirectional=bidirectional, dtype=dtype)
        x = m.randn(2, 5, 3, dtype=dtype)
        for inputs in (x, x[0], x.transpose(0, 1)):
            out, _ = net(inputs)
            seen.append((out.grad_fn.name(), out.stride(), out._version))
        with m.no_grad():
            out, _ = net(x)
        seen.append((out.grad_fn, out.stride(), out._version))
    return seen


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_recurrent_batch_first_output_as_torch(dtype_name):
    # seq2seq translation's EncoderRNN (nn.GRU, batch_first): ATen's RNN and GRU transpose
    # their output in place (TransposeBackward1, version 1), its LSTM out of place
    assert _recurrent_outputs(lg, dtype_name) == _recurrent_outputs(torch, dtype_name)


def _per_example_products(m, dtype_name):
    """vmap(grad) of products with an unbatched matrix that grad differentiates (the
    per-sample-gradients tutorial): the product's values (as aux) and every gradient, for
    F.linear with and without bias, x @ W.T, W @ x, mv and dot, each subset of differentiated
    inputs."""
    F = m.nn.functional
    m.manual_seed(6)
    dtype = getattr(m, dtype_name)
    weight = m.randn(5, 7, dtype=dtype)
    bias = m.randn(5, dtype=dtype)
    data = m.randn(4, 3, 7, dtype=dtype)
    forms = {
        "linear": lambda w, b, x: F.linear(x, w, b),
        "linear without bias": lambda w, b, x: F.linear(x, w) + b,
        "x @ w.T": lambda w, b, x: x @ w.t() + b,
        # one vector per example (the jacobians tutorial's predict): mv, dot, 1-d matmul
        "W @ x": lambda w, b, x: w @ x[0] + b,
        "W.mv(x)": lambda w, b, x: w.mv(x[0]) + b,
        "dot": lambda w, b, x: w[0].dot(x[0]) + b,
        "x.dot(w)": lambda w, b, x: x[0].dot(w[1]) + b,
        # a row sliced from each example's matrix: a strided batch, which torch's rule does
        # not fold into one mm
        "one row": lambda w, b, x: F.linear(x[:1], w, b),
        "linear of a vector": lambda w, b, x: F.linear(x[0], w, b),
        "x[0] @ W.T": lambda w, b, x: x[0] @ w.t() + b,
        "W @ x.T": lambda w, b, x: (w @ x.t()).t() + b,
    }
    seen = []
    for name, form in forms.items():
        def loss(w, b, x):
            out = form(w, b, x)
            return out.tanh().sum(), out
        for argnums in (0, 1, 2, (0, 1), (0, 2), (0, 1, 2)):
            grads, out = m.func.vmap(m.func.grad(loss, argnums=argnums, has_aux=True),
                                     in_dims=(None, None, 0))(weight, bias, data)
            grads = grads if isinstance(grads, tuple) else (grads,)
            seen.append((name, argnums, out.numpy(), [g.numpy() for g in grads]))
    return seen


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_per_example_gradients_of_an_unbatched_matrix_as_torch(dtype_name):
    # the per-sample-gradients tutorial: under vmap, func.grad's unbatched weight stays one
    # matrix for torch, so x @ W folds the batch into rows (one mm), W @ x is one mm with the
    # vectors as columns, not one product per example
    for (name, argnums, out, grads), (_, _, want_out, want_grads) in zip(
            _per_example_products(lg, dtype_name), _per_example_products(torch, dtype_name)):
        assert _same(out, want_out), (name, argnums)
        assert all(_same(a, b) for a, b in zip(grads, want_grads)), (name, argnums)
