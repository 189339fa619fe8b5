#!/usr/bin/env python3
"""A FUSE file system over a folder that injects faults on command, for the verification
tests (this kernel has no device-mapper to make faulty devices with).

    faultfs.py BACKING MOUNTPOINT CONTROL

Every file of BACKING appears at MOUNTPOINT. CONTROL is a text file outside the mount, read
again whenever it changes; each line a fault on a byte range of every file:

    eio read OFFSET LENGTH     reads touching the range fail with EIO
    eio write OFFSET LENGTH    writes touching it fail with EIO
    drop OFFSET LENGTH         writes to it are acknowledged and not stored (lost writes)
    stale OFFSET LENGTH        reads of it return what it held when the line appeared
    flip OFFSET                reads return that byte with its lowest bit flipped

Mounted with direct_io, so that the kernel's page cache never answers a read for it.
"""

import errno
import os
import sys
import threading

import mfusepy as fuse


class Faults:
    def __init__(self, control):
        self.control = control
        self.mtime = None
        self.lock = threading.Lock()
        self.lines = []
        self.snapshots = {}  # (path, line) -> bytes, for stale ranges

    def current(self, backing_path):
        """The fault lines now (re-read if CONTROL changed); stale snapshots taken once."""
        try:
            st = os.stat(self.control)
            mtime = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            mtime = None
        with self.lock:
            if mtime != self.mtime:
                self.mtime = mtime
                text = open(self.control).read() if mtime else ""
                self.lines = [l.split() for l in text.splitlines() if l.strip()]
            lines = list(self.lines)
            for words in lines:
                key = (backing_path, " ".join(words))
                if words[0] == "stale" and key not in self.snapshots:
                    off, n = int(words[1]), int(words[2])
                    with open(backing_path, "rb") as f:
                        f.seek(off)
                        self.snapshots[key] = f.read(n)
            return lines, dict(self.snapshots)


def overlaps(a, n, b, m):
    return a < b + m and b < a + n


class FaultFS(fuse.Operations):
    use_ns = True

    def __init__(self, root, faults):
        self.root = root
        self.faults = faults

    def _full(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def getattr(self, path, fh=None):
        st = os.lstat(self._full(path))
        keys = ("st_atime_ns", "st_ctime_ns", "st_gid", "st_mode", "st_mtime_ns", "st_nlink",
                "st_size", "st_uid")
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._full(path))

    def statfs(self, path):
        s = os.statvfs(self._full(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                "f_files", "f_flag", "f_frsize", "f_namemax")
        return {k: getattr(s, k) for k in keys}

    def open(self, path, flags):
        return os.open(self._full(path), flags & ~os.O_DIRECT)

    def create(self, path, mode, fi=None):
        return os.open(self._full(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)

    def unlink(self, path):
        os.unlink(self._full(path))

    def rename(self, old, new):
        os.rename(self._full(old), self._full(new))

    def mkdir(self, path, mode):
        os.mkdir(self._full(path), mode)

    def rmdir(self, path):
        os.rmdir(self._full(path))

    def fsyncdir(self, path, datasync, fh):
        return 0

    def truncate(self, path, length, fh=None):
        os.truncate(self._full(path), length)

    def utimens(self, path, times=None):
        os.utime(self._full(path), ns=times) if times else os.utime(self._full(path))

    def chmod(self, path, mode):
        os.chmod(self._full(path), mode)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)
        return 0

    def release(self, path, fh):
        os.close(fh)
        return 0

    def read(self, path, size, offset, fh):
        lines, snaps = self.faults.current(self._full(path))
        for w in lines:
            if w[0] == "eio" and w[1] == "read" and overlaps(offset, size, int(w[2]), int(w[3])):
                raise fuse.FuseOSError(errno.EIO)
        data = bytearray(os.pread(fh, size, offset))
        for w in lines:
            if w[0] == "stale":
                off, n = int(w[1]), int(w[2])
                old = snaps.get((self._full(path), " ".join(w)), b"")
                for i in range(max(off, offset), min(off + n, offset + len(data))):
                    if i - off < len(old):
                        data[i - offset] = old[i - off]
            elif w[0] == "flip":
                at = int(w[1])
                if offset <= at < offset + len(data):
                    data[at - offset] ^= 1
        return bytes(data)

    def write(self, path, data, offset, fh):
        lines, _ = self.faults.current(self._full(path))
        for w in lines:
            if w[0] == "eio" and w[1] == "write" and overlaps(offset, len(data), int(w[2]), int(w[3])):
                raise fuse.FuseOSError(errno.EIO)
        # Stored byte by byte where a drop covers it; whole runs elsewhere.
        dropped = [(int(w[1]), int(w[2])) for w in lines if w[0] == "drop"]
        start = 0
        while start < len(data):
            pos = offset + start
            inside = any(a <= pos < a + n for a, n in dropped)
            end = start + 1
            while end < len(data) and any(a <= offset + end < a + n for a, n in dropped) == inside:
                end += 1
            if not inside:
                os.pwrite(fh, data[start:end], pos)
            start = end
        return len(data)


def main():
    backing, mountpoint, control = sys.argv[1:4]
    fuse.FUSE(FaultFS(backing, Faults(control)), mountpoint, foreground=True, direct_io=True,
              nothreads=False, allow_other=True)


if __name__ == "__main__":
    main()
