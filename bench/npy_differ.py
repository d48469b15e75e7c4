#!/usr/bin/python3
"""Counts the elements of the result<i>.npy files of two folders that differ bit for bit.

  npy_differ.py A B      (prints one number; the files are A's, each compared with B's)
"""
import glob
import os
import sys

import numpy as np

n = 0
for f in glob.glob(os.path.join(sys.argv[1], "result*.npy")):
    a, b = (np.load(os.path.join(d, os.path.basename(f))).view(np.uint32) for d in sys.argv[1:3])
    n += int((a != b).sum())
print(n)
