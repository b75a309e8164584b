"""Settings for Yacht, read from the environment with safe local defaults.

Out of the box: SQLite and the in-memory channel layer, one process.
In production: ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis).
"""

from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)
# A key anyone can read signs sessions and CSRF tokens for anyone: without
# DEBUG the site refuses to start on it, or on the example file's placeholder.
LOCAL_ONLY_SECRET_KEY = "insecure-local-only-key-change-me-in-production"
PLACEHOLDER_SECRET_KEYS = {LOCAL_ONLY_SECRET_KEY, "change-me-to-50-random-characters", ""}
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=LOCAL_ONLY_SECRET_KEY if DEBUG else "")
if not DEBUG and SECRET_KEY in PLACEHOLDER_SECRET_KEYS:
    raise ImproperlyConfigured(
        "Set DJANGO_SECRET_KEY to a long random secret (or DJANGO_DEBUG=1 for local work)."
    )
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "yachtsite.edges.RefuseNulMiddleware",
    "yachtsite.clientaddr.ClientAddressMiddleware",
    "yachtsite.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "yachtsite.outage.DatabaseDownMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a throttled sign-in into its page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "yachtsite.urls"
ASGI_APPLICATION = "yachtsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "yachtsite.loaders.FilesystemLoader",
                        "yachtsite.loaders.AppDirectoriesLoader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The table partial only (games/jinja2/): see yachtsite/jinja2.py.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "APP_DIRS": True,
        # A block tag's indentation is the template's, not the page's: without
        # it every {% if %} line leaves a line of spaces in the HTML.
        "OPTIONS": {"environment": "yachtsite.jinja2.environment", "lstrip_blocks": True},
    },
]

SQLITE_PATH = env.path("YACHT_SQLITE_PATH", default=BASE_DIR / "var" / "yacht.sqlite3")
DATABASES = {
    "default": env.db_url(
        "DATABASE_URL",
        default=f"sqlite:///{SQLITE_PATH}",
    )
}
# Seconds a page (or a socket) waits for a connection to PostgreSQL, from the
# pool or a new one, before answering that the database is not answering
# (yachtsite/outage.py). Waiting 10 s only made a player wait for a 500.
YACHT_DB_TIMEOUT = env.float("YACHT_DB_TIMEOUT", default=3.0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # libpq's own wait for a server that does not answer: none by default
    # (and two seconds at least).
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = max(
        2, round(YACHT_DB_TIMEOUT)
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while one writer works; IMMEDIATE takes the write
    # lock when a transaction opens, so concurrent writers queue (up to the
    # timeout) instead of failing half way with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / "test.sqlite3")}
    # Kept open: closing the last connection to a WAL database checkpoints
    # the log into the file, so a connection per socket message cost a disk
    # sync each (daphne waited on the disk at a third of a core).
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=600)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool(
    "YACHT_DB_POOL", default=True
):
    # Under ASGI each request's sync code runs in a thread of its own, and a
    # persistent connection (CONN_MAX_AGE) stays behind with its thread: one
    # daphne kept 24 connections after 60 page views, and at 200 games
    # PostgreSQL refused clients ("too many clients"). A pool bounds them per
    # process and still spares each query a new connection (Django requires
    # CONN_MAX_AGE 0 with it).
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env.int("YACHT_DB_POOL_SIZE", default=20),
        "timeout": YACHT_DB_TIMEOUT,
    }
else:
    # Closing the connection after every use made PostgreSQL several times slower.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=600)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool(
    "YACHT_DB_SERVER_SIDE_BINDING", default=True
):
    # Parameters travel beside the SQL instead of being quoted into it in
    # Python, and a statement run five times on a connection (a move's lock
    # and write, on the game threads that keep theirs) is prepared, so
    # PostgreSQL parses and plans it once (Django turns preparing off, for
    # the sake of poolers in transaction mode; the pool here is psycopg's
    # own). A move's service call, in-process and alternating: 1.16, 1.39,
    # 1.54 ms of CPU quoted client-side, 0.96, 1.06, 0.99 bound server-side;
    # prepared, its wall time fell from 1.98-2.25 ms to 1.43-2.09.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=5
    )

