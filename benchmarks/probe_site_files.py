#!/usr/bin/env python3
"""What making a site's files costs this machine's file system, apart from the wiki's code: two
processes each make N files of 3 KB (as the wiki's two item writers do), in one folder shared by
both or in a folder each, every run after deleting the last run's files (as a rebuild does:
mkdocs empties the site folder first). Prints wall time and the processes' user and system CPU,
a line per run, the two ways alternating.

    python3 benchmarks/probe_site_files.py DIR [--files 15000] [--runs 3]
    python3 benchmarks/probe_site_files.py DIR --like SITE_A --like SITE_B [--runs 3]

With --like, each run makes the files of one of the built sites given (the same paths and sizes,
symbolic links followed) instead, the sites taking turns, each run after deleting the last run's
site as a rebuild does: what one site's files cost against another's (two layouts of the search
index) in the same minutes. The two processes take every other file (the second from the last).

DIR is made and removed again (it must not exist). On the lead's machine of 2026-12-07 (ext4
without a journal) 30,000 files took from 0.3 s to 18.4 s from one run to the next, nearly all of
it the kernel's time finding a free inode, whichever the folders: benchmarks/README.md, «The
lead's figures after the nineteenth round's merge»."""
import argparse
import os
import resource
import shutil
import sys
import time


def two_writers(write) -> tuple[float, float, float]:
    """`write(k)` in two forked processes at once, k = 0 and 1: wall time, their user and system CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    pids = []
    for k in range(2):
        pid = os.fork()
        if pid == 0:
            write(k)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def write_file(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    os.write(fd, data)
    os.close(fd)


def run(base: str, mode: str, files: int) -> tuple[float, float, float]:
    def write(k: int) -> None:
        folder = os.path.join(base, "a" if mode == "shared" or k == 0 else "b")
        for i in range(files):
            write_file(f"{folder}/{k}-{i}.html", b"x" * 3000)
    return two_writers(write)


def files_of(site: str) -> list[tuple[str, int]]:
    """A site's files: path relative to the site, size (symbolic links followed)."""
    out = []
    for folder, _, names in os.walk(site, followlinks=True):
        rel = os.path.relpath(folder, site)
        out += [(os.path.normpath(os.path.join(rel, n)), os.path.getsize(os.path.join(folder, n))) for n in names]
    return sorted(out)


def make(base: str, files: list[tuple[str, int]]) -> tuple[float, float, float]:
    """`files` made under `base` by two processes, every other file each (the second from the last)."""
    for folder in sorted({os.path.dirname(f) for f, _ in files}):
        os.makedirs(os.path.join(base, folder), exist_ok=True)
    data = b"x" * max((size for _, size in files), default=0)

    def write(k: int) -> None:
        for rel, size in files[0::2] if k == 0 else files[1::2][::-1]:
            write_file(os.path.join(base, rel), data[:size])
    return two_writers(write)


def like(args) -> int:
    sites = [(site, files_of(site)) for site in args.like]
    site_dir = os.path.join(args.dir, "site")
    for n in range(args.runs):
        for site, files in sites:
            shutil.rmtree(site_dir, ignore_errors=True)      # the last run's site deleted
            wall, user, system = make(site_dir, files)
            print(f"run {n + 1}: {site}: {len(files)} files, {sum(s for _, s in files) / 1e6:.1f} MB: "
                  f"wall {wall:.2f} s, user {user:.2f} s, system {system:.2f} s", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=15000, help="files each process makes")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--like", action="append", type=str, help="a built site whose files to make (repeat)")
    args = ap.parse_args()
    if os.path.exists(args.dir):
        print(f"{args.dir}: already exists; give a folder this probe can make and remove", file=sys.stderr)
        return 2
    try:
        if args.like:
            return like(args)
        for n in range(args.runs):
            for mode in ("shared", "a folder each"):
                for sub in ("a", "b"):       # the last run's files deleted, as mkdocs empties a site
                    shutil.rmtree(os.path.join(args.dir, sub), ignore_errors=True)
                    os.makedirs(os.path.join(args.dir, sub))
                wall, user, system = run(args.dir, "shared" if mode == "shared" else "each", args.files)
                print(f"run {n + 1}: {2 * args.files} files, {mode}: wall {wall:.2f} s, "
                      f"user {user:.2f} s, system {system:.2f} s", flush=True)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
