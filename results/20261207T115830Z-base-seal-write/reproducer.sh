#!/bin/sh
# From a fresh clone: the base kernel (no series) runs races -t memfd_seal_write.
set -e
cd "$(dirname "$0")/../.."
make deps tree
scripts/build.sh guest base base
scripts/selftests.sh build
scripts/vm --kernel build/images/base/guest/bzImage --quiet --cpus 2 --mem 2G -- \
	sh -c "cd build/ksft/pagecache && ./races -t memfd_seal_write"
