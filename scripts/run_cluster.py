"""Yacht's production topology on loopback, without Docker.

    .venv/bin/python -m scripts.run_cluster --processes 3

starts that many daphne processes sharing one database and one Redis channel
layer (``DATABASE_URL``, ``REDIS_URL``; defaults below), runs the migrations
once first, and, when Debian's ``nginx`` is installed, puts it in front with
deploy/nginx.conf (the same rules docker-compose uses). Without nginx the
daphne ports are printed and used directly: any of them serves any game.
Ctrl-C stops everything. Behind a TLS terminator of your own, name its
address (``--tls-terminator 127.0.0.1``) and set ``DJANGO_HTTPS=1``.

The test suite and bench/live_play.py start their processes through
``Cluster`` too, so what they measure is what this script runs.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/yacht"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process on port {port} exited: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}: {log.read_text()[-2000:]}")


def loopback_nginx_conf(
    daphne_ports: list[int],
    listen_port: int,
    work: Path,
    *,
    sockets_per_address: int | None = None,
    tls_terminators: Sequence[str] = (),
    request_limits: bool = True,
) -> str:
    """deploy/nginx.conf with loopback upstreams, wrapped as a whole config
    that a non-root nginx can run from ``work``.

    ``sockets_per_address`` replaces the config's cap on open sockets per
    client address: a load test's players all come from 127.0.0.1, as the
    servers' own limits are raised for it (``LOAD_TEST_LIMITS``).
    ``tls_terminators`` replaces the addresses whose X-Forwarded-For and
    X-Forwarded-Proto nginx believes: none by default, as on loopback
    nobody terminates TLS in front of it unless a test puts something there.
    Without ``request_limits`` nginx does not pace pages, new games and
    sockets per client address: a load test's servers run without theirs."""
    snippet = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = "\n".join(f"    server 127.0.0.1:{port};" for port in daphne_ports)
    snippet, swapped = re.subn(r"^\s*server app:8000;$", servers, snippet, flags=re.M)
    snippet, relisted = re.subn(
        r"^(\s*)listen 80;$", rf"\1listen 127.0.0.1:{listen_port};", snippet, flags=re.M
    )
    snippet, trusted = _name_tls_terminators(snippet, tls_terminators)
    capped = 1
    if sockets_per_address is not None:
        snippet, capped = re.subn(
            r"^(\s*limit_conn yacht_sockets_per_address) \d+;$",
            rf"\1 {sockets_per_address};",
            snippet,
            flags=re.M,
        )
    paced = 3
    if not request_limits:
        snippet, paced = re.subn(
            r"^\s*limit_req zone=\S+ burst=\d+ nodelay;\n", "", snippet, flags=re.M
        )
    if swapped != 1 or relisted != 1 or capped != 1 or paced != 3 or not trusted:
        raise RuntimeError("deploy/nginx.conf no longer has the lines this script replaces")
    temp = "\n".join(
        f"    {kind}_temp_path {work / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off;\nworker_processes 1;\npid {work / 'nginx.pid'};\n"
        f"error_log {work / 'nginx-error.log'} warn;\n"
        "events { worker_connections 8192; }\n"
        f"http {{\n    access_log off;\n{temp}\n{snippet}\n}}\n"
    )


def _name_tls_terminators(snippet: str, terminators: Sequence[str]) -> tuple[str, bool]:
    """The config with its two lists of TLS terminators replaced by
    ``terminators``, and whether both lists were found."""
    realip = "".join(f"set_real_ip_from {address};\n" for address in terminators)
    snippet, lists = re.subn(r"(?:^set_real_ip_from \S+;\n)+", realip, snippet, flags=re.M)
    geo = "".join(f"    {address} 1;\n" for address in terminators)
    snippet, geos = re.subn(
        r"(^geo \$realip_remote_addr \$from_tls_terminator \{\n    default 0;\n)(?:    \S+ 1;\n)+",
        lambda found: found.group(1) + geo,
        snippet,
        flags=re.M,
    )
    return snippet, lists == 1 and geos == 1


