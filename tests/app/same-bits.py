#!/usr/bin/env python3
"""same-bits.py: Cortado's results do not depend on the kernels OpenBLAS picked.

OpenBLAS chooses its kernels by CPU model, and on a CPU it does not know it
runs generic SSE3 ones ("Prescott") that round differently. Every number a
test, a resume or the CPU/GPU agreement relies on comes from Cortado's own
kernels or oneDNN, so a user's run gives the same bits whatever OpenBLAS
chose. This test runs cortado-cli as a user does, once with
OPENBLAS_CORETYPE=Prescott and once with the kernels that fit this CPU, and
compares the files byte for byte: a forward and backward pass of the
reference nets (every blob's data and diff), and two short trainings
(SGD with weight decay and gradient clipping, Adam with L1 decay) down to
their caffemodel and solverstate.

It skips where there is nothing to compare (a CPU without AVX2, on which
OpenBLAS only has its generic kernels) or where the build runs its
products on OpenBLAS (no oneDNN), and says why. The same comparison with
CT_GEMM=openblas shows that the check can see a difference."""

import filecmp
import os
import subprocess
import sys
import tempfile

CLI = os.environ['CT_CLI']
DATA = os.path.join(os.environ['CT_TEST_DATA'], 'reference')

NET = """
name: 'bits'
layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'
  dummy_data_param {
    shape { dim: 8 dim: 4 dim: 12 dim: 12 } shape { dim: 8 }
    data_filler { type: 'gaussian' std: 1 } data_filler { type: 'constant' value: 3 } } }
layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'
  convolution_param { num_output: 10 kernel_size: 3 group: 2
    weight_filler { type: 'xavier' } bias_filler { type: 'constant' value: 0.1 } } }
layer { name: 'bn' type: 'BatchNorm' bottom: 'conv' top: 'conv' }
layer { name: 'scale' type: 'Scale' bottom: 'conv' top: 'conv' scale_param { bias_term: true } }
layer { name: 'relu' type: 'ReLU' bottom: 'conv' top: 'conv' }
layer { name: 'pool' type: 'Pooling' bottom: 'conv' top: 'pool'
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: 'conv1x1' type: 'Convolution' bottom: 'pool' top: 'conv1x1'
  convolution_param { num_output: 5 kernel_size: 1 group: 5 weight_filler { type: 'gaussian' std: 0.3 } } }
layer { name: 'tanh' type: 'TanH' bottom: 'conv1x1' top: 'conv1x1' }
layer { name: 'ip1' type: 'InnerProduct' bottom: 'conv1x1' top: 'ip1'
  inner_product_param { num_output: 32 weight_filler { type: 'xavier' } } }
layer { name: 'drop' type: 'Dropout' bottom: 'ip1' top: 'ip1' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
"""

SOLVERS = {
    'sgd': "base_lr: 0.05 momentum: 0.9 weight_decay: 0.001 clip_gradients: 0.5 ",
    'adam': "type: 'Adam' base_lr: 0.01 momentum: 0.9 momentum2: 0.999 "
            "weight_decay: 0.001 regularization_type: 'L1' ",
}


def cpu_flags():
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('flags'):
                return set(line.split(':', 1)[1].split())
    return set()


def fitting_core():
    """The OpenBLAS kernels that fit this CPU, None if only the generic ones do."""
    flags = cpu_flags()
    if {'avx512f', 'avx512bw', 'avx512vl', 'avx512dq'} <= flags:
        return 'SkylakeX'
    if {'avx2', 'fma'} <= flags:
        return 'Haswell'
    return None


def run(args, env_extra, cwd):
    env = dict(os.environ, **env_extra)
    r = subprocess.run([CLI] + args, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise SystemExit(f'FAIL: cortado-cli {" ".join(args)} exited with {r.returncode}')
    return r


def outputs(core, env_extra, root):
    """Every file the runs under CORE write, in a folder of their own."""
    out = os.path.join(root, core + env_extra.get('CT_GEMM', ''))
    os.makedirs(out)
    env = dict(env_extra, OPENBLAS_CORETYPE=core)
    files = []
    for net, weights in [('layer_zoo.prototxt', 'layer_zoo_seed1701_init.caffemodel'),
                         ('lenet_fashion_deploy_loss.prototxt',
                          'fashion_lenet_iter_10000.caffemodel')]:
        dump = os.path.join(out, net + '.dump')
        run(['forward', '-m', os.path.join(DATA, net), '-w', os.path.join(DATA, weights),
             '--fill=caffe-ref', '--backward', '--dump', dump], env, out)
        files.append(dump)
    with open(os.path.join(out, 'net.prototxt'), 'w') as f:
        f.write(NET)
    for name, rule in SOLVERS.items():
        with open(os.path.join(out, name + '.prototxt'), 'w') as f:
            f.write(f"net: 'net.prototxt' {rule} lr_policy: 'fixed' max_iter: 12 display: 4 "
                    f"snapshot_prefix: '{name}' random_seed: 1701 solver_mode: CPU\n")
        run(['train', '--solver=' + name + '.prototxt'], env, out)
        files += [os.path.join(out, f'{name}_iter_12.{ext}') for ext in ('caffemodel', 'solverstate')]
    return files


def differing(a, b):
    return [os.path.basename(x) for x, y in zip(a, b) if not filecmp.cmp(x, y, shallow=False)]


def main():
    core = fitting_core()
    if core is None:
        print('SKIP: OpenBLAS has only its generic kernels for this CPU: nothing to compare')
        return 77
    query = subprocess.run([CLI, 'device_query'], capture_output=True, text=True).stderr
    if 'CPU matrix products: oneDNN' not in query:
        print('SKIP: this build runs its matrix products on OpenBLAS (no oneDNN), whose '
              'results depend on its kernels')
        return 77
    with tempfile.TemporaryDirectory() as root:
        generic = outputs('Prescott', {}, root)
        fitting = outputs(core, {}, root)
        bad = differing(generic, fitting)
        print(f'{len(generic)} files compared, Prescott against {core}: '
              f'{len(bad)} differ {bad}')
        # The same products on OpenBLAS: the comparison sees its kernels.
        seen = differing(outputs('Prescott', {'CT_GEMM': 'openblas'}, root)[:2],
                         outputs(core, {'CT_GEMM': 'openblas'}, root)[:2])
        print(f'with CT_GEMM=openblas, the dumps that differ: {seen}')
        if bad:
            print('FAIL: results depend on the kernels OpenBLAS picked')
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
