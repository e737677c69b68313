/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Spin (Promela) model of the lockless page cache read protocol:
 * filemap_fast_copy() in mm/filemap_fast.h, called by filemap_read_fast()
 * in mm/filemap.c, against truncation/hole punching, the PG_rcu_free
 * deferred free path (mm/rcu_free.c) and reuse of freed folios.
 *
 * Check with tools/testing/pagecache-model/spin-check.sh, or by hand:
 *   spin -a pagecache.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m10000
 * Mutants, each of which must produce a counterexample:
 *   spin -DNO_DEFER -a pagecache.pml       flagged folios are freed at once
 *   spin -DNO_REVALIDATE -a pagecache.pml  skip step 6 (revalidation): this
 *                                          one must verify, since P1, P2 and
 *                                          P4 rest on steps 2 and 2b alone
 *   spin -DNO_FLAG_CHECK -a pagecache.pml  skip step 2 (PG_rcu_free test)
 *   spin -DNO_RELOAD -a pagecache.pml      skip step 2b (xas_reload before
 *                                          the copy): validated only after
 * The split scenario (see "Split scenario" below) replaces all of the
 * processes with a splitter and a reader of a large folio:
 *   spin -DSPLIT -a pagecache.pml          must verify
 *   spin -DSPLIT -DTRUST_NR -a pagecache.pml  the size read without a
 *                                          reference bounds the copy alone
 *                                          (no filemap_fast_maps()): must
 *                                          produce a counterexample
 * Other knobs: NO_REFILL (the reuser never refills the reader's slot),
 * NO_P2 (drop the use-after-free assertion, e.g. to see that
 * NO_FLAG_CHECK also breaks P1), NO_P4 (drop the per-cell data assertion),
 * and the bounds below.
 * Readable counterexample: spin -t [-p] [-DMUTANT] pagecache.pml (the
 * printf()s narrate each step; pan does not execute them).
 * Termination of the reader as an LTL property:
 *   spin -DLTL_TERMINATION -a pagecache.pml && gcc -O2 -o pan pan.c &&
 *   ./pan -a -m10000
 *
 * Mapping to the kernel code (Linux 7.3 with the series)
 * ------------------------------------------------------
 * proctype reader()      filemap_read_fast() -> filemap_fast_copy():
 *   rcu_lock              rcu_read_lock() in filemap_read_fast()
 *   step 1                folio = xas_load(&xas); hole/value -> NOT_FOUND
 *   step 2                test_bit_acquire(PG_rcu_free, &folio->flags.f),
 *                         clear -> NOT_HOT
 *   step 2b               xas_reload() != folio -> CHANGED
 *   step 3                folio_test_uptodate() -> NOT_UPTODATE;
 *                         index - folio->index >= nr_pages -> CHANGED
 *   step 4                isize = i_size_read(inode); pos >= isize -> EOF
 *   step 5                copy_page_to_iter_nofault(): NC cells, each
 *                         read by its own statement, straight to the
 *                         user's buffer (buf), reverted on failure
 *   step 6                smp_rmb(); xas_reload() == folio,
 *                         folio->mapping == mapping, folio_test_uptodate(),
 *                         i_size_read() == isize, else CHANGED
 *   rcu_unlock            rcu_read_unlock(); buf counts as read only on
 *                         FILEMAP_FAST_COPIED
 * proctype remover()     truncate_setsize() (i_size_write, then
 *                         truncate_pagecache()) or a hole punch
 *                         (truncate_inode_pages_range()) ->
 *                         truncate_inode_folio() -> filemap_remove_folio()
 *                         -> page_cache_delete() (slot cleared,
 *                         folio->mapping = NULL, ->index kept), then
 *                         folio_put() of the page cache reference
 * inline put()           folio_put() -> __folio_put() ->
 *                         __free_frozen_pages()/free_unref_folios() ->
 *                         rcu_free_folio_deferred():
 *                         PG_rcu_free set -> rcu_free_defer_folio()
 *                         (call_rcu_hurry), else free_pages_prepare() and
 *                         the page allocator at once (free_body())
 * proctype rcu_callbacks() rcu_free_folios_cb(): after a grace period,
 *                         folio_clear_rcu_free() and free_unref_folios()
 * inline free_body()     free_pages_prepare() + buddy/pcp: the data is
 *                         poisoned (page poisoning, init_on_free, or simply
 *                         the next user), the flags are cleared, and the
 *                         folio goes to the free list
 * proctype reuser()      filemap_alloc_folio() of a free folio,
 *                         __filemap_add_folio() (mapping, index, slot store;
 *                         locked, not uptodate), read I/O fills the data,
 *                         folio_mark_uptodate(), then optionally a second
 *                         read makes it hot: filemap_read_mark_hot() ->
 *                         folio_set_rcu_free().  Targets: another file
 *                         (B0, foreign "secret" data), the same file at
 *                         another index (A1), or, after a hole punch or
 *                         truncation, the reader's slot A0 again with the
 *                         file's data (a re-read, or a write extending
 *                         i_size) unless NO_REFILL is defined.
 * proctype marker()      filemap_read() -> filemap_read_mark_accessed() ->
 *                         filemap_read_mark_hot(): with a reference taken
 *                         by the page cache lookup (filemap_get_read_batch:
 *                         folio_try_get + xas_reload, modelled as one
 *                         atomic lookup-and-get), test PG_rcu_free and set
 *                         it, then folio_put()
 *
 * RCU is modelled by a per-reader flag (bit r of rcu_readers) that is set
 * by rcu_read_lock() and cleared by rcu_read_unlock(), and by a per-folio
 * snapshot gpwait of rcu_readers taken when the folio is deferred
 * (call_rcu).  The callback may run once every reader in the snapshot has
 * left its critical section (rcu_read_unlock() clears its bit in every
 * snapshot).  Waiting for exactly the readers that were inside a critical
 * section at call_rcu() time is the weakest grace period that RCU allows.
 *
 * Properties
 * ----------
 * P1 (assert in reader, after rcu_read_unlock): a copy returned as
 *    FILEMAP_FAST_COPIED holds only data that the file held at that
 *    position (D_A0) -- no foreign (D_SECRET, D_A1) or poison data.
 * P2 (assert in reader, at each cell read): once the reader has passed
 *    step 2 (it saw PG_rcu_free on the folio), the folio it copies from is
 *    not free and has not been freed since then (ghost bits watch/uaf, so
 *    a free followed by reuse is caught too).  In the NO_FLAG_CHECK mutant
 *    step 2 is passed without a test, so P2 then covers every copy.
 * P4 (assert in reader, at each cell read): the cell copied holds the
 *    file's data at that position (D_A0), whatever the revalidation
 *    decides later: the copy goes straight to the user's buffer, which
 *    another thread can read at once.  Needs step 2 and step 2b before
 *    the copy; NO_RELOAD breaks it (a folio freed unflagged, reused for
 *    file B and flagged there passes step 2).
 * P3 valid end states only (pan's invalid end state check, in the SAFETY
 *    run): nothing deadlocks, every process ends or waits at an end label;
 *    the reader has no end labels and no loops, so it always terminates.
 *    All processes run a bounded number of steps, so the state graph is
 *    acyclic.  With -DLTL_TERMINATION the model also carries
 *    ltl reader_terminates { <> (reader_done == NR) }, checked with
 *    ./pan -a.
 *
 * Bounds (defaults; override with spin -DNAME=value)
 * ------
 *   NR = 1 reader (one filemap_fast_copy() call), one remover with up to
 *   REMOVES = 2 removals, one reuser with up to REUSES = 2 allocations,
 *   one hot-marker (one marking), NF = 3 folios, NC = 2 data cells.
 *   Slots: file A index 0 (A0, read by the reader), file A index 1 (A1),
 *   file B index 0 (B0).  Initially folio 0 is in A0, uptodate, with or
 *   without PG_rcu_free (chosen nondeterministically); folios 1 and 2
 *   are free.  i_size of file A is one page (1) or 0 after truncation.
 *
 * Not modelled / simplified
 * -------------------------
 * - Memory ordering: Spin interleaves statements with sequential
 *   consistency, which is stronger than the kernel's test_bit_acquire(),
 *   smp_rmb(), xa_store()/folio_mark_uptodate() release ordering.  The
 *   model checks the protocol logic assuming those barriers give their
 *   intended ordering; it does not check that the barriers suffice on a
 *   weakly ordered CPU.
 * - Only order-0 folios, no migration: the index check of step 3 is
 *   folio->index == index.  Large folios and their split are in the
 *   separate split scenario (-DSPLIT), which has no removal, reuse,
 *   freeing or RCU: the folio being split is frozen and the others are
 *   not touched.
 * - i_size is one bit per file (0 or one page); no partial-page lengths,
 *   no clamping of len, no i_size changes other than truncation to 0 and
 *   a write extending it again.
 * - PG_readahead, PG_dropbehind, the LRU state test
 *   (filemap_fast_accessed(): PG_referenced, PG_active, PG_workingset,
 *   the MGLRU tier), PG_hwpoison, shadow/value entries, xas_retry(), the
 *   folio lock and the writeback state are not modelled; they only add
 *   fall-back paths.  The C model (model.c) checks the LRU and
 *   PG_dropbehind tests.
 * - Reference counting is a plain counter (page cache ref, the reuser's
 *   allocation ref, the marker's ref); folio_try_get() races with a zero
 *   refcount are hidden inside the atomic lookup of the marker.
 * - The per-CPU batching of rcu_free.c (rcu_free_pcp, irq_work,
 *   RCU_FREE_BATCH, rcu_free_folios_drain()) is one callback per folio,
 *   each with the weakest legal grace period.
 * - Steps made atomic to keep the state space small: the reuser fills
 *   all cells in one step (in the correct model only readers that did
 *   not see PG_rcu_free on the new folio can look at it then, and they
 *   fall back before copying); the marker's test-and-set of PG_rcu_free is
 *   one step; folio_put() (refcount drop, flag test, defer or free) is
 *   one step, which is exact because PG_rcu_free is only set with a
 *   reference held.  The reader's reads are all separate steps.
 * - PG_uptodate is never cleared on a folio in the page cache, so in the
 *   correct model the uptodate test of the revalidation cannot fail (pan
 *   lists it as unreached); it can in the NO_FLAG_CHECK mutant.
 * - Hole punch, truncation and the reuser's refill of A0 stand for the
 *   other ways a folio leaves a slot and another one enters it: reclaim
 *   and invalidation look the same to the reader; migration's single
 *   slot replacement is covered by removal + refill with nothing in
 *   between, but its copying of data and flags is not modelled.
 * - Data values stand for whole contents: D_A0 is the data of file A at
 *   index 0 (any version; concurrent writes are not modelled), D_A1 of
 *   file A at index 1, D_SECRET of file B, D_POISON of freed memory.
 */

#ifndef NF
#define NF 3		/* folios (2 or 3) */
#endif
#ifndef NC
#define NC 2		/* data cells per folio */
#endif
#ifndef NR
#define NR 1		/* readers (1 or 2) */
#endif
#ifndef REUSES
#define REUSES 2	/* allocations by the reuser */
#endif
#ifndef REMOVES
#define REMOVES 2	/* removals by the remover */
#endif

#define NIL		255

/* Page cache slots */
#define A0		0	/* file A, index 0: what the reader reads */
#define A1		1	/* file A, index 1 */
#define B0		2	/* file B, index 0 */
#define NSLOTS		3

/* folio->mapping */
#define NOFILE		0
#define FILE_A		1
#define FILE_B		2

/* Cell contents */
#define D_A0		1	/* file A data at index 0 */
#define D_A1		2	/* file A data at index 1 */
#define D_SECRET	3	/* file B data: foreign to the reader */
#define D_POISON	4	/* freed memory */

/* Folio life cycle */
#define S_FREE		0	/* owned by the page allocator */
#define S_USED		1	/* allocated, refcount > 0 */
#define S_DEFERRED	2	/* refcount 0, waiting for an RCU grace period */

/* folio->flags.f */
#define PG_RCU_FREE	1
#define PG_UPTODATE	2

/* Reader results (enum filemap_fast_status) */
#define COPIED		0
#define EOF		1
#define NOT_FOUND	2
#define NOT_HOT		3
#define NOT_UPTODATE	4
#define CHANGED		5

#define slot_file(s)	((s) == B0 -> FILE_B : FILE_A)
#define slot_index(s)	((s) == A1 -> 1 : 0)
#define slot_data(s)	((s) == A0 -> D_A0 : ((s) == A1 -> D_A1 : D_SECRET))

typedef folio_t {
	byte state;
	byte flags;
	byte mapping;
	byte index;
	byte ref;
	byte gpwait;		/* readers its grace period waits for */
	byte data[NC];
};

mtype = { remover_, reuser_, marker_ };	/* who calls put(), for printf */

folio_t folio[NF];
byte slot[NSLOTS];		/* the XArray slots */
byte isize_A;			/* i_size of file A, in pages */
byte rcu_readers;		/* bit r: reader r is in a read-side section */
byte reader_done;		/* readers that have returned */

/* Ghost state for P2 */
byte watch[NR];			/* folio that reader r relies on PG_rcu_free for */
bit uaf[NR];			/* ... and that folio was freed since */

#if NF > 2
#define have_free	(folio[0].state == S_FREE || folio[1].state == S_FREE || \
			 folio[2].state == S_FREE)
