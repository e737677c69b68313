// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of mm/rcu_free.c: the per-CPU chains are all drained, a
 * deferred folio keeps its memcg charge until it is freed and a poisoned
 * one that is not deferred does not keep it, the chain of a CPU that goes
 * offline is freed, not lost, a chain is bounded in pages, not only in
 * folios, batches past the limit on what is in flight wait for an
 * expedited grace period and a freeing task past it waits, chains whose
 * freeing writes every page are freed in process context; and how long
 * freeing a chain at its bound and a drain take.  Built into
 * rcu_free.c (it includes this file), so it can see the per-CPU chains.
 *
 * The offline case builds the state that only PREEMPT_RT reaches, and only
 * in a narrow window: a chain whose lazy irq_work cannot run before the
 * CPU dies (the irq_work/N thread is parked first).  Without PREEMPT_RT,
 * smpcfd_dying_cpu() runs a pending lazy irq_work itself, so a chain with
 * its irq_work queued never outlives its CPU; the hotplug callback is what
 * frees one without.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/sort.h>

/*
 * A folio of @order with PG_rcu_free, frozen (refcount 0) as
 * __free_frozen_pages() gets it, or NULL.
 */
static struct folio *rcu_free_test_folio(unsigned int order)
{
	struct folio *folio = folio_alloc(GFP_KERNEL | __GFP_NOWARN, order);

	if (!folio)
		return NULL;
	folio_set_rcu_free(folio);
	if (!folio_put_testzero(folio))
		return NULL;	/* cannot happen: nobody else knows it */
	return folio;
}

/* On the CPU the chain belongs to, in an IPI, as from an interrupt. */
static void rcu_free_test_defer(void *folio)
{
	rcu_free_defer_folio(folio);
}

static bool rcu_free_test_chain_empty(unsigned int cpu)
{
	return !READ_ONCE(per_cpu_ptr(&rcu_free_pcp, cpu)->head);
}

/* rcu_free_folios_drain() submits the chain of every online CPU. */
static void rcu_free_test_drain(struct kunit *test)
{
	struct folio *folio;
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		folio = rcu_free_test_folio(0);
		if (folio)
			smp_call_function_single(cpu, rcu_free_test_defer,
						 folio, 1);
	}
	rcu_free_folios_drain();
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_TRUE_MSG(test, rcu_free_test_chain_empty(cpu),
				      "CPU %u still has a chain after the drain",
				      cpu);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rcu_free_held), 0);
}

/*
 * Take @cpu offline, leave a chain on it with no irq_work queued, bring it
 * back and take it offline again: the chain must be submitted.
 */
static void rcu_free_test_offline(struct kunit *test)
{
	struct rcu_free_pcp *pcp;
	unsigned long flags;
	struct folio *folio;
	unsigned int cpu;
	bool empty;
	int ret;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		kunit_skip(test, "needs CPU hotplug and two online CPUs");
	cpu = cpumask_last(cpu_online_mask);
	ret = remove_cpu(cpu);
	if (ret)
		kunit_skip(test, "CPU %u cannot go offline: %d", cpu, ret);

	folio = rcu_free_test_folio(0);
	if (!folio) {
		add_cpu(cpu);
		KUNIT_FAIL(test, "no memory for a test folio");
		return;
	}
	/* What rcu_free_defer_folio() does, but queueing no irq_work. */
	pcp = per_cpu_ptr(&rcu_free_pcp, cpu);
	local_irq_save(flags);
	folio->private = pcp->head;
	WRITE_ONCE(pcp->head, folio);
	pcp->nr++;
	pcp->nr_pages++;
	local_irq_restore(flags);
	count_vm_events(PGCACHE_RCU_DEFERRED, 1);

	KUNIT_ASSERT_EQ(test, add_cpu(cpu), 0);
	ret = remove_cpu(cpu);
	empty = rcu_free_test_chain_empty(cpu);
	if (!empty)	/* do not leak it: the test has failed already */
		rcu_free_cpu_dead(cpu);
	if (!ret)
		add_cpu(cpu);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, empty,
			      "the chain of CPU %u outlived it going offline",
			      cpu);
	rcu_free_folios_drain();
}

