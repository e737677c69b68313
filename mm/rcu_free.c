// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred freeing of PG_rcu_free page cache folios.
 *
 * A page cache folio with PG_rcu_free set may be read by lockless readers
 * that found it in the page cache under rcu_read_lock() and hold no
 * reference to it.  When such a folio is freed, the page allocator must
 * not get it back (and reuse it, poison it, zero it or unmap it from the
 * direct map) before those readers are done.  __free_frozen_pages() and
 * free_unref_folios() therefore hand flagged folios to this file before
 * __free_pages_prepare() touches them.
 *
 * Deferred folios are collected on a per-CPU chain, linked through
 * folio->private, with interrupts disabled.  Nothing is allocated: the
 * first folio of a batch carries the rcu_head (page->rcu_head overlays
 * page->lru, which is unused once the folio is off the LRU).  A batch is
 * handed to call_rcu_hurry() once it holds RCU_FREE_BATCH folios or
 * RCU_FREE_BATCH_PAGES pages, or from a lazy irq_work at the next tick (by
 * a CPU hotplug callback if the CPU goes offline first).  The RCU callback
 * clears PG_rcu_free and frees the folios through free_unref_folios(); if
 * freeing writes every page (init_on_free, page poisoning), it queues the
 * chain for a work item that does so in process context.
 * ->mapping and ->index are left alone, so a late lockless reader still
 * sees stale but self-consistent values and fails its revalidation.
 *
 * What waits for a grace period is bounded: past rcu_free_max_pages in
 * flight, batches go to a worker that waits for an expedited grace period
 * (synchronize_rcu_expedited()) in process context and frees them there,
 * and the paths that free page cache in bulk and may sleep hold back:
 * truncation, invalidation, migration and khugepaged's collapse wait in
 * rcu_free_throttle() after a batch with flagged folios, until half the
 * limit or less is in flight.  Pages in flight are counted in MemAvailable
 * (si_mem_available()).
 *
 * Callers that need the memory now (page isolation and compaction that
 * isolated flagged folios, memory failure, the page allocator before it
 * calls the OOM killer, a memcg charge before its OOM killer if flagged
 * folios are charged to the memcg) call rcu_free_folios_drain().  A
 * deferred folio is counted in its memcg's "rcu_free" (memory.stat) until
 * it is freed and uncharged.
 */

#include <linux/cpuhotplug.h>
#include <linux/folio_batch.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/memblock.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "page_alloc.h"

/*
 * Hand a per-CPU chain to RCU once it holds this many folios, or this many
 * pages (2 MiB with 4 KiB pages): a chain then holds less than 2 MiB plus
 * one folio, and an RCU callback, which runs in softirq context, frees no
 * more than that, whatever the folio size.  A PMD-sized folio is a batch
 * of its own.
 */
#define RCU_FREE_BATCH		64
#define RCU_FREE_BATCH_PAGES	(SZ_2M / PAGE_SIZE)

struct rcu_free_pcp {
	struct folio *head;		/* chained through folio->private */
	unsigned int nr;		/* folios on the chain */
	unsigned long nr_pages;		/* pages on the chain */
	struct irq_work work;
};

/*
 * Pages of the batches submitted and not yet freed.  One global count,
 * changed once per batch, so that rcu_free_folios_drain() can tell exactly
 * whether it must wait, and rcu_free_submit() whether the bound is passed.
 */
static atomic_long_t rcu_free_held = ATOMIC_LONG_INIT(0);

/*
 * The bound on rcu_free_held: 1/256 of RAM, at least 8 MiB (set at boot).
 * A batch submitted past it goes to rcu_free_expedite_fn().
 */
static unsigned long rcu_free_max_pages __read_mostly = SZ_8M / PAGE_SIZE;

/* More pages in flight than the limit. */
static bool rcu_free_over_limit(void)
{
	return atomic_long_read(&rcu_free_held) > READ_ONCE(rcu_free_max_pages);
}

/*
 * A throttled task goes on once half the limit or less is in flight, so
 * that tasks woken together do not take it past the limit again at once,
 * sending every following batch to an expedited grace period.
 */