#else
#define have_free	(folio[0].state == S_FREE || folio[1].state == S_FREE)
#endif

/*
 * free_pages_prepare() and the page allocator: poison, clear the flags,
 * put on the free list.  Use inside a d_step; needs a local byte i.
 */
inline free_body(f)
{
	i = 0;
	do
	:: i < NC -> folio[f].data[i] = D_POISON; i++
	:: else -> break
	od;
	folio[f].flags = 0;
	folio[f].state = S_FREE;
	folio[f].gpwait = 0;
	i = 0;
	do
	:: i < NR ->
		if
		:: watch[i] == f -> uaf[i] = 1
		:: else
		fi;
		i++
	:: else -> break
	od;
	i = 0
}

/*
 * folio_put(): the last reference frees the folio, through
 * rcu_free_folio_deferred() in __free_frozen_pages()/free_unref_folios().
 * Nobody can set PG_rcu_free between the refcount reaching zero and the
 * flag test (setting it needs a reference), so this is one step.
 */
inline put(who, f)
{
	d_step {
		folio[f].ref--;
		if
		:: folio[f].ref == 0 ->
#ifndef NO_DEFER
			if
			:: (folio[f].flags & PG_RCU_FREE) != 0 ->
				/* rcu_free_defer_folio(): call_rcu_hurry() */
				folio[f].state = S_DEFERRED;
				folio[f].gpwait = rcu_readers;
				printf("%e: folio_put(folio %d): last ref, PG_rcu_free -> deferred, waits for readers mask %d\n",
				       who, f, rcu_readers)
			:: else ->
				free_body(f);
				printf("%e: folio_put(folio %d): last ref, not PG_rcu_free -> freed now (poisoned)\n",
				       who, f)
			fi
#else
			printf("%e: folio_put(folio %d): last ref, flags %d -> freed now (poisoned) [NO_DEFER]\n",
			       who, f, folio[f].flags);
			free_body(f)
#endif
		:: else ->
			printf("%e: folio_put(folio %d): ref now %d\n", who, f, folio[f].ref)
		fi
	}
}