struct rcu_free_test_find {
	struct folio *folio;
	bool found;
};

/*
 * IPI handler: defer @arg->folio and tell whether it is on this CPU's chain
 * right after, with interrupts still disabled, so that the chain's lazy
 * irq_work cannot have submitted it in between.
 */
static void rcu_free_test_defer_find(void *arg)
{
	struct rcu_free_test_find *find = arg;
	struct folio *folio;

	rcu_free_defer_folio(find->folio);
	for (folio = this_cpu_read(rcu_free_pcp.head); folio;
	     folio = folio->private)
		if (folio == find->folio)
			find->found = true;
}

/*
 * A folio of RCU_FREE_BATCH_PAGES pages is handed to RCU at once: it does
 * not wait on the chain for 63 more, which would hold 64 times its size.
 */
static void rcu_free_test_bytes(struct kunit *test)
{
	struct rcu_free_test_find find = {};
	unsigned int cpu;

	find.folio = rcu_free_test_folio(get_order(RCU_FREE_BATCH_PAGES *
						   PAGE_SIZE));
	if (!find.folio)
		kunit_skip(test, "no free %lu KiB block",
			   RCU_FREE_BATCH_PAGES * PAGE_SIZE / SZ_1K);
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	smp_call_function_single(cpu, rcu_free_test_defer_find, &find, 1);
	cpus_read_unlock();
	KUNIT_EXPECT_FALSE_MSG(test, find.found,
			       "a %lu-page folio waits on the chain of CPU %u",
			       RCU_FREE_BATCH_PAGES, cpu);
	rcu_free_folios_drain();
}

/* The vm event @item summed over all CPUs, as /proc/vmstat shows it. */
static unsigned long rcu_free_test_events(enum vm_event_item item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[item];
	return sum;
}

/*
 * Past rcu_free_max_pages in flight, a batch goes to the expedite work,
 * not to call_rcu_hurry(), and the drain waits for that work too.
 */
static void rcu_free_test_limit(struct kunit *test)
{
	unsigned long max = READ_ONCE(rcu_free_max_pages);
	unsigned long before = rcu_free_test_events(PGCACHE_RCU_EXPEDITED);
	struct folio *folio;
	unsigned int cpu;

	if (!rcu_free_wq)
		kunit_skip(test, "no rcu_free workqueue");
	folio = rcu_free_test_folio(0);
	if (!folio)
		kunit_skip(test, "no memory for a test folio");
	WRITE_ONCE(rcu_free_max_pages, 0);
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	smp_call_function_single(cpu, rcu_free_test_defer, folio, 1);
	cpus_read_unlock();
	rcu_free_folios_drain();
	WRITE_ONCE(rcu_free_max_pages, max);

	KUNIT_EXPECT_GT_MSG(test, rcu_free_test_events(PGCACHE_RCU_EXPEDITED),
			    before,
			    "a batch past the bound was not expedited");
	KUNIT_EXPECT_TRUE_MSG(test, llist_empty(&rcu_free_expedite_list),
			      "the drain left batches on the expedite list");
}

/*
 * Past the limit, rcu_free_throttle() returns only once the pages in flight
 * are back at half of it, here zero.  The batch is submitted inside an RCU
 * read-side critical section, so it is still in flight when the section
 * ends, whatever the worker does.
 */
static void rcu_free_test_throttle(struct kunit *test)
{
	unsigned long max = READ_ONCE(rcu_free_max_pages);
	unsigned long before = rcu_free_test_events(PGCACHE_RCU_THROTTLED);
	struct folio *folio;
	unsigned long flags;
	bool over;

	if (!rcu_free_wq)
		kunit_skip(test, "no rcu_free workqueue");
	folio = rcu_free_test_folio(0);
	if (!folio)
		kunit_skip(test, "no memory for a test folio");
	WRITE_ONCE(rcu_free_max_pages, 0);
	rcu_read_lock();
	local_irq_save(flags);
	rcu_free_defer_folio(folio);
	rcu_free_submit(this_cpu_ptr(&rcu_free_pcp));
	local_irq_restore(flags);
	over = rcu_free_over_limit();
	rcu_read_unlock();
	rcu_free_throttle();
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&rcu_free_held), 0,
			    "rcu_free_throttle() returned with pages in flight past the limit");
	WRITE_ONCE(rcu_free_max_pages, max);
	rcu_free_folios_drain();

	KUNIT_EXPECT_TRUE_MSG(test, over, "a batch in flight was not past a limit of 0");
	KUNIT_EXPECT_GT(test, rcu_free_test_events(PGCACHE_RCU_THROTTLED), before);
}

