#!/usr/bin/env python3
"""logwriter.py LOG: append 4000 access-log lines to LOG, one per ms."""
import sys
import time

with open(sys.argv[1], "a", buffering=1) as f:
    for i in range(4000):
        f.write(f"{time.time():.6f} GET /item/{i % 97} status=200 bytes={i * 37 % 9000}\n")
        time.sleep(0.001)
