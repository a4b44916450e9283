#!/bin/sh
# Make the two Fashion-MNIST LMDBs the example net reads, next to this
# script, from Debian's dataset-fashion-mnist files. An existing database is
# kept. Usage: prepare-data.sh PATH/TO/cortado-cli
set -eu
cli=$(realpath "$1")
src=/usr/share/datasets/fashion-mnist
cd "$(dirname "$0")"
[ -d fashion_train_lmdb ] ||
  "$cli" convert mnist "$src/train-images-idx3-ubyte.gz" "$src/train-labels-idx1-ubyte.gz" fashion_train_lmdb
[ -d fashion_test_lmdb ] ||
  "$cli" convert mnist "$src/t10k-images-idx3-ubyte.gz" "$src/t10k-labels-idx1-ubyte.gz" fashion_test_lmdb
