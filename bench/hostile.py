"""A long run of the hostile-socket property test, with its figures.

    .venv/bin/python bench/hostile.py [--messages 100000]

It runs tests/security/test_hostile_sockets.py with YACHT_HOSTILE_MESSAGES
set (on whatever DATABASE_URL / REDIS_URL say, the defaults otherwise) and
prints how many messages were tried, rejected and accepted, and the
throughput. Every message is still checked against the rules and the
database, so this is a soak test first and a benchmark second.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "hostile.json"
        env = {
            **os.environ,
            "YACHT_HOSTILE_MESSAGES": str(args.messages),
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
            "YACHT_HOSTILE_REPORT": str(report),
        }
        test = "tests/security/test_hostile_sockets.py"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
            cwd=ROOT,
            env=env,
            check=False,
        )
        if not report.exists():
            print("the run ended before reporting: see pytest's output above")
            return done.returncode or 1
        stats = json.loads(report.read_text())
    seconds = stats["seconds"]
    print(f"messages tried:    {stats['tried']}")
    print(f"rejected:          {stats['rejected']}")
    print(f"accepted:          {stats['accepted']}")
    print(f"answered a table:  {stats['tried'] - stats['rejected'] - stats['accepted']} (syncs)")
    print(f"floods cut off:    {stats['floods']}")
    print(f"seconds:           {seconds:.1f}")
    print(f"throughput:        {stats['tried'] / seconds:.0f} messages/s")
    print("refusals by code:  " + ", ".join(f"{k} {v}" for k, v in sorted(stats["codes"].items())))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