static bool rcu_free_resume(long held)
{
	return held <= READ_ONCE(rcu_free_max_pages) / 2;
}

/* Tasks in rcu_free_throttle(), woken at half the limit in flight. */
static DECLARE_WAIT_QUEUE_HEAD(rcu_free_throttle_wq);

static LLIST_HEAD(rcu_free_expedite_list);
static struct workqueue_struct *rcu_free_wq __ro_after_init;
static void rcu_free_expedite_fn(struct work_struct *work);
static DECLARE_WORK(rcu_free_expedite_work, rcu_free_expedite_fn);

static void rcu_free_irq_work(struct irq_work *work);

static DEFINE_PER_CPU(struct rcu_free_pcp, rcu_free_pcp) = {
	.work = IRQ_WORK_INIT_LAZY(rcu_free_irq_work),
};

/*
 * A deferred folio keeps its memcg charge until it is freed, and is counted
 * in its memcg's MEMCG_RCU_FREE ("rcu_free" in memory.stat) until then: a
 * charge that fails may wait for the folios of its memcg, and only for
 * them.  A folio that migration replaced has no memcg: its charge went to
 * the new folio.
 */
static void rcu_free_account(struct folio *folio, long nr_pages)
{
	struct mem_cgroup *memcg;

	rcu_read_lock();
	memcg = folio_memcg(folio);
	if (memcg)
		mod_memcg_state(memcg, MEMCG_RCU_FREE, nr_pages);
	rcu_read_unlock();
}

/*
 * The folios kept their memcg charge while they waited (see
 * rcu_free_folio_keeps_charge()); PG_rcu_free is clear now, so this
 * uncharges them.
 */
static void rcu_free_batch(struct folio_batch *fbatch)
{
	mem_cgroup_uncharge_folios(fbatch);
	free_unref_folios(fbatch);
}

/*
 * Free a chain: an RCU grace period has elapsed since its last folio was
 * deferred.
 */
static void rcu_free_chain(struct folio *folio)
{
	struct folio_batch fbatch;
	long nr_pages = 0;

	folio_batch_init(&fbatch);
	while (folio) {
		struct folio *next = folio->private;

		folio->private = NULL;
		rcu_free_account(folio, -folio_nr_pages(folio));
		/*
		 * Atomically: memory_failure() may set PG_hwpoison on a free
		 * page at any time.
		 */
		folio_clear_rcu_free(folio);
		nr_pages += folio_nr_pages(folio);
		if (!folio_batch_add(&fbatch, folio))
			rcu_free_batch(&fbatch);
		folio = next;
	}
	if (folio_batch_count(&fbatch))
		rcu_free_batch(&fbatch);

	count_vm_events(PGCACHE_RCU_FREED, nr_pages);
	/* Pairs with the acquire in rcu_free_folios_drain(). */
	if (rcu_free_resume(atomic_long_sub_return_release(nr_pages,
							   &rcu_free_held)) &&
	    wq_has_sleeper(&rcu_free_throttle_wq))
		wake_up_all(&rcu_free_throttle_wq);
}

/*
 * Chains whose grace period has elapsed and whose freeing writes every page
 * (init_on_free, page poisoning): up to 4 MiB less a page each, which
 * would take far too long for softirq context.  A work item frees them.
 */
static bool rcu_free_writes_pages __read_mostly;
static LLIST_HEAD(rcu_free_done_list);

static void rcu_free_done_fn(struct work_struct *work)
{
	struct llist_node *batches = llist_del_all(&rcu_free_done_list);
	struct folio *head, *next;

	llist_for_each_entry_safe(head, next, batches, page.pcp_llist) {
		rcu_free_chain(head);
		cond_resched();
	}
}

static DECLARE_WORK(rcu_free_done_work, rcu_free_done_fn);

/*
 * The grace period of the chain @head has elapsed: free it now, or queue
 * it for rcu_free_done_fn() if freeing it writes every page.  Returns
 * true if it was freed here.
 */
static bool rcu_free_chain_or_queue(struct folio *head)
{
	if (!READ_ONCE(rcu_free_writes_pages) || !rcu_free_wq) {
		rcu_free_chain(head);
		return true;
	}
	/* Through page->pcp_llist: RCU is done with page->rcu_head. */
	llist_add(&head->page.pcp_llist, &rcu_free_done_list);
	queue_work(rcu_free_wq, &rcu_free_done_work);
	return false;
}