# Threads doing the sockets' database work, each game always on the same one
# (games/store/dbthreads.py). SQLite writes one transaction at a time: one thread.
YACHT_DB_THREADS = env.int(
    "YACHT_DB_THREADS",
    default=1 if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" else 4,
)

# Threads serving pages (yachtsite/pages.py): a page runs whole on one, so
# this many pages are worked on at once; more wait their turn on the loop.
# One: each page thread rendering takes the interpreter's lock from the event
# loop. With ten, fifty addresses fetching pages within their shares made
# other games' pushes 7.8 times slower (p50 9 -> 55 ms); with two, 1.9 times
# (bench.abuse --attack creation --proxy). With the home page's forms cached,
# two still gave 1.50-2.07x (p50 9 -> 19-25 ms, four runs) and one 1.35x and
# 1.44x (p50 9 -> 13-14 ms), a fresh visitor's game in 0.08-0.10 s. Pages
# alone, on a database on the same host, went as fast with one as with two
# (bench.pages: home 93 and 135 a second, each 0.07 of the floor's rate in
# its run). A page waiting on the database holds its thread, so raise it
# where the database is far away.
YACHT_PAGE_THREADS = env.int("YACHT_PAGE_THREADS", default=1)

# A player's move on the row this process remembers is settled on the
# sockets' loop, not handed to a game's thread and back, which cost more
# CPU than the move (games/live/loopmoves.py): SQLite's statements run there,
# never waiting for its write lock, PostgreSQL's one statement through
# psycopg's asynchronous driver.
YACHT_MOVES_ON_LOOP = env.bool("YACHT_MOVES_ON_LOOP", default=True)

REDIS_URL = env.str("REDIS_URL", default="")
# Options of every Redis client the server makes (the channel layer's pool,
# the limits' counters). redis-py introduces each new connection to the
# server: it looks its own version up in the installed packages' metadata
# (about 0.6 ms) and sends two CLIENT SETINFO commands. When every socket of
# a process closes at once (400 games' 800 sockets), their group_discard
# calls run side by side and the pool opens about 750 connections in a burst.
# Without the introduction a new connection cost 0.5-0.9 ms of CPU instead
# of 1.1-1.3 ms (300 opened at once, three runs each).
REDIS_CLIENT_OPTIONS: dict[str, Any] = {"driver_info": None}
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's core layer, with the process's read of Redis
            # owned by the layer rather than by whichever socket happened to
            # be waiting: see games/live/redislayer.py for the push the stock
            # core layer loses, and why not the stock pub/sub layer.
            "BACKEND": "games.live.redislayer.OwnReaderRedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # channels-redis blocks 5 s per read of a process's
                        # messages, and redis-py's default read timeout is 5 s
                        # too: an idle process lost that race and closed every
                        # socket with 1011. Wait well past it.
                        "socket_timeout": env.float("YACHT_REDIS_SOCKET_TIMEOUT", default=30.0),
                        # The default pool of 100 ran dry at 200 games
                        # (MaxConnectionsError).
                        "max_connections": env.int("YACHT_REDIS_MAX_CONNECTIONS", default=1000),
                        **REDIS_CLIENT_OPTIONS,
                    }
                ],
                # Past ``capacity`` the layer drops group messages silently:
                # sized well above what one process sees.
                "capacity": env.int("YACHT_CHANNEL_CAPACITY", default=5000),
                "expiry": 30,
                "group_expiry": 86400,
            },
        }
    }
else:
    # channels' in-memory layer, minus its walk over every socket on each
    # push: see games/live/memorylayer.py.
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "games.live.memorylayer.SharedCopyInMemoryChannelLayer"}
    }
# Connections each event loop keeps for its short Redis calls (the limits'
# counts and who is at a table share them): past them a call waits for one, a second at
# most (games/store/quotas.py, short_calls_client).
YACHT_REDIS_SHORT_CALL_CONNECTIONS = env.int("YACHT_REDIS_SHORT_CALL_CONNECTIONS", default=32)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("es", _("Spanish")),
    ("it", _("Italian")),
    ("ca", _("Catalan")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Set where collectstatic should gather files (production); unset, files are
# served straight from the apps' static folders.
STATIC_ROOT = env.str("DJANGO_STATIC_ROOT", default=None)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": env.str(
            "YACHT_STATICFILES_STORAGE",
            default="django.contrib.staticfiles.storage.StaticFilesStorage",
        )
    },
}
WHITENOISE_USE_FINDERS = STATIC_ROOT is None

