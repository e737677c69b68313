#!/bin/sh
# From a fresh clone: make bench's patched UML kernel, then one boot running raw/guest.sh
# (it expects busybox at /bin/busybox and pcbench.ko at build/uml/final-mod; adjust the paths).
set -e
cd "$(dirname "$0")/../.."
make tree
bench/uml/run.sh --smoke --kernels final=work --cpus 1 --out /tmp/pcb-smoke
build/uml/final/linux mem=2G ncpus=1 seccomp=on rootfstype=hostfs rootflags=/ ro \
	init="$PWD/results/20261207T205700Z-hole-switch/raw/guest.sh" con=null con0=null,fd:1 </dev/null | grep '^HOLE'