/*
 * An order-0 folio charged to the memcg of this kthread (the root: enough
 * for memcg_data), or NULL after failing @test.
 */
static struct folio *rcu_free_test_charged_folio(struct kunit *test)
{
	struct folio *folio = folio_alloc(GFP_KERNEL | __GFP_NOWARN, 0);

	if (!folio) {
		KUNIT_FAIL(test, "no memory for a test folio");
		return NULL;
	}
	if (mem_cgroup_charge(folio, NULL, GFP_KERNEL)) {
		folio_put(folio);
		KUNIT_FAIL(test, "cannot charge a test folio");
		return NULL;
	}
	return folio;
}

/*
 * A charged folio freed with PG_rcu_free stays charged to its memcg while it
 * waits for its grace period, and is uncharged when it is really freed (a
 * folio still charged there is a bad page, which the console scan reports).
 */
static void rcu_free_test_memcg(struct kunit *test)
{
	struct folio *folio;
	bool charged;

	if (mem_cgroup_disabled())
		kunit_skip(test, "memory cgroups are disabled");
	folio = rcu_free_test_charged_folio(test);
	if (!folio)
		return;
	KUNIT_ASSERT_TRUE(test, folio_memcg_charged(folio));
	folio_set_rcu_free(folio);

	/* The grace period cannot end before rcu_read_unlock(). */
	rcu_read_lock();
	folio_put(folio);
	charged = folio_memcg_charged(folio);
	rcu_read_unlock();
	rcu_free_folios_drain();

	KUNIT_EXPECT_TRUE_MSG(test, charged,
			      "a deferred folio was uncharged before its grace period");
}

/*
 * An order-0 hwpoisoned folio is not deferred, so its last put must
 * uncharge it: nothing would later.  As soft offline does it to a clean
 * page cache folio (page_handle_poison()): PG_hwpoison, then the last
 * reference dropped.  The page then stays out of the allocator, as every
 * poisoned page does; the test leaves it there.
 */
static void rcu_free_test_memcg_hwpoison(struct kunit *test)
{
	struct folio *folio;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "no PG_hwpoison without CONFIG_MEMORY_FAILURE");
	if (mem_cgroup_disabled())
		kunit_skip(test, "memory cgroups are disabled");
	folio = rcu_free_test_charged_folio(test);
	if (!folio)
		return;
	folio_set_rcu_free(folio);
	SetPageHWPoison(&folio->page);
	folio_put(folio);

	KUNIT_EXPECT_FALSE_MSG(test, folio_memcg_charged(folio),
			       "a poisoned, not deferred folio kept its charge");
	KUNIT_EXPECT_EQ(test, folio_ref_count(folio), 0);
}

static int rcu_free_test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define RCU_FREE_TEST_ROUNDS	7

/*
 * Freeing a chain at its bound: RCU_FREE_BATCH - 1 folios of fewer than
 * RCU_FREE_BATCH_PAGES pages together, then one folio of
 * RCU_FREE_BATCH_PAGES pages, which would submit the chain.
 * rcu_free_chain() frees it here with bottom halves disabled, as
 * rcu_free_folios_cb() does in softirq context.  Every page must reach the
 * allocator; the time of each round goes to the log (min, median and max),
 * the number to quote for the longest RCU callback.  With init_on_free=1
 * the pages are zeroed first, which dominates: then the callback leaves
 * this work to rcu_free_done_fn() (see rcu_free_test_writes_pages()).
 */