/* rcu_free_folios_cb(): runs once the grace period of the folio is over */
proctype rcu_callbacks()
{
	byte i;
end_cb:
	do
	:: d_step { folio[0].state == S_DEFERRED && folio[0].gpwait == 0 ->
			free_body(0);
			printf("rcu_cb: grace period over, folio 0 freed (poisoned)\n") }
	:: d_step { folio[1].state == S_DEFERRED && folio[1].gpwait == 0 ->
			free_body(1);
			printf("rcu_cb: grace period over, folio 1 freed (poisoned)\n") }
#if NF > 2
	:: d_step { folio[2].state == S_DEFERRED && folio[2].gpwait == 0 ->
			free_body(2);
			printf("rcu_cb: grace period over, folio 2 freed (poisoned)\n") }
#endif
	od
}

/* filemap_read_fast() -> filemap_fast_copy() for file A, index 0 */
proctype reader(byte r)
{
	byte f, isize, c, status, i;
	byte buf[NC];
	bit protected = 0;

	d_step {					/* rcu_read_lock() */
		rcu_readers = rcu_readers | (1 << r);
		printf("reader%d: rcu_read_lock()\n", r)
	}

	/* (1) xas_load() */
	d_step {
		f = slot[A0];
		printf("reader%d: (1) xas_load(A0) = folio %d\n", r, f)
	}
	if
	:: f == NIL -> status = NOT_FOUND; goto unlock
	:: else
	fi;

	/* (2) test_bit_acquire(PG_rcu_free): from now on rely on it */
#ifndef NO_FLAG_CHECK
	d_step {
		if
		:: (folio[f].flags & PG_RCU_FREE) == 0 -> status = NOT_HOT
		:: else -> protected = 1; watch[r] = f
		fi;
		printf("reader%d: (2) PG_rcu_free(folio %d) = %d\n", r, f,
		       folio[f].flags & PG_RCU_FREE)
	}
	if
	:: status == NOT_HOT -> goto unlock
	:: else
	fi;
#else
	d_step {
		protected = 1;
		watch[r] = f;
		printf("reader%d: (2) skipped [NO_FLAG_CHECK], folio %d flags %d\n",
		       r, f, folio[f].flags)
	}
#endif

	/*
	 * (2b) xas_reload(): the same folio is still at A0.  With the flag
	 * seen before, the memory is file A's folio at A0 from here on.
	 */
#ifndef NO_RELOAD
	d_step {
		if
		:: slot[A0] != f -> status = CHANGED
		:: else
		fi;
		printf("reader%d: (2b) xas_reload(A0) = folio %d\n", r, slot[A0])
	}
	if
	:: status == CHANGED -> goto unlock
	:: else
	fi;
#endif

	/* (3) folio_test_uptodate(), then the folio->index check */
	if
	:: (folio[f].flags & PG_UPTODATE) == 0 -> status = NOT_UPTODATE; goto unlock
	:: else
	fi;
	if
	:: folio[f].index != 0 -> status = CHANGED; goto unlock
	:: else
	fi;

	/* (4) i_size_read() */
	d_step {
		isize = isize_A;
		printf("reader%d: (3) uptodate, index ok; (4) i_size = %d\n", r, isize)
	}
	if
	:: isize == 0 -> status = EOF; goto unlock
	:: else
	fi;

	/* (5) memcpy(): one cell per step */
	c = 0;
	do
	:: c < NC ->
		d_step {
			printf("reader%d: (5) copy cell %d of folio %d: %d (folio state %d)\n",
			       r, c, f, folio[f].data[c], folio[f].state);
#ifndef NO_P2
			/* P2: no use after free of a folio seen with PG_rcu_free */
			assert(!protected || (folio[f].state != S_FREE && !uaf[r]));
#endif
#ifndef NO_P4
			/*
			 * P4: the copy goes straight to the user's buffer,
			 * which other threads can read before the revalidation
			 * decides: every cell copied must be the file's data.
			 */
			assert(folio[f].data[c] == D_A0);
#endif
			buf[c] = folio[f].data[c];
			c++
		}
	:: else -> break
	od;

	/* (6) smp_rmb(); revalidate */
#ifndef NO_REVALIDATE
	if
	:: slot[A0] != f -> status = CHANGED; goto unlock
	:: else
	fi;
	if
	:: folio[f].mapping != FILE_A -> status = CHANGED; goto unlock
	:: else
	fi;
	if
	:: (folio[f].flags & PG_UPTODATE) == 0 -> status = CHANGED; goto unlock
	:: else
	fi;
	if
	:: isize_A != isize -> status = CHANGED; goto unlock
	:: else
	fi;
#endif
	status = COPIED;

unlock:
	skip;
	d_step {					/* rcu_read_unlock() */
		rcu_readers = rcu_readers & ~(1 << r);
		i = 0;
		do
		:: i < NF -> folio[i].gpwait = folio[i].gpwait & ~(1 << r); i++
		:: else -> break
		od;
		i = 0;
		watch[r] = NIL;
		uaf[r] = 0;
		printf("reader%d: rcu_read_unlock(), status %d (0 copied, 1 eof, 2 not found, 3 not hot, 4 not uptodate, 5 changed)\n",
		       r, status)
	}

	/* P1: only the file's data goes to copy_to_iter() */
	if
	:: status == COPIED ->
		c = 0;
		do
		:: c < NC -> assert(buf[c] == D_A0); c++
		:: else -> break
		od
	:: else
	fi;
	reader_done++
}

