"""The documented HTTPS deployment: TLS ends in front of the shipped nginx
(deploy/nginx.conf, through scripts/run_cluster.py), daphne runs behind it
with DJANGO_HTTPS=1. Here the terminator is a second nginx on loopback with
a certificate made for the run, and each client connects from a loopback
address of its own (127.0.0.2, 127.0.0.3...), as separate players would."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPMessage, HTTPSConnection
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from axes.models import AccessAttempt
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from scripts.run_cluster import Cluster, free_port, wait_for_port
from tests import live

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(NGINX is None, reason="Debian's nginx is not installed"),
]

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# Failed admin sign-ins per address and username before the throttle: the
# app limit a test can reach quickest, and counted in the database.
SIGN_IN_ATTEMPTS = 2
# nginx's cap on open sockets per client address group, lowered to be reached.
SOCKETS_PER_GROUP = 2


@dataclass
class Answer:
    status: int
    headers: HTTPMessage
    body: str


@dataclass
class Front:
    """Where a browser goes (the terminator) and, behind it, the shipped nginx."""

    tls_port: int
    nginx_port: int
    daphne_url: str
    tls: ssl.SSLContext

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.tls_port}"


@dataclass
class Browser:
    """One player: its own cookies, connecting from its own address."""

    front: Front
    source: str
    # Straight to the shipped nginx over plain HTTP, past the terminator.
    direct: bool = False
    cookies: dict[str, str] = field(default_factory=dict)
    secure: dict[str, bool] = field(default_factory=dict)

    def request(
        self,
        method: str,
        path: str,
        *,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        if self.direct:
            conn: HTTPConnection = HTTPConnection(
                "127.0.0.1", self.front.nginx_port, timeout=30, source_address=(self.source, 0)
            )
        else:
            conn = HTTPSConnection(
                "127.0.0.1",
                self.front.tls_port,
                timeout=30,
                source_address=(self.source, 0),
                context=self.front.tls,
            )
        sent = {**(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            answer = Answer(response.status, response.headers, response.read().decode())
        finally:
            conn.close()
        for line in answer.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(line).items():
                self.cookies[name] = morsel.value
                self.secure[name] = bool(morsel["secure"])
        return answer

    def post_form(self, page: str, action: str, fields: dict[str, str]) -> Answer:
        shown = self.request("GET", page)
        token = CSRF_FIELD.search(shown.body)
        assert token is not None, f"no form at {page}: {shown.status}"
        return self.request(
            "POST",
            action,
            form={"csrfmiddlewaretoken": token.group(1), **fields},
            headers={"Origin": self.front.origin, "Referer": self.front.origin + page},
        )

    def sign_in_to_admin(self, username: str, **headers: str) -> int:
        page = "/en/admin/login/"
        shown = self.request("GET", page)
        token = CSRF_FIELD.search(shown.body)
        assert token is not None, shown.status
        return self.request(
            "POST",
            page,
            form={
                "csrfmiddlewaretoken": token.group(1),
                "username": username,
                "password": "not the password",
            },
            headers={"Origin": self.front.origin, "Referer": self.front.origin + page, **headers},
        ).status


def terminator_conf(work: Path, tls_port: int, nginx_port: int) -> str:
    """A TLS terminator as an operator would put one in front: it appends
    the peer to X-Forwarded-For (keeping what the client sent before it)
    and names the scheme."""
    temp = "\n".join(
        f"    {kind}_temp_path {work / kind}-tls;"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""daemon off;
worker_processes 1;
pid {work / "terminator.pid"};
error_log {work / "terminator-error.log"} warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
{temp}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ""      "";
    }}
    server {{
        listen 127.0.0.1:{tls_port} ssl;
        ssl_certificate {work / "cert.pem"};
        ssl_certificate_key {work / "key.pem"};
        location / {{
            proxy_pass http://127.0.0.1:{nginx_port};
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


@pytest.fixture
def front(transactional_db: None) -> Iterator[Front]:
    assert NGINX is not None
    cluster = Cluster(
        processes=1,
        database_url=live.test_database_url(),
        proxy_port=free_port(),
        proxy_sockets_per_address=SOCKETS_PER_GROUP,
        # The terminator reaches nginx from 127.0.0.1; players never do.
        proxy_tls_terminators=["127.0.0.1"],
        env={"DJANGO_HTTPS": "1", "YACHT_ADMIN_LOGIN_ATTEMPTS": str(SIGN_IN_ATTEMPTS)},
        name="tls",
    )
    work = cluster.work
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(work / "key.pem"),
            "-out",
            str(work / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )
    cluster.start()
    assert cluster.proxy_port is not None
    tls_port = free_port()
    conf = work / "terminator.conf"
    conf.write_text(terminator_conf(work, tls_port, cluster.proxy_port))
    log = work / "terminator.log"
    terminator = subprocess.Popen(
        [NGINX, "-p", str(work), "-c", str(conf)],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(tls_port, terminator, log, timeout=10)
        yield Front(
            tls_port=tls_port,
            nginx_port=cluster.proxy_port,
            daphne_url=cluster.urls[0],
            tls=ssl.create_default_context(cafile=work / "cert.pem"),
        )
    finally:
        terminator.terminate()
        terminator.wait(10)
        cluster.stop()


def test_pages_over_https_answer_at_once_with_secure_cookies_and_no_redirect(front: Front) -> None:
    ana = Browser(front, "127.0.0.2")
    for path in ("/en/", "/es/", "/en/rules/"):
        answer = ana.request("GET", path)
        assert answer.status == 200, (path, answer.status, answer.headers.get("Location"))
    assert "max-age=" in (answer.headers.get("Strict-Transport-Security") or "")
    assert ana.secure["csrftoken"] is True


def test_a_game_made_over_https_shows_its_table_over_wss(front: Front) -> None:
    ana = Browser(front, "127.0.0.2")
    made = ana.post_form("/en/", "/en/", {"name": "Ana", "seats": "2", "ruleset": "yacht"})
    assert made.status == 302, made.status
    location = made.headers["Location"]
    found = re.fullmatch(r"/en/g/([\w-]+)/", location)
    assert found is not None, location
    assert ana.request("GET", location).status == 200
    assert ana.secure["sessionid"] is True

    async def first_message() -> dict[str, object]:
        async with connect(
            f"wss://127.0.0.1:{front.tls_port}/ws/g/{found.group(1)}/?lang=en",
            ssl=front.tls,
            origin=front.origin,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"sessionid={ana.cookies['sessionid']}"},
            local_addr=("127.0.0.2", 0),
            open_timeout=30,
            max_size=2**22,
        ) as ws:
            message: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), 30))
            return message

    table = asyncio.run(first_message())
    assert table["type"] == "table"
    # The session cookie went along: the socket knows Ana's seat.
    assert table["seat"] == 0


def test_players_behind_the_terminator_are_told_apart_and_none_can_name_its_own_address(
    front: Front,
) -> None:
    ana, bo = Browser(front, "127.0.0.2"), Browser(front, "127.0.0.3")
    statuses = [ana.sign_in_to_admin("admin") for _ in range(SIGN_IN_ATTEMPTS + 1)]
    assert statuses[-1] == 429, statuses
    # Another address, the same username: not throttled.
    assert bo.sign_in_to_admin("admin") == 200
    # A fresh browser on Ana's address claiming to be elsewhere is still Ana.
    ana_again = Browser(front, "127.0.0.2")
    assert ana_again.sign_in_to_admin("admin", **{"X-Forwarded-For": "198.51.100.7"}) == 429
    seen = set(AccessAttempt.objects.values_list("ip_address", flat=True))
    assert seen == {"127.0.0.2", "127.0.0.3"}


def test_a_client_reaching_nginx_directly_cannot_claim_https_or_an_address(front: Front) -> None:
    cleo = Browser(front, "127.0.0.4", direct=True)
    claimed = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.8"}
    answer = cleo.request("GET", "/en/", headers=claimed)
    # Plain HTTP, whatever the client says: the app sends it to https.
    assert answer.status == 301
    assert answer.headers["Location"].startswith("https://")
    for _ in range(SIGN_IN_ATTEMPTS + 1):
        cleo.request("GET", "/en/admin/login/", headers=claimed)
    assert "198.51.100.8" not in set(AccessAttempt.objects.values_list("ip_address", flat=True))


def test_the_health_check_is_not_served_to_the_public(front: Front) -> None:
    assert Browser(front, "127.0.0.2").request("GET", "/health/").status == 404
    assert Browser(front, "127.0.0.2", direct=True).request("GET", "/health/").status == 404
    # The operator's monitoring asks the app process itself, over plain
    # HTTP even with DJANGO_HTTPS on (no redirect to a public https address).
    process = HTTPConnection("127.0.0.1", int(front.daphne_url.rsplit(":", 1)[1]), timeout=30)
    try:
        process.request("GET", "/health/")
        answer = process.getresponse()
        assert answer.status == 200
        assert json.loads(answer.read())["database"] == "up"
    finally:
        process.close()


async def open_socket_as(front: Front, token: str, address: str) -> ClientConnection:
    """A websocket opened by the terminator's address on behalf of ``address``
    (straight to nginx: only a terminator can name an IPv6 client here)."""
    origin = f"https://127.0.0.1:{front.nginx_port}"
    return await connect(
        f"ws://127.0.0.1:{front.nginx_port}/ws/g/{token}/?lang=en",
        origin=origin,  # type: ignore[arg-type]
        additional_headers={"X-Forwarded-For": address, "X-Forwarded-Proto": "https"},
        open_timeout=30,
    )


def sockets_opened(front: Front, addresses: list[str]) -> list[int | str]:
    """Open a socket on behalf of each address in turn, keeping every one
    open until the last: "open", or the status nginx refused it with."""
    ana = Browser(front, "127.0.0.2")
    made = ana.post_form("/en/", "/en/", {"name": "Ana", "seats": "2", "ruleset": "yacht"})
    token = made.headers["Location"].split("/")[-2]

    async def scenario() -> list[int | str]:
        held: list[ClientConnection] = []
        outcomes: list[int | str] = []
        try:
            for address in addresses:
                try:
                    ws = await open_socket_as(front, token, address)
                except InvalidStatus as refused:
                    outcomes.append(refused.response.status_code)
                else:
                    await ws.recv()
                    held.append(ws)
                    outcomes.append("open")
        finally:
            for ws in held:
                await ws.close()
        return outcomes

    return asyncio.run(scenario())


def test_nginx_counts_one_ipv6_64_as_one_client_for_open_sockets(front: Front) -> None:
    # Two of a /64, the same /64 written out in full and in another
    # compressed form, then another /64.
    addresses = [
        "2001:db8:0:1::1",
        "2001:db8:0:1::2",
        "2001:0db8:0000:0001:0000:0000:0000:0003",
        "2001:db8::1:ffff:0:0:4",
        "2001:db8:0:2::1",
    ]
    assert sockets_opened(front, addresses) == ["open", "open", 429, 429, "open"]


def test_nginx_counts_an_ipv4_address_written_as_ipv6_as_that_address(front: Front) -> None:
    addresses = ["198.51.100.1", "::ffff:198.51.100.1", "::ffff:c633:6401", "198.51.100.2"]
    assert sockets_opened(front, addresses) == ["open", "open", 429, "open"]


def test_games_posted_past_the_pace_are_refused_by_nginx_and_other_groups_still_create(
    front: Front,
) -> None:
    form = {"name": "Ana", "seats": "1", "ruleset": "yacht"}
    ana = Browser(front, "127.0.0.2")
    shown = ana.request("GET", "/en/")
    token = CSRF_FIELD.search(shown.body)
    assert token is not None
    headers = {"Origin": front.origin, "Referer": front.origin + "/en/"}

    def post() -> Answer:
        return ana.request(
            "POST", "/en/", form={"csrfmiddlewaretoken": token.group(1), **form}, headers=headers
        )

    # The app's pace (3 tries at once) all reach the app and make games.
    assert [post().status for _ in range(3)] == [302, 302, 302]
    # Past it, nginx answers at once: the app renders no refusal.
    refused = post()
    assert refused.status == 429
    assert "csrfmiddlewaretoken" not in refused.body and "nginx" in refused.body
    # Another network is not held back, and the daily form is paced too.
    assert Browser(front, "127.0.0.3").post_form("/en/", "/en/", form).status == 302
    assert ana.request("POST", "/en/daily/", form={}, headers=headers).status == 429


def test_pages_past_the_pace_are_refused_by_nginx_but_static_files_and_other_groups_are_not(
    front: Front,
) -> None:
    eve = Browser(front, "127.0.0.9")
    # nginx passes one page, 30 more at once, then one a second: a client
    # asking as fast as it is answered meets a refusal within a few more.
    statuses = [eve.request("GET", "/en/rules/").status for _ in range(45)]
    assert statuses[:31] == [200] * 31
    assert 429 in statuses[31:]
    refused = eve.request("GET", "/en/")
    assert refused.status == 429 and "nginx" in refused.body
    # Its page's style and Play now's status (the app counts those asks
    # itself) are still served to it, and other networks' pages.
    assert eve.request("GET", "/static/css/yacht.css").status == 200
    assert eve.request("GET", "/en/now/status.json").status == 200
    assert Browser(front, "127.0.0.10").request("GET", "/en/").status == 200
