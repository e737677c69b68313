# pagecache-rcu workbench.  `make help` lists the targets.
SHELL := /bin/bash
S := scripts
CONFIG ?= guest

.PHONY: help deps tree export export-check build build-base build-debug \
	boundaries cross vm check check-debug check-arm64 check-many check-many-mutant test-workbench clean distclean \
	sync sync-selftests selftests mutants kunit model model-check model-bench \
	lint bench bench-guest bench-smoke readsizes kvm-bundle send-check send soak soak-mutant

help:
	@echo "pagecache-rcu: RCU page-cache reads for Linux 7.3 (see README.md)"
	@echo
	@echo "  make check         the test entry: deps, tree, W=1 at every patch"
	@echo "                     boundary, final kernel, boot, tests; ends 'N passed, N failed'"
	@echo "  make check-debug   the same on the debug config (KASAN, DEBUG_PAGEALLOC, lockdep)"
	@echo "  make check-arm64   the suites on an arm64 guest (QEMU/TCG, cross-built, initramfs"
	@echo "                     with Debian's busybox:arm64); lockless hits must be > 0 there"
	@echo "  make cross         W=1 at every patch boundary for arm64 and riscv64 (cross gcc)"
	@echo "  make check-many    the patched kernel on 64 CPUs: QEMU/TCG debug and PREEMPT_RT"
	@echo "                     guests, UML SMP; races, deferral storm, CPU hotplug, KUnit"
	@echo "                     (about 1 h here; MANY_ARGS='--help'); results/<stamp>-many"
	@echo "  make check-many-mutant  the same with the chain of a CPU going offline"
	@echo "                     forgotten (tests/mutants/offline-chain-lost.patch): must fail"
	@echo "  make soak          10^8 racing reads on the debug UML SMP kernel (KASAN, lockdep),"
	@echo "                     counted, console scanned; results/<stamp>-soak (SOAK_ARGS='--help')"
	@echo "  make soak-mutant   the same, short, on the no-defer mutant: it must fail"
	@echo "  make deps          install missing Debian packages"
	@echo "  make tree          build/linux: Debian linux-source-7.3 (trixie-backports)"
	@echo "                     as tag 'base', patches/ applied with git am onto branch 'work'"
	@echo "  make export        write branch 'work' back to patches/ (format-patch)"
	@echo "  make export-check  fail if patches/ differs from a fresh export"
	@echo "  make build         build/images/final/\$$CONFIG/bzImage (CONFIG=guest|debug)"
	@echo "  make build-base    build/images/base/\$$CONFIG/bzImage"
	@echo "  make boundaries    W=1 build of what each patch touches, vs base"
	@echo "  make vm RUN='cmd'  boot the final kernel and run cmd (scripts/vm --help)"
	@echo "  make test-workbench  host-only tests of the scripts (seconds)"
	@echo "  make selftests    build tools/testing/selftests/pagecache and run it on this kernel"
	@echo "  make sync          put the repository copies of the selftests and the"
	@echo "                     userspace model into the series (then make export)"
	@echo "  make model         build and run the userspace model and its mutants"
	@echo "  make model-check   verify the spin model; its mutants must fail"
	@echo "  make model-bench   refcount vs lockless read in the model, 1..N threads (CSV)"
	@echo "  make mutants       build, boot and test each tests/mutants/*.patch: the suite must fail"
	@echo "  make kunit         the series' KUnit suite on User-Mode Linux (kunit.py), TAP"
	@echo "  make lint          checkpatch, sparse, i386 and option-off builds at every boundary"
	@echo "  make bench         base vs patched on this host's real CPUs: User-Mode Linux"
	@echo "                     SMP, in-kernel read loops at 1..N CPUs, contention probe,"
	@echo "                     report in results/<stamp>-uml (BENCH_ARGS='--help')"
	@echo "  make bench-guest   the system-call matrix in a QEMU guest (real KVM only;"
	@echo "                     TCG is for correctness) (bench/run.sh; KERNELS= CPUS= REPS=)"
	@echo "  make bench-smoke   host tests of bench/ and both pipelines once"
	@echo "  make readsizes     read sizes, page-cache hits and re-reads of real workloads"
	@echo "                     (git grep, rg, cc, python, sqlite, nginx, tail) on this host's"
	@echo "                     kernel, strace; results/<stamp>-readsizes (about 10 min)"
	@echo "  make kvm-bundle    build/pagecache-bench.tar.gz: the matrix for a KVM host without QEMU"
	@echo "  make send-check    sign-off, get_maintainer.pl recipients, git send-email --dry-run"
	@echo "  make send          the same, for real (asks first)"
	@echo "  make clean         remove objects and images (keeps build/linux)"