static void rcu_free_folios_cb(struct rcu_head *rcu)
{
	rcu_free_chain_or_queue(container_of(rcu, struct folio, page.rcu_head));
}

/*
 * Batches submitted past the bound: one expedited grace period for all of
 * them, in process context, so that neither the memory nor the freeing
 * (which zeroes the pages with init_on_free) waits on softirq.
 */
static void rcu_free_expedite_fn(struct work_struct *work)
{
	struct llist_node *batches = llist_del_all(&rcu_free_expedite_list);
	struct folio *head, *next;
	unsigned long nr = 0;

	if (!batches)
		return;
	synchronize_rcu_expedited();
	llist_for_each_entry_safe(head, next, batches, page.pcp_llist) {
		rcu_free_chain(head);
		nr++;
		cond_resched();
	}
	count_vm_events(PGCACHE_RCU_EXPEDITED, nr);
}

/* Must be called with interrupts disabled. */
static void rcu_free_submit(struct rcu_free_pcp *pcp)
{
	struct folio *head = pcp->head;

	if (!head)
		return;
	if (atomic_long_add_return(pcp->nr_pages, &rcu_free_held) >
	    READ_ONCE(rcu_free_max_pages) && rcu_free_wq) {
		/* Linked through page->pcp_llist, which overlays ->lru too. */
		llist_add(&head->page.pcp_llist, &rcu_free_expedite_list);
		queue_work(rcu_free_wq, &rcu_free_expedite_work);
	} else {
		/*
		 * Not lazy: RCU_LAZY could otherwise keep the memory away
		 * from the page allocator for seconds.
		 */
		call_rcu_hurry(&head->page.rcu_head, rcu_free_folios_cb);
	}
	/*
	 * Counted and queued before the chain looks empty: pairs with the
	 * smp_mb() in rcu_free_folios_drain(), whose rcu_barrier() and
	 * flush_work() must see the callback or the work.
	 */
	smp_mb();
	WRITE_ONCE(pcp->head, NULL);
	pcp->nr = 0;
	pcp->nr_pages = 0;
}

static void rcu_free_irq_work(struct irq_work *work)
{
	unsigned long flags;

	local_irq_save(flags);
	rcu_free_submit(this_cpu_ptr(&rcu_free_pcp));
	local_irq_restore(flags);
}

/* Submit the chain of a CPU that went offline: nobody else touches it. */
static int rcu_free_cpu_dead(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	rcu_free_submit(per_cpu_ptr(&rcu_free_pcp, cpu));
	local_irq_restore(flags);
	return 0;
}

static int __init rcu_free_init(void)
{
	int ret;

	WRITE_ONCE(rcu_free_max_pages, max(totalram_pages() / 256,
					   SZ_8M / PAGE_SIZE));
	WRITE_ONCE(rcu_free_writes_pages,
		   want_init_on_free() || page_poisoning_enabled_static());
	/* WQ_MEM_RECLAIM: it runs when memory is short, and frees memory. */
	rcu_free_wq = alloc_workqueue("rcu_free", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      1);
	WARN_ON(!rcu_free_wq);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "mm/rcu_free:dead",
					NULL, rcu_free_cpu_dead);
	WARN_ON(ret < 0);
	return 0;
}
core_initcall(rcu_free_init);

/**
 * rcu_free_defer_folio - Free a PG_rcu_free folio after an RCU grace period.
 * @folio: The folio, with a refcount of zero, not yet prepared for freeing.
 *
 * Called by the page allocator for a folio that has PG_rcu_free set.  May
 * be called from any context but NMI, including with interrupts disabled.
 */
