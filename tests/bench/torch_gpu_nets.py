"""PyTorch fp32 on the GPU, the nets of tests/data/timing/gpu/ (timed by `cortado-cli time --gpu=0`): ms per
training iteration (forward, cross-entropy, backward, SGD step), median of rounds, and
images per second. TF32 off (fp32, as Cortado computes); cudnn.benchmark on (PyTorch's best)."""
import statistics, sys, time
import torch, torch.nn as nn, torch.nn.functional as F

deterministic = '--deterministic' in sys.argv
torch.backends.cudnn.benchmark = not deterministic
torch.backends.cudnn.deterministic = deterministic
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
dev = 'cuda'

from torch_models import LeNet, AlexNet, GoogLeNet, ResNet50

def bench(name, net, shape, classes, iters=20, rounds=3):
    net = net.to(dev).train()
    opt = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    x = torch.randn(*shape, device=dev); y = torch.randint(0, classes, (shape[0],), device=dev)
    def step():
        opt.zero_grad(set_to_none=False)
        F.cross_entropy(net(x), y).backward(); opt.step()
    for _ in range(5): step()
    torch.cuda.synchronize()
    meds = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters): step()
        torch.cuda.synchronize()
        meds.append((time.perf_counter() - t) * 1000 / iters)
    m = statistics.median(meds)
    print(f"{name}\t{m:.2f} ms/iter\t{shape[0] * 1000 / m:.0f} img/s\t{' '.join(f'{v:.2f}' for v in meds)}", flush=True)

print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}, cudnn {torch.backends.cudnn.version()}, fp32 (TF32 off), {'deterministic cuDNN' if deterministic else 'cudnn.benchmark'}")
which = [a for a in sys.argv[1:] if not a.startswith('--')] or ['lenet', 'alexnet', 'googlenet', 'resnet50']
if 'lenet' in which: bench('lenet_b64', LeNet(), (64, 1, 28, 28), 10)
if 'alexnet' in which: bench('alexnet_b256', AlexNet(), (256, 3, 227, 227), 1000)
if 'googlenet' in which: bench('googlenet_b128', GoogLeNet(), (128, 3, 224, 224), 1000)
if 'resnet50' in which: bench('resnet50_b64', ResNet50(), (64, 3, 224, 224), 1000)