deps:
	$(S)/deps.sh
tree: deps
	$(S)/tree.sh
export:
	$(S)/export.sh
export-check:
	$(S)/export.sh --check
build: tree
	$(S)/build.sh $(CONFIG) work final
build-base: tree
	$(S)/build.sh $(CONFIG) base base
build-debug:
	$(MAKE) build CONFIG=debug
boundaries: build
	$(S)/boundaries.sh $(CONFIG)
vm:
	$(S)/vm --kernel build/images/final/$(CONFIG)/bzImage -- sh -c '$(RUN)'
check:
	$(S)/check.sh
check-debug:
	CONFIG=debug $(S)/check.sh
check-arm64: tree
	$(S)/arm64.sh
cross: tree
	$(S)/deps.sh cross
	[ -f build/obj/arm64/.config ] || CONFIGURE_ONLY=1 $(S)/build.sh arm64 work final
	BOUNDARY_ARCH=arm64 $(S)/boundaries.sh
	BOUNDARY_ARCH=riscv $(S)/boundaries.sh
check-many: tree
	$(S)/many.sh $(MANY_ARGS)
check-many-mutant: tree
	$(S)/many.sh --mutant offline-chain-lost --no-races $(MANY_ARGS)
test-workbench:
	tests/workbench/test_scan.py && tests/workbench/test_readsizes.py && tests/workbench/test_series.sh && tests/workbench/test_mutants.sh && tests/workbench/test_provenance.sh
clean:
	rm -rf build/obj build/images build/check build/boundaries
distclean:
	rm -rf build
sync sync-selftests:
	$(S)/sync.sh
MODEL := tools/testing/pagecache-model
model: tree
	$(MAKE) -C $(MODEL) KSRC=$(CURDIR)/build/linux O=$(CURDIR)/build/model check
model-check: deps
	$(MODEL)/spin-check.sh
model-bench: tree
	$(MAKE) -C $(MODEL) KSRC=$(CURDIR)/build/linux O=$(CURDIR)/build/model bench
selftests:
	$(S)/selftests.sh build && $(S)/selftests.sh run
mutants:
	$(S)/mutants.sh
kunit: tree
	$(S)/kunit.sh
lint: build
	$(S)/lint.sh
bench: tree
	bench/uml/run.sh $(BENCH_ARGS)
bench-guest: build build-base
	KERNELS="$${KERNELS:-$$(bench/kernels.sh)}" bench/run.sh
bench-smoke:
	bench/test.sh
	OUT=build/bench-smoke KERNELS="final=build/images/final/$(CONFIG)/bzImage" bench/run.sh --smoke
	bench/uml/run.sh --smoke --kernels final=work --cpus "1 2" --out build/bench-smoke-uml
readsizes: tree
	bench/readsizes/trace.sh $(READSIZES_ARGS)
kvm-bundle: build build-base
	bench/kvm-bundle.sh
soak: tree
	$(S)/soak.sh $(SOAK_ARGS)
soak-mutant: tree
	$(S)/soak.sh --mutant no-defer --host-load $$(nproc) --fs tmpfs --files 1 --size 65536 --reads 5000000 --seconds 900 --round-ms 10000 $(SOAK_ARGS)
send-check: tree
	$(S)/post.sh check
send: tree
	$(S)/post.sh send