static void rcu_free_test_callback_cost(struct kunit *test)
{
	unsigned int small = ilog2(RCU_FREE_BATCH_PAGES / RCU_FREE_BATCH);
	unsigned int big = get_order(RCU_FREE_BATCH_PAGES * PAGE_SIZE);
	u64 ns[RCU_FREE_TEST_ROUNDS];
	unsigned long nr_pages = 0, freed;
	int round, i;

	for (round = 0; round < RCU_FREE_TEST_ROUNDS; round++) {
		struct folio *head = NULL, *folio;
		u64 t0;

		nr_pages = 0;
		for (i = 0; i < RCU_FREE_BATCH; i++) {
			folio = rcu_free_test_folio(i < RCU_FREE_BATCH - 1 ?
						    small : big);
			if (!folio)
				break;
			folio->private = head;
			head = folio;
			nr_pages += folio_nr_pages(folio);
		}
		/*
		 * As rcu_free_defer_folio() and rcu_free_submit() count a
		 * chain they hand to RCU, so that the counters stay balanced.
		 */
		count_vm_events(PGCACHE_RCU_DEFERRED, nr_pages);
		atomic_long_add(nr_pages, &rcu_free_held);
		freed = rcu_free_test_events(PGCACHE_RCU_FREED);
		local_bh_disable();
		t0 = ktime_get_ns();
		rcu_free_chain(head);
		ns[round] = ktime_get_ns() - t0;
		local_bh_enable();
		if (i < RCU_FREE_BATCH)
			kunit_skip(test, "no memory for a chain at its bound (%d of %d folios)",
				   i, RCU_FREE_BATCH);
		freed = rcu_free_test_events(PGCACHE_RCU_FREED) - freed;
		KUNIT_ASSERT_GE_MSG(test, freed, nr_pages,
				    "a chain of %lu pages was not all freed",
				    nr_pages);
	}
	sort(ns, RCU_FREE_TEST_ROUNDS, sizeof(ns[0]), rcu_free_test_cmp_u64,
	     NULL);
	kunit_info(test, "chain at the bound: %d folios, %lu KiB, init_on_free=%d, freed in %s: %llu us (%llu-%llu) over %d rounds\n",
		   RCU_FREE_BATCH, nr_pages * PAGE_SIZE / SZ_1K,
		   want_init_on_free(),
		   READ_ONCE(rcu_free_writes_pages) ? "a work item" :
						      "the RCU callback",
		   div_u64(ns[RCU_FREE_TEST_ROUNDS / 2], 1000),
		   div_u64(ns[0], 1000), div_u64(ns[RCU_FREE_TEST_ROUNDS - 1], 1000),
		   RCU_FREE_TEST_ROUNDS);
}

/*
 * What one rcu_free_folios_drain() costs its caller (the allocator and
 * memcg charge before their OOM killers, compaction, alloc_contig_range(),
 * offlining, memory failure; pgcache_rcu_drains counts those that found
 * batches in flight): with a folio deferred on every online CPU (a tick
 * may submit a chain first), the IPIs, an rcu_barrier() (mostly a grace
 * period) and the work flushes; with nothing in flight, the check alone.
 * The times go to the log (median, min and max).
 */
