#!/usr/bin/env python3
"""bench/readsizes/analyze.py on a synthetic strace -ff -y trace whose
answers are known: offsets followed through read/lseek/dup, paths with
commas, pipes and /proc left out, hits and re-reads per 4 KiB page; and
bench/readsizes/replay.py's trace of it, as pcbench reads it."""
import importlib.util
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "analyze", os.path.join(HERE, "..", "..", "bench", "readsizes", "analyze.py"))
an = importlib.util.module_from_spec(spec)
spec.loader.exec_module(an)

RUN1 = """\
openat(AT_FDCWD</w>, "/d/a,b.c", O_RDONLY) = 3</d/a,b.c>
read(3</d/a,b.c>, ""..., 4096) = 4096
read(3</d/a,b.c>, ""..., 4096) = 100
read(3</d/a,b.c>, ""..., 4096) = 0
close(3</d/a,b.c>) = 0
"""
RUN2 = """\
openat(AT_FDCWD</w>, "/d/a,b.c", O_RDONLY) = 3</d/a,b.c>
read(3</d/a,b.c>, ""..., 16) = 16
lseek(3</d/a,b.c>, 8192, SEEK_SET) = 8192
dup(3</d/a,b.c>) = 4</d/a,b.c>
read(4</d/a,b.c>, ""..., 65536) = 5000
pread64(3</d/a,b.c>, ""..., 64, 10) = 64
read(5<pipe:[1234]>, ""..., 4096) = 4096
read(6</proc/self/stat>, ""..., 1024) = 300
write(7</d/new>, ""..., 8192) = 8192
preadv(7</d/new>, [{iov_base=""..., iov_len=100}, {iov_base=""..., iov_len=200}], 2, 4000) = 300
read(8</d/cold>, ""..., 4096) = -1 EIO (Input/output error)
read(9</d/cold>, ""..., 4096) = 4096
mmap(NULL, 4096, PROT_READ, MAP_SHARED, 9</d/cold>, 0) = 0x7f0000000000
sendfile(10<socket:[9]>, 9</d/cold>, NULL, 4096) = 4096
"""


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        w = os.path.join(d, "raw", "synthetic")
        os.makedirs(w)
        open(os.path.join(w, "run1.100"), "w").write(RUN1)
        open(os.path.join(w, "run2.200"), "w").write(RUN2)
        # Page 0 of a,b.c resident before run 2; page 1 (read in run 1) not.
        open(os.path.join(w, "resident.txt"), "w").write("/d/a,b.c\t0\n/d/cold\t\n")
        run2 = an.Run([os.path.join(w, "run2.200")])
        st, hr, hb, other = an.analyse("synthetic", w)
        checks = [
            ("reads of regular files, EOF, errors and pipes left out",
             [(p, o, r) for p, o, r, _, _ in run2.reads],
             [("/d/a,b.c", 0, 16), ("/d/a,b.c", 8192, 5000), ("/d/a,b.c", 10, 64),
              ("/d/new", 4000, 300), ("/d/cold", 0, 4096)]),
            ("reads", st["reads"], 5),
            ("bytes", st["bytes"], 16 + 5000 + 64 + 300 + 4096),
            # hits: 16 B (page 0 resident), 64 B at 10 (page 0), new (written
            # earlier in run 2); 8192+5000 spans pages 2-3, not resident;
            # cold not resident.
            ("hits", st["hit"], 3),
            # re-read in the run: the pread of page 0 after the 16 B read.
            ("re-read in the run", st["reread_run"], 1),
            # across runs: also pages 2.. no (run 1 read pages 0-1 only):
            ("re-read across runs", st["reread_across"], 2),
            ("<=4 KiB", st["small"], 4),
            ("hot <=4 KiB", st["small_hot"], 2),
            ("files", st["files"], 3),
            ("read errors", other["read errors"], 1),
            ("mmaps", other["mmap"], 1),
            ("sendfile bytes", other["sendfile bytes"], 4096),
            ("size histogram", hr[:6], [1, 1, 0, 1, 1, 1]),
        ]
        # replay.py: run 2's reads in order, files numbered as first read,
        # each as long as the furthest byte read from it
        rp = os.path.join(d, "replay")
        line = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "bench",
                                                            "readsizes", "replay.py"), w, rp],
                              capture_output=True, text=True, check=True).stdout.split()[-1]
        data = open(os.path.join(rp, "trace.bin"), "rb").read()
        hdr = struct.unpack("=4sIII", data[:16])
        recs = [struct.unpack("=IIQ", data[16 + 16 * i:32 + 16 * i]) for i in range(hdr[2])]
        sizes = [os.path.getsize(os.path.join(rp, f"f{i:05d}")) for i in range(hdr[1])]
        checks += [
            ("replay.py header", hdr, (b"PCBR", 3, 5, 5000)),
            ("replay.py records (file, bytes, offset)", recs,
             [(0, 16, 0), (0, 5000, 8192), (0, 64, 10), (1, 300, 4000), (2, 4096, 0)]),
            ("replay.py file sizes", sizes, [13192, 4300, 4096]),
            ("replay.py files.txt", open(os.path.join(rp, "files.txt")).read().split(),
             ["f00000", "/d/a,b.c", "f00001", "/d/new", "f00002", "/d/cold"]),
            ("replay.py summary", line, f"5,3,{16 + 5000 + 64 + 300 + 4096},{13192 + 4300 + 4096}"),
            ("replay.py data, not holes", open(os.path.join(rp, "f00002"), "rb").read().count(0) < 256,
             True),
        ]
        for i, (what, got, want) in enumerate(checks, 1):
            ok = got == want
            fails += not ok
            print(f"{'ok' if ok else 'not ok'} {i} - {what}" + ("" if ok else f": {got} != {want}"))
        print(f"1..{len(checks)}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
