"""The nets of Cortado's speed comparisons written for PyTorch, shared by torch_gpu_nets.py
(tests/data/timing/gpu) and torch_cpu_nets.py (tests/data/timing): the same layers, shapes and
strides as the prototxts, so that both tools compute the same thing."""
import torch, torch.nn as nn, torch.nn.functional as F

class LeNet(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(1, 20, 5); s.c2 = nn.Conv2d(20, 50, 5)
        s.f1 = nn.Linear(800, 500); s.f2 = nn.Linear(500, 10)
    def forward(s, x):
        x = F.max_pool2d(s.c1(x), 2, 2); x = F.max_pool2d(s.c2(x), 2, 2)
        return s.f2(F.relu(s.f1(x.flatten(1))))

class AlexNet(nn.Module):  # bvlc_alexnet: LRN, groups 2 in conv2/4/5
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 96, 11, 4); s.c2 = nn.Conv2d(96, 256, 5, padding=2, groups=2)
        s.c3 = nn.Conv2d(256, 384, 3, padding=1); s.c4 = nn.Conv2d(384, 384, 3, padding=1, groups=2)
        s.c5 = nn.Conv2d(384, 256, 3, padding=1, groups=2)
        s.f6 = nn.Linear(9216, 4096); s.f7 = nn.Linear(4096, 4096); s.f8 = nn.Linear(4096, 1000)
        s.lrn = nn.LocalResponseNorm(5, 1e-4, 0.75)
    def forward(s, x):
        x = F.max_pool2d(s.lrn(F.relu(s.c1(x))), 3, 2)
        x = F.max_pool2d(s.lrn(F.relu(s.c2(x))), 3, 2)
        x = F.relu(s.c3(x)); x = F.relu(s.c4(x)); x = F.max_pool2d(F.relu(s.c5(x)), 3, 2)
        x = F.dropout(F.relu(s.f6(x.flatten(1))), 0.5, True)
        x = F.dropout(F.relu(s.f7(x)), 0.5, True)
        return s.f8(x)

class Inception(nn.Module):
    def __init__(s, cin, c1, r3, c3, r5, c5, pp):
        super().__init__()
        s.b1 = nn.Conv2d(cin, c1, 1)
        s.b2r = nn.Conv2d(cin, r3, 1); s.b2 = nn.Conv2d(r3, c3, 3, padding=1)
        s.b3r = nn.Conv2d(cin, r5, 1); s.b3 = nn.Conv2d(r5, c5, 5, padding=2)
        s.b4 = nn.Conv2d(cin, pp, 1)
    def forward(s, x):
        return torch.cat([F.relu(s.b1(x)), F.relu(s.b2(F.relu(s.b2r(x)))),
                          F.relu(s.b3(F.relu(s.b3r(x)))),
                          F.relu(s.b4(F.max_pool2d(x, 3, 1, 1)))], 1)

class GoogLeNet(nn.Module):  # bvlc_googlenet deploy: LRN, no aux heads
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 64, 7, 2, 3); s.c2r = nn.Conv2d(64, 64, 1); s.c2 = nn.Conv2d(64, 192, 3, padding=1)
        s.lrn = nn.LocalResponseNorm(5, 1e-4, 0.75)
        cfg = [(192, 64, 96, 128, 16, 32, 32), (256, 128, 128, 192, 32, 96, 64), 'pool',
               (480, 192, 96, 208, 16, 48, 64), (512, 160, 112, 224, 24, 64, 64),
               (512, 128, 128, 256, 24, 64, 64), (512, 112, 144, 288, 32, 64, 64),
               (528, 256, 160, 320, 32, 128, 128), 'pool',
               (832, 256, 160, 320, 32, 128, 128), (832, 384, 192, 384, 48, 128, 128)]
        s.blocks = nn.ModuleList([nn.MaxPool2d(3, 2, ceil_mode=True) if c == 'pool' else Inception(*c) for c in cfg])
        s.fc = nn.Linear(1024, 1000)
    def forward(s, x):
        x = s.lrn(F.max_pool2d(F.relu(s.c1(x)), 3, 2, ceil_mode=True))
        x = F.max_pool2d(s.lrn(F.relu(s.c2(F.relu(s.c2r(x))))), 3, 2, ceil_mode=True)
        for b in s.blocks: x = b(x)
        x = F.dropout(F.avg_pool2d(x, 7, 1), 0.4, True)
        return s.fc(x.flatten(1))

class Bottleneck(nn.Module):
    def __init__(s, cin, mid, cout, stride):
        super().__init__()
        s.a = nn.Conv2d(cin, mid, 1, stride, bias=False); s.ba = nn.BatchNorm2d(mid)
        s.b = nn.Conv2d(mid, mid, 3, 1, 1, bias=False); s.bb = nn.BatchNorm2d(mid)
        s.c = nn.Conv2d(mid, cout, 1, bias=False); s.bc = nn.BatchNorm2d(cout)
        s.proj = None
        if stride != 1 or cin != cout:
            s.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    def forward(s, x):
        y = F.relu(s.ba(s.a(x))); y = F.relu(s.bb(s.b(y))); y = s.bc(s.c(y))
        return F.relu(y + (x if s.proj is None else s.proj(x)))

class ResNet50(nn.Module):  # Caffe's ResNet-50: stride in the first 1x1 of a stage
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 64, 7, 2, 3, bias=True); s.b1 = nn.BatchNorm2d(64)
        layers, cin = [], 64
        for mid, n, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
            for i in range(n):
                layers.append(Bottleneck(cin, mid, mid * 4, stride if i == 0 else 1)); cin = mid * 4
        s.layers = nn.Sequential(*layers); s.fc = nn.Linear(2048, 1000)
    def forward(s, x):
        x = F.max_pool2d(F.relu(s.b1(s.c1(x))), 3, 2, ceil_mode=True)
        x = F.avg_pool2d(s.layers(x), 7, 1)
        return s.fc(x.flatten(1))