# Django's default cache, and the home page's fragments (what a fresh
# visitor sees is rendered once a process per language) in a cache of the
# process's own: kept forever, they must never outlive the code and
# catalogs that made them, as a cache shared between deploys would. In
# development none are kept: the server reloads an edited template without
# restarting, and a kept fragment would hide the edit.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "template_fragments": {
        "BACKEND": (
            "django.core.cache.backends.dummy.DummyCache"
            if DEBUG
            else "django.core.cache.backends.locmem.LocMemCache"
        ),
        "LOCATION": "template-fragments",
    },
}

SESSION_ENGINE = "yachtsite.sessions"
# A guest's session (their seats) lasts this long after they last took a
# seat; `manage.py clean_stale` deletes expired ones.
SESSION_COOKIE_AGE = 60 * 60 * 24 * env.int("YACHT_SESSION_DAYS", default=90)
# Lobbies nobody started are deleted by `manage.py clean_stale` after this.
YACHT_LOBBY_MAX_HOURS = env.float("YACHT_LOBBY_MAX_HOURS", default=24)
# Started games with no move and no chat line for this many days, never
# finished, are deleted by `manage.py clean_stale` (finished ones never are).
YACHT_ABANDONED_DAYS = env.float("YACHT_ABANDONED_DAYS", default=14)
# Chat lines older than this are deleted by `manage.py clean_stale`.
YACHT_CHAT_KEEP_DAYS = env.float("YACHT_CHAT_KEEP_DAYS", default=30)
SESSION_SAVE_EVERY_REQUEST = False
SESSION_COOKIE_SAMESITE = "Lax"

HTTPS = env.bool("DJANGO_HTTPS", default=False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
# Monitoring asks each app process directly over plain HTTP (nginx keeps
# /health/ from the public).
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="WARNING")},
}