/* Truncation to 0 or hole punch of A0, or removal of A1 or B0 */
proctype remover()
{
	byte f, s, n, i;

	do
	:: n < REMOVES ->
		n++;
		if
		:: s = A0				/* hole punch */
		:: d_step {				/* truncate_setsize(0) */
			s = A0;
			isize_A = 0;
			printf("remover: i_size_write(A, 0)\n")
		   }
		:: s = A1
		:: s = B0
		fi;
		/* page_cache_delete() */
		d_step {
			f = slot[s];
			if
			:: f != NIL ->
				slot[s] = NIL;
				folio[f].mapping = NOFILE;
				printf("remover: page_cache_delete(slot %d) removes folio %d\n", s, f)
			:: else ->
				printf("remover: slot %d is empty\n", s)
			fi
		}
		if
		:: f != NIL -> put(remover_, f)	/* page cache reference */
		:: else
		fi
	:: break
	od
}

/* Allocate a free folio and add it to the page cache somewhere */
proctype reuser()
{
	byte f, s, n, c, i;

	do
	:: atomic {
		n < REUSES && have_free &&
		(slot[B0] == NIL || slot[A1] == NIL
#ifndef NO_REFILL
		 || slot[A0] == NIL
#endif
		) ->
		n++;
		/* filemap_alloc_folio() */
		if
		:: folio[0].state == S_FREE -> f = 0
		:: folio[1].state == S_FREE -> f = 1
#if NF > 2
		:: folio[2].state == S_FREE -> f = 2
#endif
		fi;
		if
		:: slot[B0] == NIL -> s = B0
		:: slot[A1] == NIL -> s = A1
#ifndef NO_REFILL
		:: slot[A0] == NIL -> s = A0
#endif
		fi;
		d_step {
			folio[f].state = S_USED;
			folio[f].ref = 2;		/* page cache + ours */
			folio[f].flags = 0;
			/* __filemap_add_folio() */
			folio[f].mapping = slot_file(s);
			folio[f].index = slot_index(s);
			slot[s] = f;
			printf("reuser: allocates folio %d, adds it to slot %d (not uptodate)\n", f, s)
		}
	   };
		/*
		 * Read I/O fills the folio.  One step: only a reader that did
		 * not see PG_rcu_free on this folio (set below, after the
		 * fill) can observe it, and such a reader falls back.
		 */
		d_step {
			c = 0;
			do
			:: c < NC -> folio[f].data[c] = slot_data(s); c++
			:: else -> break
			od;
			c = 0;
			printf("reuser: fills folio %d with %d (1 file A@0, 2 file A@1, 3 foreign)\n",
			       f, slot_data(s))
		};
		d_step {				/* folio_mark_uptodate() */
			folio[f].flags = folio[f].flags | PG_UPTODATE;
			if
			:: s == A0 && isize_A == 0 ->
				isize_A = 1		/* a write extends i_size */
			:: else
			fi;
			printf("reuser: folio_mark_uptodate(folio %d)\n", f)
		};
		if
		:: d_step {				/* filemap_read_mark_hot() */
			folio[f].flags = folio[f].flags | PG_RCU_FREE;
			printf("reuser: folio_set_rcu_free(folio %d)\n", f)
		   }
		:: skip					/* stays cold */
		fi;
		put(reuser_, f)
	:: break
	od
}