class Cluster:
    """N daphne processes on loopback ports, optionally behind nginx."""

    def __init__(
        self,
        *,
        processes: int = 2,
        database_url: str,
        redis_url: str = "",
        ports: list[int] | None = None,
        proxy_port: int | None = None,
        proxy_sockets_per_address: int | None = None,
        proxy_tls_terminators: Sequence[str] = (),
        proxy_request_limits: bool = True,
        application: str = "yachtsite.asgi:application",
        env: dict[str, str] | None = None,
        name: str = "cluster",
    ) -> None:
        if processes > 1 and not redis_url:
            # The in-memory channel layer lives inside one process: a push
            # made on one would never reach sockets held by another.
            raise ValueError("more than one process needs REDIS_URL (a shared channel layer)")
        self.ports = ports or [free_port() for _ in range(processes)]
        self.proxy_port = proxy_port
        self.proxy_sockets_per_address = proxy_sockets_per_address
        self.proxy_tls_terminators = proxy_tls_terminators
        self.proxy_request_limits = proxy_request_limits
        self.application = application
        self.work = ROOT / "var" / name
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "yachtsite.settings",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_DEBUG": "0",
            # Servers run without DEBUG, which refuses a missing secret key: a
            # throwaway one, unless the caller's environment names one.
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
            "PYTHONUNBUFFERED": "1",
            # nginx on loopback names the client in X-Forwarded-For: believe it.
            **({"YACHT_TRUSTED_PROXIES": "127.0.0.1"} if proxy_port is not None else {}),
            **(env or {}),
        }
        self.daphnes: list[subprocess.Popen[bytes]] = []
        self.nginx: subprocess.Popen[bytes] | None = None

    @property
    def urls(self) -> list[str]:
        """One base URL per daphne process, in start order."""
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    @property
    def front_url(self) -> str:
        """Where a browser should go: nginx if it runs, else the first daphne."""
        if self.nginx is not None:
            return f"http://127.0.0.1:{self.proxy_port}"
        return self.urls[0]

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )

    def start(self) -> Cluster:
        self.work.mkdir(parents=True, exist_ok=True)
        try:
            for port in self.ports:
                log = self.work / f"daphne-{port}.log"
                process = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "daphne",
                        "-b",
                        "127.0.0.1",
                        "-p",
                        str(port),
                        self.application,
                    ],
                    cwd=ROOT,
                    env=self.env,
                    stdout=log.open("wb"),
                    stderr=subprocess.STDOUT,
                )
                self.daphnes.append(process)
            for port, process in zip(self.ports, self.daphnes, strict=True):
                wait_for_port(port, process, self.work / f"daphne-{port}.log", timeout=30)
            if self.proxy_port is not None:
                self._start_nginx()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_nginx(self) -> None:
        nginx = shutil.which("nginx") or next(
            (p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None
        )
        if nginx is None:
            print("nginx is not installed: use the daphne ports directly", file=sys.stderr)
            self.proxy_port = None
            return
        assert self.proxy_port is not None
        conf = self.work / "nginx.conf"
        conf.write_text(
            loopback_nginx_conf(
                self.ports,
                self.proxy_port,
                self.work,
                sockets_per_address=self.proxy_sockets_per_address,
                tls_terminators=self.proxy_tls_terminators,
                request_limits=self.proxy_request_limits,
            )
        )
        log = self.work / "nginx.log"
        self.nginx = subprocess.Popen(
            [nginx, "-p", str(self.work), "-c", str(conf)],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.proxy_port, self.nginx, log, timeout=10)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.daphnes]

    @property
    def proxy_pids(self) -> list[int]:
        """nginx's master and its workers (none without a proxy)."""
        if self.nginx is None:
            return []
        master = self.nginx.pid
        found = [master]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # The parent's pid is the second field after the parenthesised name.
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                found.append(int(entry.name))
        return found

    def stop(self) -> None:
        children = [*self.daphnes, *([self.nginx] if self.nginx else [])]
        for process in children:
            if process.poll() is None:
                process.terminate()
        for process in children:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        self.daphnes = []
        self.nginx = None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--base-port",
        type=int,
        default=8001,
        help="daphne listens on this port and the ones after it",
    )
    parser.add_argument(
        "--proxy-port", type=int, default=8000, help="nginx's port, when nginx is installed"
    )
    parser.add_argument("--no-proxy", action="store_true")
    parser.add_argument(
        "--tls-terminator",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="the address of a TLS terminator in front of nginx, whose "
        "X-Forwarded-For and X-Forwarded-Proto nginx believes (repeatable)",
    )
    args = parser.parse_args(argv)
    cluster = Cluster(
        processes=args.processes,
        database_url=os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL),
        redis_url=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        ports=[args.base_port + i for i in range(args.processes)],
        proxy_port=None if args.no_proxy else args.proxy_port,
        proxy_tls_terminators=args.tls_terminator,
    )
    cluster.migrate()
    cluster.start()
    print("daphne:", " ".join(cluster.urls))
    print(f"Yacht is at {cluster.front_url}/  (Ctrl-C stops it)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while all(p.poll() is None for p in cluster.daphnes):
            time.sleep(0.5)
        print("a daphne process exited; stopping the rest", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
