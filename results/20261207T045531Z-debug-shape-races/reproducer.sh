#!/bin/sh
# From a fresh clone of the workbench at 6187a8b.
set -e
cd "$(dirname "$0")/../.."
git checkout 6187a8bcc1bfaf1f0e17cf229a12f9c4d1efd13d
make deps tree
scripts/build.sh debug work final
scripts/selftests.sh build
scripts/vm --kernel build/images/final/debug/bzImage --quiet --cpus 2 --numa 2 --mem 2G --swap 256 \
	--disk ext4 --disk xfs --append "movablecore=25%" -- sh -c \
	'cd build/ksft/pagecache && PAGECACHE_RACE_SECONDS=2 ./races -t folio_shape_split -t folio_shape_punch -t folio_shape_truncate -t folio_shape_migrate'