/* filemap_read_mark_hot() on whatever folio is at A0 */
proctype marker()
{
	byte f, i;

	d_step {
		f = slot[A0];
		if
		:: f != NIL -> folio[f].ref++
		:: else
		fi;
		printf("marker: looks up A0 = folio %d, takes a reference\n", f)
	}
	if
	:: f != NIL ->
		d_step {	/* folio_test_rcu_free() || folio_set_rcu_free() */
			folio[f].flags = folio[f].flags | PG_RCU_FREE;
			printf("marker: folio_set_rcu_free(folio %d)\n", f)
		};
		put(marker_, f)
	:: else
	fi
}

#ifdef SPLIT
/*
 * Split scenario (-DSPLIT): a large folio H (order 2: pages 0-3, file A
 * indices 0-3, hot and uptodate) is split while a reader copies two pages
 * from one of its indices.  Page 4, right after H in memory, is file B's
 * (foreign data); file A's index 4 is page 5; i_size of file A is 5 pages,
 * so a read from index 3 is not cut short by i_size.
 *
 * The splitter follows __split_folio_to_order(), step by step, for each
 * new folio after the first: flags cloned from the head (this clears
 * PG_head of the page and, on page 1, the order byte, which the model
 * leaves out), mapping and index, prep_compound_page() if the new folio
 * is large, then memcg_data copied from the head.  On 64-bit with
 * CONFIG_MEMCG (NR_PAGES_IN_LARGE_FOLIO), page 1's memcg_data is the
 * large folio's _nr_pages: the head's size word now holds a memcg pointer
 * (MEMCG, far beyond any folio).  folio_set_order() or ClearPageCompound()
 * of the head come last.  All the while the XArray holds H in every slot
 * of its range (xas_split() / xas_try_split() store the old folio); the
 * new folios are stored afterwards (__xa_store() in
 * __folio_freeze_and_split_unmapped()).  It splits, chosen
 * nondeterministically: uniformly to order 0 or to order 1, or
 * buddy-style (folio_split()) to order 0 at page 0 or at page 3.
 *
 * The reader is filemap_fast_copy_folio() for two pages from index 0, 1,
 * 2 or 3: lookup, flag test, reload, uptodate; step 5 reads the index and
 * the size (PG_head, then page 1's memcg_data), clamps the length to
 * i_size and to the size, and then requires that the XArray maps the
 * index of the last page to copy to the same folio (filemap_fast_maps());
 * the copy, the revalidation.  P4 and P1 as above: every page copied is
 * file A's at the index copied.  Mutant TRUST_NR: no filemap_fast_maps()
 * check, the size word alone bounds the copy (the kernel mutant
 * tests/mutants/split-bound.patch of the workbench): the reader copies
 * page 4, file B's.
 */
