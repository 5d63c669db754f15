#!/usr/bin/env python3
"""The network benchmarks (docs/PERFORMANCE.md, "Network"): two builds side by side.

    bench_network.py NEW_BIN_DIR OLD_BIN_DIR [--runs N] [--count N]

Each BIN_DIR holds a release `vitrine` and `vitrine-bench` (e.g. .build/release, and a build of
another commit in a throwaway checkout). Runs are interleaved (new, old, new, old, ...) and
medians reported. Loopback only: Tests/Fixtures/galleryserver.py, and nginx for https.

- idle: `vitrine` on a 6-row gallery whose images are answered after 30 s; CPU of the process
  (utime + stime from /proc/PID/stat) over 10 s while the 6 requests wait.
- thumbnails: `vitrine-bench fetch-thumbnails` (and with --bytes-only: the loader alone, no
  decode, through `fetchData`), COUNT small PNGs (the demo's flags/fr.png under
  COUNT distinct URLs) at once through the pipeline, over http (galleryserver.py) and over
  https with HTTP/2 (nginx, a self-made certificate given as SSL_CERT_FILE and, for
  URLSession, URLSessionCertificateAuthorityInfoFile): wall, CPU, connections the server
  accepted; then the same COUNT files through `vipsthumbnail -s 32x16` in two processes.
Prints Markdown tables.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "Tests" / "EndToEnd"))
from harness import DEMO, GalleryServer, Terminal, wait_until  # noqa: E402
from test_https import Nginx  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def vitrine_pid(term, binary):
    target = os.path.realpath(binary)

    def find():
        for pid in [term.pane_pid] + term_children(term.pane_pid):
            try:
                if os.path.realpath("/proc/%d/exe" % pid) == target:
                    return pid
            except OSError:
                pass
        return None
    return wait_until(find, 10)


def term_children(pid):
    out = []
    try:
        kids = [int(x) for x in Path("/proc/%d/task/%d/children" % (pid, pid)).read_text().split()]
    except OSError:
        return out
    for k in kids:
        out += [k] + term_children(k)
    return out


def idle(binary, tmp, server):
    url = server.url("/gallery/6.json?img=flags/fr.png")
    term = Terminal("XDG_CACHE_HOME=%s exec %s --no-disk-cache '%s'" % (tmp / "cache", binary, url), 100, 40)
    try:
        pid = vitrine_pid(term, binary)
        time.sleep(2)
        before = cpu_of(pid)
        time.sleep(10)
        return (cpu_of(pid) - before) / 10 * 100
    finally:
        term.kill()


def fetch(bench, pattern, count, env, conns, extra=()):
    before = conns()
    out = subprocess.run([bench, "fetch-thumbnails", pattern, "--count", str(count), *extra], capture_output=True,
                         text=True, env=env, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("%s exited with %d:\n%s" % (bench, out.returncode, out.stderr))
    wall, cpu, failures = out.stdout.split()
    return float(wall), float(cpu), int(failures), conns() - before


def vips_two(files, out):
    chunks = [files[0::2], files[1::2]]
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = [subprocess.Popen(["vipsthumbnail", "-s", "32x16", "-o", str(out) + "/%s.v", *c]) for c in chunks]
    for p in procs:
        p.wait()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (usage.ru_utime - usage0.ru_utime) + (usage.ru_stime - usage0.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--skip-idle", action="store_true")
    args = ap.parse_args()
    builds = [("libcurl multi (this branch)", Path(args.new)), ("URLSession (c0d70fc)", Path(args.old))]
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-net-"))
    root = tmp / "root"
    (root / "flags").mkdir(parents=True)
    (root / "flags" / "fr.png").write_bytes((DEMO / "flags" / "fr.png").read_bytes())

    kinds = ("http", "https", "nginx http", "http bytes", "https bytes", "nginx http bytes")
    results = {name: {"idle": [], **{k: [] for k in kinds}} for name, _ in builds}
    slow = GalleryServer(root, tmp / "slow.log", delay=30, max_seconds=1800)
    fast = GalleryServer(root, tmp / "fast.log", max_seconds=1800, extra_args=["--log-times", "--log-connections"])
    nginx = Nginx(tmp, root)
    env = dict(os.environ, SSL_CERT_FILE=str(nginx.cert), URLSessionCertificateAuthorityInfoFile=str(nginx.cert))

    def http_conns():
        return sum(1 for l in fast.requests() if l.startswith("CONN "))

    def https_conns():
        return len({l.split()[1] for l in nginx.log()})

    try:
        for run in range(args.runs):
            for name, bindir in builds:
                if not args.skip_idle:
                    results[name]["idle"].append(idle(bindir / "vitrine", tmp, slow))
                bench = str(bindir / "vitrine-bench")
                for suffix, extra in (("", ()), (" bytes", ("--bytes-only",))):
                    results[name]["http" + suffix].append(
                        fetch(bench, fast.url("/img/{i}/flags/fr.png"), args.count, env, http_conns, extra))
                    nginx_before = len(nginx.log())
                    r = fetch(bench, nginx.url("img/{i}/flags/fr.png"), args.count, env, lambda: 0, extra)
                    conns = len({l.split()[1] for l in nginx.log()[nginx_before:]})
                    protocols = sorted({l.split()[0] for l in nginx.log()[nginx_before:]})
                    results[name]["https" + suffix].append((*r[:3], conns, "/".join(protocols)))
                    nginx_before = len(nginx.log())
                    r = fetch(bench, nginx.http_url("img/{i}/flags/fr.png"), args.count, env, lambda: 0, extra)
                    conns = len({l.split()[1] for l in nginx.log()[nginx_before:]})
                    results[name]["nginx http" + suffix].append((*r[:3], conns))
        files = []
        for i in range(args.count):
            link = tmp / ("v%d.png" % i)
            link.symlink_to(root / "flags" / "fr.png")
            files.append(str(link))
        vout = tmp / "vout"
        vout.mkdir()
        vips = [vips_two(files, vout) for _ in range(args.runs)]
    finally:
        slow.stop()
        fast.stop()
        nginx.stop()

    med = statistics.median
    print("<!-- scripts/bench_network.py, %d runs interleaved, %d thumbnails -->" % (args.runs, args.count))
    if not args.skip_idle:
        print("| build | CPU while 6 requests wait, 10 s (%% of a core, median; runs) |")
        print("|---|---|")
        for name, _ in builds:
            v = results[name]["idle"]
            print("| %s | %.1f (%s) |" % (name, med(v), ", ".join("%.1f" % x for x in v)))
        print()
    print("| build | what | wall ms (median; runs) | CPU s | CPU ms per image | connections | failures |")
    print("|---|---|---|---|---|---|---|")
    for kind in kinds:
        for name, _ in builds:
            rs = results[name][kind]
            walls = [r[0] * 1000 for r in rs]
            cpu = med([r[1] for r in rs])
            if kind.startswith("nginx"):
                label = "http/1.1 from nginx"
            elif kind.startswith("http ") or kind == "http":
                label = "http/1.1 from galleryserver.py"
            else:
                label = "https (%s) from nginx" % rs[0][4]
            label += (
                ", bytes only (fetchData)" if kind.endswith("bytes") else ", thumbnails (load + decode)")
            print("| %s | %s | %.0f (%s) | %.2f | %.3f | %s | %s |" % (
                name, label, med(walls), ", ".join("%.0f" % w for w in walls), cpu, cpu * 1000 / args.count,
                "/".join(str(r[3]) for r in rs), "/".join(str(r[2]) for r in rs)))
    vw, vc = med([v[0] for v in vips]) * 1000, med([v[1] for v in vips])
    print("| vipsthumbnail -s 32x16, 2 processes | files | %.0f | %.2f | %.3f | - | - |" % (vw, vc, vc * 1000 / args.count))
    for kind in kinds:
        a = med([r[0] for r in results[builds[0][0]][kind]])
        b = med([r[0] for r in results[builds[1][0]][kind]])
        print("\n%s: URLSession / libcurl wall ratio %.2f" % (kind, b / a), end="")
    print()


if __name__ == "__main__":
    main()
