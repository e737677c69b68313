#!/usr/bin/env python3
"""resident.py: page-cache residency of files, with mincore(2).

Reads paths on stdin, one per line; prints "path<TAB>spans" for each
regular file it can map, spans being the resident 4 KiB page ranges
("0-15,20,31-40").  Files it cannot open or map are left out.
"""
import ctypes
import ctypes.util
import mmap
import os
import sys

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
PAGE = os.sysconf("SC_PAGE_SIZE")
MAP_FAILED = ctypes.c_void_p(-1).value


def spans(vec):
    out, start = [], None
    for i, b in enumerate(vec):
        if b & 1 and start is None:
            start = i
        elif not b & 1 and start is not None:
            out.append(f"{start}-{i - 1}" if i - 1 > start else str(start))
            start = None
    if start is not None:
        n = len(vec) - 1
        out.append(f"{start}-{n}" if n > start else str(start))
    return ",".join(out)


def main():
    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
        except OSError:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                continue
            addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            if addr in (None, MAP_FAILED):
                continue
            n = (size + PAGE - 1) // PAGE
            vec = ctypes.create_string_buffer(n)
            if libc.mincore(addr, size, vec) == 0:
                print(f"{path}\t{spans(vec.raw)}")
            libc.munmap(addr, size)
        finally:
            os.close(fd)


if __name__ == "__main__":
    main()