#define NP		6	/* pages: H (0-3), file B (4), file A@4 (5) */
#define SNR		4	/* pages of H */
#define SLOTS_A		5	/* file A, indices 0..4 */
#define SLEN		2	/* pages the reader asks for */
#define PG_HEAD		4	/* folio->flags.f, with PG_RCU_FREE, PG_UPTODATE */
#define MEMCG		100	/* memcg_data: a pointer, far beyond any folio */
#define TAIL_MAP	3	/* TAIL_MAPPING */
#define D_FOREIGN	9	/* file B data */
#define data_A(i)	((i) + 1)	/* file A data at index i */

byte pflags[NP];
byte pmapping[NP];
byte pindex[NP];
byte pmemcg[NP];	/* memcg_data; page 1's is a large folio's _nr_pages */
byte pdata[NP];		/* one cell per page */
byte aslot[SLOTS_A];	/* file A's XArray slots */
byte isize_S;		/* i_size of file A, in pages */

/*
 * __split_folio_to_order() of the folio at page b from order old to order
 * nw (nw is at most 1 here, so a new large folio has one tail page).
 * Needs local bytes i and n.
 */
inline split_to_order(b, old, nw)
{
	i = 1 << nw;
	do
	:: i < (1 << old) ->
		n = b + i;
		d_step {	/* clone flags: PG_head and the order byte go */
			pflags[n] = pflags[b] & (PG_RCU_FREE | PG_UPTODATE);
			printf("splitter: page %d flags %d (cloned)\n", n, pflags[n])
		};
		d_step {
			pmapping[n] = pmapping[b];
			pindex[n] = pindex[b] + i;
			printf("splitter: page %d mapping %d, index %d\n", n,
			       pmapping[n], pindex[n])
		};
		if
		:: nw > 0 ->
			d_step {	/* prep_compound_page(): folio_set_order() */
				pflags[n] = pflags[n] | PG_HEAD;
				pmapping[n + 1] = TAIL_MAP;
				pmemcg[n + 1] = 1 << nw;
				printf("splitter: page %d is the head of an order-%d folio\n",
				       n, nw)
			}
		:: else
		fi;
		d_step {	/* new_folio->memcg_data = folio->memcg_data */
			pmemcg[n] = pmemcg[b];
			if
			:: n == b + 1 ->
				printf("splitter: page %d memcg_data = %d: page %d's size word\n",
				       n, pmemcg[n], b)
			:: else ->
				printf("splitter: page %d memcg_data = %d\n", n, pmemcg[n])
			fi
		};
		i = i + (1 << nw)
	:: else -> break
	od;
	if
	:: nw > 0 ->
		d_step {
			pmemcg[b + 1] = 1 << nw;
			printf("splitter: folio_set_order(page %d, %d)\n", b, nw)
		}
	:: else ->
		d_step {
			pflags[b] = pflags[b] & ~PG_HEAD;
			printf("splitter: ClearPageCompound(page %d)\n", b)
		}
	fi
}

