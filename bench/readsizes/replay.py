#!/usr/bin/env python3
"""replay.py: a recorded workload's reads as a trace that pcbench replays.

    replay.py TRACEDIR OUTDIR

TRACEDIR holds one workload of make readsizes (bench/readsizes/trace.sh):
run2.* are the per-process strace -ff -y traces of its second run.  The
reads of regular files that returned data (analyze.py's parser: offsets
followed through open, lseek and dup, per process) become OUTDIR/trace.bin,
each process's reads in their order, the processes one after the other
(strace -ff writes one file per process; their interleaving is not
recorded): a header ("PCBR", number of files, of records, largest
read; u32 each, host byte order), then one record per read (u32 file
index, u32 bytes, u64 offset), the bytes being what the read returned.
Each file becomes OUTDIR/fNNNNN, of random bytes, as long as the furthest
byte the trace read from it (data, not holes: a hole has no folio to read
on tmpfs).  What the files held does not matter to the page cache, only
where and how much is read.  OUTDIR/files.txt maps the indexes to the
traced paths; the last line of stdout is "reads,files,bytes_read,
bytes_on_disk".
"""
import glob
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402

MAX_LEN = 16 << 20   # pcbench's largest read


def build(tracedir, out):
    traces = glob.glob(os.path.join(tracedir, "run2.*"))
    if not traces:
        sys.exit(f"replay.py: no run2.* traces in {tracedir}")
    run = analyze.Run(traces)
    index, ext, recs = {}, [], []
    for path, off, ret, _, _ in run.reads:
        if ret <= 0:
            continue
        if ret > MAX_LEN:
            sys.exit(f"replay.py: a read of {ret} bytes in {tracedir}; pcbench reads at most {MAX_LEN}")
        i = index.setdefault(path, len(index))
        if i == len(ext):
            ext.append(0)
        ext[i] = max(ext[i], off + ret)
        recs.append((i, ret, off))
    if not recs:
        sys.exit(f"replay.py: no reads of regular files in {tracedir}")
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "f[0-9]*")):
        os.unlink(old)
    for i, n in enumerate(ext):
        with open(os.path.join(out, f"f{i:05d}"), "wb") as fh:
            left = n
            while left:
                chunk = min(left, 1 << 20)
                fh.write(os.urandom(chunk))
                left -= chunk
    with open(os.path.join(out, "trace.bin"), "wb") as fh:
        fh.write(struct.pack("=4sIII", b"PCBR", len(ext), len(recs),
                             max(r[1] for r in recs)))
        for r in recs:
            fh.write(struct.pack("=IIQ", *r))
    with open(os.path.join(out, "files.txt"), "w") as fh:
        for path, i in sorted(index.items(), key=lambda kv: kv[1]):
            fh.write(f"f{i:05d}\t{path}\n")
    return len(recs), len(ext), sum(r[1] for r in recs), sum(ext)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    print(",".join(str(x) for x in build(sys.argv[1], sys.argv[2])))


if __name__ == "__main__":
    main()