# --- Abuse limits and browser security (kept apart from the tuning above) ---
# Every script and style comes from our own static files: no inline <script>,
# no on*= handlers, no style attributes, so an injected name cannot run.
# (yachtsite.security adds the game socket's origin to connect-src.)
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Games one guest session may create per hour before the form refuses.
YACHT_GAMES_PER_HOUR = env.int("YACHT_GAMES_PER_HOUR", default=20)
# Games one client address may create per hour (a fresh session per request
# must not escape the limit above). An address may be a household or a
# school behind one router, hence more than one session's.
YACHT_GAMES_PER_HOUR_PER_ADDRESS = env.int("YACHT_GAMES_PER_HOUR_PER_ADDRESS", default=60)
# Games (tries included) one client address may start in a row: this many
# over YACHT_GAMES_PACE_SECONDS, so a crowd of addresses spending their
# hourly shares at once is spread out (docs/security.md).
YACHT_GAMES_PACE_PER_ADDRESS = env.int("YACHT_GAMES_PACE_PER_ADDRESS", default=3)
YACHT_GAMES_PACE_SECONDS = env.int("YACHT_GAMES_PACE_SECONDS", default=20)
# The whole site's busy level, not a cap: past this many games an hour, the
# address groups creating the most are held to their fair share of it (this
# number split among the groups creating games, never less than the floor).
# A group within its share, a fresh visitor above all, is never refused for
# what others created (games/store/quotas.py, docs/security.md).
YACHT_GAMES_PER_HOUR_SITE = env.int("YACHT_GAMES_PER_HOUR_SITE", default=3000)
YACHT_GAMES_PER_HOUR_FAIR_FLOOR = env.int("YACHT_GAMES_PER_HOUR_FAIR_FLOOR", default=10)
# Posts of a game's join form per guest session and per client address over
# 10 minutes, refused or not: past them the post is refused before any
# database work.
YACHT_JOINS_PER_SESSION = env.int("YACHT_JOINS_PER_SESSION", default=20)
YACHT_JOINS_PER_ADDRESS = env.int("YACHT_JOINS_PER_ADDRESS", default=60)
# Play now (games/play/queue.py): the seconds the waiting page counts down
# before it offers a bot; a ticket whose page has not asked for this long is
# paired with nobody (a closed tab); the waiting tickets one address group
# may hold at once; the turn clock of a paired game (one of the clocks a
# game can have), which has the stand-in bot play for a person who left.
YACHT_PLAY_NOW_WAIT_SECONDS = env.int("YACHT_PLAY_NOW_WAIT_SECONDS", default=20)
YACHT_PLAY_NOW_STALE_SECONDS = env.int("YACHT_PLAY_NOW_STALE_SECONDS", default=15)
YACHT_PLAY_NOW_WAITING_PER_ADDRESS = env.int("YACHT_PLAY_NOW_WAITING_PER_ADDRESS", default=3)
YACHT_PLAY_NOW_TURN_SECONDS = env.int("YACHT_PLAY_NOW_TURN_SECONDS", default=30)
# Presses of Play now per guest session and per client address over 10
# minutes, refused or not; and the waiting page's questions per minute (it
# asks every 1.5 s), past which it is answered 429 without a database read.
YACHT_PLAY_NOW_JOINS_PER_SESSION = env.int("YACHT_PLAY_NOW_JOINS_PER_SESSION", default=10)
YACHT_PLAY_NOW_JOINS_PER_ADDRESS = env.int("YACHT_PLAY_NOW_JOINS_PER_ADDRESS", default=30)
YACHT_PLAY_NOW_POLLS_PER_SESSION = env.int("YACHT_PLAY_NOW_POLLS_PER_SESSION", default=90)
YACHT_PLAY_NOW_POLLS_PER_ADDRESS = env.int("YACHT_PLAY_NOW_POLLS_PER_ADDRESS", default=300)
# Open game sockets per client address, per guest session and per game, in
# each server process: past a cap the socket is told too_many_sockets and
# closed with 4029.
YACHT_SOCKETS_PER_ADDRESS = env.int("YACHT_SOCKETS_PER_ADDRESS", default=40)
YACHT_SOCKETS_PER_SESSION = env.int("YACHT_SOCKETS_PER_SESSION", default=8)
YACHT_SOCKETS_PER_GAME = env.int("YACHT_SOCKETS_PER_GAME", default=100)
# Open game sockets in each server process, whoever opened them. One
# process serves 400-600 human-paced two-player games at p99 <= 150 ms
# (DESIGN.md), 800-1,200 seated sockets: 1,000 is the middle of that.
# Past it a socket is told server_busy and closed with 4503 (the page tries
# again later). Sockets without a seat are admitted only while the process
# holds at most YACHT_SPECTATOR_SOCKET_SHARE of the ceiling, so the rest
# (200 sockets, 100 two-player games, by default) is always left for
# people seated at a table, and only while fewer than
# YACHT_SPECTATORS_PER_PROCESS are open: a crowd of spectators sending at
# the same moment holds the loop about 0.2 ms each (docs/security.md).
YACHT_SOCKETS_PER_PROCESS = env.int("YACHT_SOCKETS_PER_PROCESS", default=1000)
YACHT_SPECTATOR_SOCKET_SHARE = env.float("YACHT_SPECTATOR_SOCKET_SHARE", default=0.8)
YACHT_SPECTATORS_PER_PROCESS = env.int("YACHT_SPECTATORS_PER_PROCESS", default=200)
# Games of bots alone each server process plays at once; the others wait
# for a slot. Games with a person in them never wait (games/live/botplay.py).
YACHT_BOT_GAMES_PER_PROCESS = env.int("YACHT_BOT_GAMES_PER_PROCESS", default=50)
# Chat lines one game may carry in any 10 seconds, across every process;
# past it, chat_busy. Each line goes to every socket of the game.
YACHT_CHAT_LINES_PER_GAME = env.int("YACHT_CHAT_LINES_PER_GAME", default=20)
# Chat lines delivered to spectators' sockets per second, in each server
# process (players always get theirs); past it a spectator misses a line.
YACHT_CHAT_DELIVERIES_PER_SECOND = env.float("YACHT_CHAT_DELIVERIES_PER_SECOND", default=500.0)
# Chat lines said by spectators that each server process takes per second,
# in all its games together (a second's worth at once); past it,
# chat_busy before any reading. Players' lines never count against it.
YACHT_SPECTATOR_CHAT_LINES_PER_SECOND = env.float(
    "YACHT_SPECTATOR_CHAT_LINES_PER_SECOND", default=10.0
)
# Messages from sockets without a seat (spectators) each server process
# reads per second; past it they are answered spectators_busy unread.
# Seated players' messages never count against it (docs/security.md).
YACHT_SPECTATOR_MESSAGES_PER_SECOND = env.float(
    "YACHT_SPECTATOR_MESSAGES_PER_SECOND", default=200.0
)
# New sockets per client address over 10 seconds (a reconnecting browser
# backs off to far fewer): past it, too_many_sockets and 4029 too.
YACHT_CONNECTS_PER_ADDRESS = env.int("YACHT_CONNECTS_PER_ADDRESS", default=30)
# Seconds between two syncs of one socket that read the game; a sync asked
# sooner is answered from what the socket was last sent (games/live/consumers.py).
YACHT_SYNC_READS_EVERY = env.float("YACHT_SYNC_READS_EVERY", default=1.0)
# Each socket's own messages: a burst, then a steady rate (games/live/consumers.py).
YACHT_SOCKET_MESSAGE_BURST = env.int("YACHT_SOCKET_MESSAGE_BURST", default=30)
YACHT_SOCKET_MESSAGES_PER_SECOND = env.float("YACHT_SOCKET_MESSAGES_PER_SECOND", default=5.0)
# Socket messages per guest session and per client address over 10 seconds,
# across all their sockets and server processes. Each socket also keeps to
# a burst of 30, then 5 a second, of its own: one socket that keeps to that
# sends at most 80 in 10 seconds, within the session's share.
YACHT_MESSAGES_PER_SESSION = env.int("YACHT_MESSAGES_PER_SESSION", default=100)
YACHT_MESSAGES_PER_ADDRESS = env.int("YACHT_MESSAGES_PER_ADDRESS", default=200)
# Every limit per client address counts an address group: an IPv6 /64 (one
# subscriber's), and an IPv4 address, or a wider IPv4 network with a prefix
# below 32 (24 counts a /24 as one client).
YACHT_IPV4_GROUP_PREFIX = env.int("YACHT_IPV4_GROUP_PREFIX", default=32)
# Addresses (or networks) of the proxies in front of daphne, whose
# X-Forwarded-For names the client: nobody else's is believed.
YACHT_TRUSTED_PROXIES = env.list("YACHT_TRUSTED_PROXIES", default=[])
# Admin sign-in: django-axes counts failures per client address and username
# in the database, so the count is shared by every process and holds with
# Redis down. Past the limit that pair waits out a cool-off (a failure
# meanwhile restarts it); nobody else, and no other address, is locked out.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("YACHT_ADMIN_LOGIN_ATTEMPTS", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("YACHT_ADMIN_LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "yachtsite.clientaddr.request_address"
AXES_LOCKOUT_CALLABLE = "yachtsite.security.admin_sign_in_throttled"
AXES_HTTP_RESPONSE_CODE = 429