/* The size of the folio at page p: folio_nr_pages(), in one step. */
#define folio_nr(p)	((pflags[p] & PG_HEAD) != 0 -> pmemcg[(p) + 1] : 1)

proctype splitter()
{
	byte i, n, p;

	if
	:: printf("splitter: uniform split to order 0\n");
		split_to_order(0, 2, 0)
	:: printf("splitter: uniform split to order 1\n");
		split_to_order(0, 2, 1)
	:: printf("splitter: folio_split() at page 0 to order 0\n");
		split_to_order(0, 2, 1);
		split_to_order(0, 1, 0)
	:: printf("splitter: folio_split() at page 3 to order 0\n");
		split_to_order(0, 2, 1);
		split_to_order(2, 1, 0)
	fi;
	/* Store each new folio over the slots of its range, one by one. */
	p = folio_nr(0);
	do
	:: p < SNR ->
		n = folio_nr(p);
		d_step {
			i = p;
			do
			:: i < p + n -> aslot[i] = p; i++
			:: else -> break
			od;
			printf("splitter: folio at page %d stored at indices %d..%d\n",
			       p, p, p + n - 1)
		};
		p = p + n
	:: else -> break
	od
}

/* filemap_fast_copy_folio() of SLEN pages from index ri of file A */
proctype split_reader()
{
	byte ri, f, first, nr, delta, npg, last, isize, d, p, status;
	byte buf[SLEN];

	if
	:: ri = 0
	:: ri = 1
	:: ri = 2
	:: ri = 3
	fi;
	d_step {	/* (1) xas_load() */
		f = aslot[ri];
		printf("reader: (1) xas_load(A%d) = page %d\n", ri, f)
	}
	if
	:: f == NIL -> status = NOT_FOUND; goto sdone
	:: else
	fi;
	/* (2) PG_rcu_free, (2b) xas_reload(), (4) uptodate */
	if
	:: (pflags[f] & PG_RCU_FREE) == 0 -> status = NOT_HOT; goto sdone
	:: else
	fi;
	if
	:: aslot[ri] != f -> status = CHANGED; goto sdone
	:: else
	fi;
	if
	:: (pflags[f] & PG_UPTODATE) == 0 -> status = NOT_UPTODATE; goto sdone
	:: else
	fi;
	/* (5) index, then the size: folio_test_large(), page 1's word */
	first = pindex[f];
	d_step {
		nr = (pflags[f] & PG_HEAD) != 0;
		printf("reader: (5) folio_test_large(page %d) = %d\n", f, nr)
	}
	if
	:: nr ->
		d_step {
			nr = pmemcg[f + 1];
			printf("reader: (5) folio_nr_pages(page %d) = %d (page %d's memcg_data)\n",
			       f, nr, f + 1)
		}
	:: else
	fi;
	delta = ri - first;
	printf("reader: (5) folio index %d, size %d, delta %d\n", first, nr, delta);
	if
	:: delta >= nr -> status = CHANGED; goto sdone
	:: else
	fi;
	/* (6) i_size, and the length clamped to it and to the size */
	isize = isize_S;
	if
	:: ri >= isize -> status = EOF; goto sdone
	:: else
	fi;
	npg = SLEN;
	if
	:: npg > isize - ri -> npg = isize - ri
	:: else
	fi;
	if
	:: npg > nr - delta -> npg = nr - delta
	:: else
	fi;
	last = ri + npg - 1;
#ifndef TRUST_NR
	/* filemap_fast_maps(): the last page's index maps to the folio */
	if
	:: last != ri && aslot[last] != f ->
		printf("reader: (5) A%d holds page %d, not %d\n", last,
		       aslot[last], f);
		status = CHANGED;
		goto sdone
	:: else
	fi;
#endif
	/* (7) the copy, page by page */
	d = 0;
	do
	:: d < npg ->
		d_step {
			p = f + delta + d;
			printf("reader: (7) copy page %d for A%d: %d\n", p,
			       ri + d, pdata[p]);
#ifndef NO_P4
			/* P4: only file A's data at the index copied */
			assert(pdata[p] == data_A(ri + d));
#endif
			buf[d] = pdata[p];
			d++
		}
	:: else -> break
	od;
	/* (8) revalidate */
	if
	:: aslot[ri] != f -> status = CHANGED; goto sdone
	:: else
	fi;
	if
	:: pmapping[f] != FILE_A -> status = CHANGED; goto sdone
	:: else
	fi;
	if
	:: (pflags[f] & PG_UPTODATE) == 0 -> status = CHANGED; goto sdone
	:: else
	fi;
	if
	:: isize_S != isize -> status = CHANGED; goto sdone
	:: else
	fi;
	status = COPIED;
sdone:
	printf("reader: status %d (0 copied, 1 eof, 2 not found, 3 not hot, 4 not uptodate, 5 changed)\n",
	       status);
	/* P1: only file A's data counts as copied */
	if
	:: status == COPIED ->
		d = 0;
		do
		:: d < npg -> assert(buf[d] == data_A(ri + d)); d++
		:: else -> break
		od
	:: else
	fi;
	reader_done++
}

