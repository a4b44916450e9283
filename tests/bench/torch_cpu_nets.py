"""PyTorch fp32 on the CPU, the twins of tests/data/timing's GoogLeNet and ResNet-50 (timed by
`cortado-cli time`): ms per iteration, median of ROUNDS runs of ITERS iterations after a
warm-up, and the process's peak memory (max RSS).
- googlenet_b10: bvlc_googlenet_deploy_force_backward, as `caffe time` runs it: forward and
  backward with a zero gradient at the output and one computed down to the input.
- resnet50_b8: resnet50_b8_train, a training iteration: forward, cross-entropy, backward and an
  SGD step, BatchNorm on batch statistics.
Run it as the issue's figures were taken: OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1.
Usage: python3 torch_cpu_nets.py [googlenet] [resnet50] [--threads N] [--iters N] [--rounds N]"""
import resource, statistics, sys, time
import torch, torch.nn.functional as F

from torch_models import GoogLeNet, ResNet50

def option(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

threads, iters, rounds = option('--threads', 2), option('--iters', 5), option('--rounds', 3)
torch.set_num_threads(threads)

def bench(name, net, shape, training):
    x = torch.randn(*shape, requires_grad=not training)
    y = torch.randint(0, 1000, (shape[0],))
    opt = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    net.train()
    def step():
        out = net(x)
        loss = F.cross_entropy(out, y) if training else out.sum() * 0
        opt.zero_grad(set_to_none=False)
        loss.backward()
        if training:
            opt.step()
    for _ in range(2): step()
    meds = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters): step()
        meds.append((time.perf_counter() - t) * 1000 / iters)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name}\t{statistics.median(meds):.1f} ms\tmax RSS {rss:.0f} MB\t"
          f"{' '.join(f'{m:.1f}' for m in meds)}", flush=True)

print(f"# torch {torch.__version__}, {threads} threads, mkldnn={torch.backends.mkldnn.is_available()}")
which = [a for a in sys.argv[1:] if not a.startswith('--') and not a.isdigit()] or ['googlenet', 'resnet50']
if 'googlenet' in which: bench('googlenet_b10', GoogLeNet(), (10, 3, 224, 224), False)
if 'resnet50' in which: bench('resnet50_b8', ResNet50(), (8, 3, 224, 224), True)