# --- Bots ---
# Seconds a bot waits before each roll or score, so people can follow it.
YACHT_BOT_PAUSE = (
    env.float("YACHT_BOT_PAUSE_MIN", default=0.6),
    env.float("YACHT_BOT_PAUSE_MAX", default=1.2),
)
# At a game's fast bot pace each pause is this share of the normal one. A
# quarter (0.15-0.3 s) still shows each roll land (the dice tumble for
# 0.15 s at that pace) while a bot's whole turn takes under a second.
YACHT_BOT_FAST_SHARE = env.float("YACHT_BOT_FAST_SHARE", default=0.25)
# Seconds a player may be idle on their turn before the others may let a bot
# stand in for them.
YACHT_ABSENT_AFTER = env.int("YACHT_ABSENT_AFTER", default=60)

# --- Presence ---
# Seconds a seat whose last socket closed keeps its state before it shows as
# gone: a refresh or a brief drop reconnects well within it.
YACHT_PRESENCE_GRACE_SECONDS = env.float("YACHT_PRESENCE_GRACE_SECONDS", default=5.0)
# Seconds a socket's presence lasts unless its process renews it (every third
# of this): how long the seats of a process that died still look present.
YACHT_PRESENCE_TTL_SECONDS = env.float("YACHT_PRESENCE_TTL_SECONDS", default=15.0)