init {
	byte i;

	atomic {
		i = 0;
		do
		:: i < SNR ->
			pflags[i] = PG_RCU_FREE | PG_UPTODATE;
			pmapping[i] = TAIL_MAP;
			pdata[i] = data_A(i);
			aslot[i] = 0;
			i++
		:: else -> break
		od;
		pflags[0] = pflags[0] | PG_HEAD;
		pmapping[0] = FILE_A;
		pmemcg[0] = MEMCG;
		pmemcg[1] = SNR;		/* _nr_pages */
		pflags[4] = PG_RCU_FREE | PG_UPTODATE;	/* file B's folio */
		pmapping[4] = FILE_B;
		pmemcg[4] = MEMCG;
		pdata[4] = D_FOREIGN;
		pflags[5] = PG_RCU_FREE | PG_UPTODATE;	/* file A's index 4 */
		pmapping[5] = FILE_A;
		pindex[5] = 4;
		pmemcg[5] = MEMCG;
		pdata[5] = data_A(4);
		aslot[4] = 5;
		isize_S = 5;
		printf("init: folio of order 2 at pages 0-3 (A0-A3), file B at page 4, A4 at page 5\n");
		run split_reader();
		run splitter()
	}
}

#ifdef LTL_TERMINATION
ltl reader_terminates { <> (reader_done == 1) }
#endif
#else /* !SPLIT */
init {
	byte i, j;

	atomic {
		i = 0;
		do
		:: i < NF ->
			folio[i].state = S_FREE;
			j = 0;
			do
			:: j < NC -> folio[i].data[j] = D_POISON; j++
			:: else -> break
			od;
			i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NR -> watch[i] = NIL; i++
		:: else -> break
		od;
		slot[A0] = 0;
		slot[A1] = NIL;
		slot[B0] = NIL;
		folio[0].state = S_USED;
		folio[0].ref = 1;
		folio[0].mapping = FILE_A;
		folio[0].index = 0;
		folio[0].flags = PG_UPTODATE;
		if
		:: folio[0].flags = folio[0].flags | PG_RCU_FREE	/* hot */
		:: skip							/* cold */
		fi;
		printf("init: folio 0 in A0, uptodate, flags %d (1 = PG_rcu_free); folios 1.. free\n",
		       folio[0].flags);
		i = 0;
		do
		:: i < NC -> folio[0].data[i] = D_A0; i++
		:: else -> break
		od;
		isize_A = 1;

		run rcu_callbacks();
		i = 0;
		do
		:: i < NR -> run reader(i); i++
		:: else -> break
		od;
		run remover();
		run reuser();
		run marker()
	}
}

#ifdef LTL_TERMINATION
ltl reader_terminates { <> (reader_done == NR) }
#endif
#endif /* !SPLIT */