void rcu_free_defer_folio(struct folio *folio)
{
	long nr_pages = folio_nr_pages(folio);
	struct rcu_free_pcp *pcp;
	unsigned long flags;

	rcu_free_account(folio, nr_pages);
	local_irq_save(flags);
	pcp = this_cpu_ptr(&rcu_free_pcp);
	folio->private = pcp->head;
	WRITE_ONCE(pcp->head, folio);
	pcp->nr_pages += nr_pages;
	if (++pcp->nr >= RCU_FREE_BATCH ||
	    pcp->nr_pages >= RCU_FREE_BATCH_PAGES)
		rcu_free_submit(pcp);
	else
		irq_work_queue(&pcp->work);
	local_irq_restore(flags);

	count_vm_events(PGCACHE_RCU_DEFERRED, nr_pages);
}

static bool rcu_free_cpu_has_chain(int cpu, void *info)
{
	return READ_ONCE(per_cpu_ptr(&rcu_free_pcp, cpu)->head);
}

/* IPI handler: interrupts are disabled. */
static void rcu_free_submit_ipi(void *info)
{
	rcu_free_submit(this_cpu_ptr(&rcu_free_pcp));
}

/**
 * rcu_free_folios_drain - Return RCU-deferred folios to the page allocator.
 *
 * Waits until every folio that was deferred before the call has been
 * handed back to the page allocator (it may sit on a per-CPU page list
 * afterwards, see drain_all_pages()).  Cheap if nothing is deferred.
 * Batches in flight are waited for with rcu_barrier() and, for those past
 * the bound or freed in process context, by flushing the work items.
 *
 * The chains of other CPUs are submitted from an IPI, not by waiting for
 * their lazy irq_work: that may not run before the next tick, and
 * irq_work_sync() of a lazy irq_work waits for an RCU grace period per
 * call on PREEMPT_RT.  Only CPUs with a chain are interrupted, and
 * rcu_barrier() is called only while a batch is in flight.
 *
 * Context: Process context, may sleep.
 * Return: true if it waited for batches in flight.
 */
bool rcu_free_folios_drain(void)
{
	might_sleep();
	on_each_cpu_cond(rcu_free_cpu_has_chain, rcu_free_submit_ipi, NULL,
			 true);
	/*
	 * A chain found empty was counted and queued before it looked
	 * empty: pairs with the smp_mb() in rcu_free_submit().
	 */
	smp_mb();
	/* Then wait for the callbacks and the work of all submitted batches. */
	if (!atomic_long_read_acquire(&rcu_free_held))
		return false;
	rcu_barrier();
	flush_work(&rcu_free_expedite_work);
	/* Callbacks may have queued chains that free by writing every page. */
	flush_work(&rcu_free_done_work);
	count_vm_event(PGCACHE_RCU_DRAINS);
	return true;
}

/**
 * rcu_free_throttle - Wait while too many freed pages wait for RCU.
 *
 * Called by the paths that free page cache in bulk and may sleep
 * (truncation, invalidation, migration, khugepaged's collapse), after a
 * batch of folios of which some had PG_rcu_free: past the limit on the
 * pages in flight, the task waits (the worker that expedites them is
 * already queued) until half the limit or less is in flight, instead of
 * freeing more.  With a preempted RCU reader, that may be as long as the
 * reader stays preempted.  Each such task can thus add at most one batch
 * past the limit.  Two exceptions do not wait: reclaim (PF_MEMALLOC: a
 * shrinker that evicts an inode must not wait for a reader), and a task
 * with a fatal signal pending.
 *
 * Context: Process context, may sleep.
 */
void rcu_free_throttle(void)
{
	might_sleep();
	if (likely(!rcu_free_over_limit()))
		return;
	if (current->flags & PF_MEMALLOC)
		return;
	count_vm_event(PGCACHE_RCU_THROTTLED);
	wait_event_killable(rcu_free_throttle_wq,
			    rcu_free_resume(atomic_long_read(&rcu_free_held)));
}

/**
 * rcu_free_held_pages - Pages freed but waiting for an RCU grace period.
 *
 * Those of batches handed to RCU or to the expedite work; less than
 * RCU_FREE_BATCH_PAGES plus one folio more per CPU wait on the chains.
 * Return: the number of pages.
 */
unsigned long rcu_free_held_pages(void)
{
	return max(atomic_long_read(&rcu_free_held), 0L);
}

#ifdef CONFIG_PAGECACHE_RCU_FREE_KUNIT_TEST
#include "rcu_free_kunit.c"
#endif
