"""The docker-compose deployment, checked without a Docker engine: the files
parse and say what the production topology needs; nginx accepts its config
when Debian's nginx is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.run_cluster import ROOT, loopback_nginx_conf


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_several_app_replicas_behind_nginx_after_a_one_shot_migration(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert set(services) == {"db", "redis", "migrate", "app", "nginx"}
    app = services["app"]
    replicas = str(app["deploy"]["replicas"])
    assert int(re.sub(r"\$\{\w+:-(\d+)\}", r"\1", replicas)) >= 2
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"][-2:] == ["migrate", "--no-input"]
    assert services["migrate"]["restart"] == "no"
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in services["nginx"]["volumes"]
    assert app["environment"]["REDIS_URL"].startswith("redis://redis:")


def test_the_database_and_redis_have_health_checks_and_volumes_that_others_wait_for(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    for name in ("db", "redis"):
        assert services[name]["healthcheck"]["test"]
        volume = services[name]["volumes"][0].split(":")[0]
        assert volume in compose["volumes"]
        assert services["app"]["depends_on"][name]["condition"] == "service_healthy"


def test_every_setting_compose_reads_is_in_the_example_env_file_and_the_real_one_is_ignored(
    compose: dict[str, Any],
) -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    wanted = set(re.findall(r"(?<!\$)\$\{(\w+)", text))
    example = (ROOT / ".env.example").read_text()
    defined = set(re.findall(r"^(\w+)=", example, flags=re.M))
    assert wanted <= defined
    assert {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "POSTGRES_PASSWORD"} <= defined
    assert compose["services"]["app"]["env_file"] == ".env"
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_the_image_collects_static_files_for_whitenoise_at_build_time() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "collectstatic --no-input" in dockerfile
    assert "whitenoise.storage.CompressedManifestStaticFilesStorage" in dockerfile
    assert re.search(r'^CMD \["daphne"', dockerfile, flags=re.M)


def test_the_proxy_passes_the_websocket_upgrade_through() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    websocket = conf[conf.index("location /ws/") :]
    websocket = websocket[: websocket.index("}")]
    assert "proxy_set_header Upgrade $http_upgrade;" in websocket
    assert "proxy_set_header Connection $connection_upgrade;" in websocket
    assert "proxy_read_timeout 1h;" in websocket


@pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed",
)
def test_nginx_accepts_the_loopback_version_of_the_deploy_config(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    conf = tmp_path / "nginx.conf"
    conf.write_text(loopback_nginx_conf([18081, 18082], 18080, tmp_path))
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    assert "server 127.0.0.1:18082;" in conf.read_text()


@pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed",
)
def test_a_load_test_raises_the_proxy_cap_on_sockets_per_address_and_nothing_else(
    tmp_path: Path,
) -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    plain = loopback_nginx_conf([18081], 18080, tmp_path)
    raised = loopback_nginx_conf([18081], 18080, tmp_path, sockets_per_address=5000)
    assert "limit_conn yacht_sockets_per_address 100;" in plain
    assert "limit_conn yacht_sockets_per_address 5000;" in raised
    assert raised.replace(" 5000;", " 100;") == plain
    conf = tmp_path / "nginx.conf"
    conf.write_text(raised)
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


def _proxy_pace(conf: str, zone: str) -> tuple[float, int]:
    """A ``limit_req`` zone's rate a second and the burst its use allows."""
    rate = re.search(rf"zone={zone}:\S+ rate=(\d+)r/([sm]);", conf)
    burst = re.search(rf"limit_req zone={zone} burst=(\d+) nodelay;", conf)
    assert rate is not None and burst is not None, zone
    per_second = int(rate.group(1)) / (60 if rate.group(2) == "m" else 1)
    return per_second, int(burst.group(1))


@pytest.mark.parametrize(
    ("zone", "tries", "seconds"),
    [
        ("yacht_games_per_address", "YACHT_GAMES_PACE_PER_ADDRESS", "YACHT_GAMES_PACE_SECONDS"),
        ("yacht_connects_per_address", "YACHT_CONNECTS_PER_ADDRESS", 10),
    ],
)
def test_the_proxy_lets_through_at_least_what_the_apps_own_limit_allows(
    settings, zone: str, tries: str, seconds: str | int
) -> None:
    # nginx refuses only past the app's limit, so a player within it always
    # reaches the app (and past it hears the app's own translated refusal).
    window = seconds if isinstance(seconds, int) else getattr(settings, seconds)
    allowed = getattr(settings, tries)
    per_second, burst = _proxy_pace((ROOT / "deploy" / "nginx.conf").read_text(), zone)
    # nginx passes one request, then ``burst`` more at once, then the rate.
    assert burst + 1 >= allowed
    assert per_second * window >= allowed


def test_a_load_test_lifts_the_proxys_paces_per_address_and_nothing_else(tmp_path: Path) -> None:
    paced = loopback_nginx_conf([18081], 18080, tmp_path)
    lifted = loopback_nginx_conf([18081], 18080, tmp_path, request_limits=False)
    assert "limit_req zone=" not in lifted
    kept = [line for line in paced.splitlines() if "limit_req zone=" not in line]
    assert kept == lifted.splitlines()


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_package_the_project_names_is_pinned_in_the_lock_the_image_installs_from() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    named = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["test"],
        *project["dependency-groups"]["dev"],
    ]
    wanted = {_normalized(re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0]) for spec in named}
    pinned = {
        _normalized(line.split("==", 1)[0])
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line and not line.startswith((" ", "#"))
    }
    assert wanted <= pinned, wanted - pinned
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install -c requirements.lock ." in dockerfile


def test_the_proxy_believes_the_same_tls_terminators_for_the_client_and_for_the_scheme() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    realip = re.findall(r"^set_real_ip_from (\S+);$", conf, flags=re.M)
    geo = conf[conf.index("geo $realip_remote_addr $from_tls_terminator {") :]
    geo = geo[: geo.index("}")]
    assert realip
    assert re.findall(r"^    (\S+) 1;$", geo, flags=re.M) == realip
    assert "real_ip_recursive on;" in conf
    # Both locations name the client and the scheme from what was settled.
    assert conf.count("proxy_set_header X-Forwarded-Proto $forwarded_proto;") == 2
    assert conf.count("proxy_set_header X-Forwarded-For $remote_addr;") == 2
    assert "$http_x_forwarded" not in conf.replace(
        '"$from_tls_terminator:$http_x_forwarded_proto"', ""
    )


@pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed",
)
def test_on_loopback_the_proxy_believes_only_the_terminators_it_is_given(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    alone = loopback_nginx_conf([18081], 18080, tmp_path)
    fronted = loopback_nginx_conf([18081], 18080, tmp_path, tls_terminators=["127.0.0.1", "::1"])
    assert "set_real_ip_from" not in alone
    assert "set_real_ip_from 127.0.0.1;\nset_real_ip_from ::1;\n" in fronted
    assert "    default 0;\n    127.0.0.1 1;\n    ::1 1;\n}" in fronted
    for text in (alone, fronted):
        conf = tmp_path / "nginx.conf"
        conf.write_text(text)
        checked = subprocess.run(
            [nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stderr