static void rcu_free_test_drain_cost(struct kunit *test)
{
	u64 busy[RCU_FREE_TEST_ROUNDS], idle[RCU_FREE_TEST_ROUNDS], t0;
	unsigned int cpu, nr_cpus = 0;
	bool waited, waited_idle;
	struct folio *folio;
	int round;

	for (round = 0; round < RCU_FREE_TEST_ROUNDS; round++) {
		cpus_read_lock();
		nr_cpus = 0;
		for_each_online_cpu(cpu) {
			folio = rcu_free_test_folio(0);
			if (!folio) {
				/* Never assert with the hotplug lock held. */
				cpus_read_unlock();
				rcu_free_folios_drain();
				KUNIT_FAIL(test, "no memory for a test folio");
				return;
			}
			smp_call_function_single(cpu, rcu_free_test_defer,
						 folio, 1);
			nr_cpus++;
		}
		t0 = ktime_get_ns();
		waited = rcu_free_folios_drain();
		busy[round] = ktime_get_ns() - t0;
		cpus_read_unlock();
		t0 = ktime_get_ns();
		waited_idle = rcu_free_folios_drain();
		idle[round] = ktime_get_ns() - t0;
		KUNIT_EXPECT_TRUE_MSG(test, waited,
				      "a drain with folios in flight did not wait");
		KUNIT_EXPECT_FALSE_MSG(test, waited_idle,
				       "a drain with nothing in flight waited");
	}
	sort(busy, RCU_FREE_TEST_ROUNDS, sizeof(busy[0]), rcu_free_test_cmp_u64,
	     NULL);
	sort(idle, RCU_FREE_TEST_ROUNDS, sizeof(idle[0]), rcu_free_test_cmp_u64,
	     NULL);
	kunit_info(test, "drain: %llu us (%llu-%llu) with a folio on each of %u CPUs' chains, %llu ns (%llu-%llu) with nothing in flight, over %d rounds\n",
		   div_u64(busy[RCU_FREE_TEST_ROUNDS / 2], 1000),
		   div_u64(busy[0], 1000),
		   div_u64(busy[RCU_FREE_TEST_ROUNDS - 1], 1000), nr_cpus,
		   idle[RCU_FREE_TEST_ROUNDS / 2], idle[0],
		   idle[RCU_FREE_TEST_ROUNDS - 1], RCU_FREE_TEST_ROUNDS);
}

/*
 * Where freeing a chain writes every page (init_on_free, page poisoning),
 * the RCU callback does not free it in softirq context but queues it for
 * rcu_free_done_fn(); otherwise it frees it at once.  Either way every
 * page reaches the allocator, and rcu_free_folios_drain() waits for it.
 */
static void rcu_free_test_writes_pages(struct kunit *test)
{
	bool writes = READ_ONCE(rcu_free_writes_pages);
	int round;

	if (!rcu_free_wq)
		kunit_skip(test, "no rcu_free workqueue");
	for (round = 0; round < 2; round++) {
		struct folio *folio = rcu_free_test_folio(0);
		unsigned long freed;
		bool here;

		KUNIT_ASSERT_NOT_NULL(test, folio);
		WRITE_ONCE(rcu_free_writes_pages, round == 1);
		folio->private = NULL;
		/* As rcu_free_test_callback_cost() does */
		count_vm_events(PGCACHE_RCU_DEFERRED, 1);
		atomic_long_add(1, &rcu_free_held);
		freed = rcu_free_test_events(PGCACHE_RCU_FREED);
		local_bh_disable();
		here = rcu_free_chain_or_queue(folio);
		local_bh_enable();
		flush_work(&rcu_free_done_work);
		KUNIT_EXPECT_EQ_MSG(test, here, round == 0,
				    "freeing writes every page: %d, but the chain was %s",
				    round == 1, here ? "freed in the callback" :
						       "queued for the work item");
		freed = rcu_free_test_events(PGCACHE_RCU_FREED) - freed;
		KUNIT_EXPECT_GE_MSG(test, freed, 1UL, "the chain was not freed");
	}
	WRITE_ONCE(rcu_free_writes_pages, writes);
}

static struct kunit_case rcu_free_test_cases[] = {
	KUNIT_CASE(rcu_free_test_drain),
	KUNIT_CASE(rcu_free_test_memcg),
	KUNIT_CASE(rcu_free_test_memcg_hwpoison),
	KUNIT_CASE(rcu_free_test_bytes),
	KUNIT_CASE(rcu_free_test_limit),
	KUNIT_CASE(rcu_free_test_throttle),
	KUNIT_CASE(rcu_free_test_callback_cost),
	KUNIT_CASE(rcu_free_test_drain_cost),
	KUNIT_CASE(rcu_free_test_writes_pages),
	KUNIT_CASE_SLOW(rcu_free_test_offline),
	{}
};

static struct kunit_suite rcu_free_test_suite = {
	.name = "rcu_free",
	.test_cases = rcu_free_test_cases,
};

kunit_test_suite(rcu_free_test_suite);
