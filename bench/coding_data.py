"""A coding history to judge retrieval on: six projects that share their vocabulary, and questions about it.

Forty incidents (a symptom, an investigation with commands and what they
printed, a cause, a fix) are spread over six projects that all talk about
Postgres, Docker, auth, caching and flaky tests, so no single word gives a
session away. Several incidents look alike (a refused database connection, a
user logged out, something out of memory) and differ in their cause. Some are
buried in the middle of a long session about other things. Around them, about
a hundred and twenty routine sessions (endpoints, refactors, upgrades, tests)
reuse the same words.

Each incident carries the question a developer would ask weeks later (the
symptom, not the fix's words) and, for many, a question about what a command
printed (a number, a path, an error). ``UNANSWERABLE`` asks about the same
libraries things the history never holds. ``BLIND`` and
``BLIND_UNANSWERABLE`` are a third, held-out set written blind (see their
comment). Everything is written through
``deja.core.writers`` (cursor-agent transcripts with their ``store.db`` and the
IDE's ``state.vscdb``) from one seed, so the same seed gives the same files.

    python bench/coding_data.py OUT_DIR      # write the history and print its size
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from generate import write_cli_chat, write_ide_chats

from deja.core.sample import SampleHistory

#: A tool call as the writers take it: (tool, args, output, exit code).
Call = tuple[str, dict[str, Any], str, int]
#: A turn as the writers take it: (role, text, calls).
Turn = tuple[str, str, list[Call]]

PROJECTS = {
    "billing-api": "/home/dev/src/billing-api",
    "storefront": "/home/dev/src/storefront",
    "ingest-worker": "/home/dev/src/ingest-worker",
    "infra": "/home/dev/src/infra",
    "mobile-app": "/home/dev/src/mobile-app",
    "analytics": "/home/dev/src/analytics",
}
SEED = 14
BASE = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)


def sh(command: str, output: str, code: int = 0) -> Call:
    return ("Shell", {"command": command, "description": "run"}, output, code)


def edit(path: str, old: str, new: str) -> Call:
    return ("StrReplace", {"path": path, "old_string": old, "new_string": new}, "The file has been updated.", 0)


@dataclass
class Incident:
    key: str
    project: str
    title: str
    ask: str
    #: Assistant turns: (text, the tool call it makes or None).
    steps: list[tuple[str, Call | None]]
    summary: str
    #: Asked weeks later, in the words of the symptom.
    symptom: str
    #: Asked about what a command printed.
    printed: list[str] = field(default_factory=list)
    #: Buried in a long session about other things.
    long: bool = False


INCIDENTS = [
    # ------------------------------------------------------------------ billing-api
    Incident(
        "api-compose-db-host",
        "billing-api",
        "api container can't reach postgres",
        "After `docker compose up` the api container crash-loops; postgres itself is healthy. Can you look?",
        [
            (
                "Let me check the api logs.",
                sh(
                    "docker compose logs api --tail 20",
                    'api-1  | sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: connection to server at "127.0.0.1", port 5432 failed: Connection refused\napi-1  | exited with code 1',
                    0,
                ),
            ),
            (
                "Inside the container 127.0.0.1 is the container itself, not the database. DATABASE_URL in .env points at localhost; on the compose network the database is reachable by its service name `db`.",
                edit(
                    ".env.compose",
                    "DATABASE_URL=postgresql://billing:billing@localhost:5432/billing",
                    "DATABASE_URL=postgresql://billing:billing@db:5432/billing",
                ),
            ),
            (
                "Restarting the stack.",
                sh("docker compose up -d api && docker compose ps api", "billing-api-api-1  running (healthy)"),
            ),
        ],
        "Fixed: the compose env file used localhost for the database host; inside the network it has to be the service name `db`.",
        "the api container kept dying at startup although postgres was up, what was wrong?",
    ),
    Incident(
        "api-ci-db-not-ready",
        "billing-api",
        "CI tests fail before postgres is ready",
        "CI fails maybe one run in four before any test runs, something about the server. Rerunning fixes it.",
        [
            (
                "Looking at a failed job log.",
                sh(
                    "gh run view 8812734 --log-failed | tail -5",
                    "E   psycopg.OperationalError: connection failed: server closed the connection unexpectedly\nE   \tThis probably means the server terminated abnormally before or while processing the request.\nERROR tests/conftest.py - psycopg.OperationalError",
                    0,
                ),
            ),
            (
                "The job starts pytest as soon as the postgres service container exists, not when it accepts connections. A service health check with pg_isready makes the runner wait.",
                edit(
                    ".github/workflows/ci.yml",
                    "image: postgres:16",
                    'image: postgres:16\n        options: >-\n          --health-cmd "pg_isready -U billing" --health-interval 2s --health-retries 30',
                ),
            ),
            (
                "Re-running the workflow ten times to be sure.",
                sh("gh workflow run ci.yml --ref fix/ci-pg-health -f repeat=10", "10 runs: 10 succeeded"),
            ),
        ],
        "The postgres service now has a pg_isready health check, so the job waits for the database before pytest starts.",
        "why did the test job sometimes die before a single test ran, complaining about the db connection?",
    ),
    Incident(
        "api-migration-duplicate-column",
        "billing-api",
        "staging deploy fails on alembic upgrade",
        "The staging deploy is red, it stops at the migration step.",
        [
            (
                "Running the migration against staging to see the error.",
                sh(
                    "alembic upgrade head",
                    'INFO  [alembic.runtime.migration] Running upgrade 3f2a91c -> 7b84d0e, add currency to invoices\npsycopg.errors.DuplicateColumn: column "currency" of relation "invoices" already exists',
                    1,
                ),
            ),
            (
                "Someone added the column by hand on staging last month, so the migration finds it already there. Making the migration idempotent.",
                edit(
                    "migrations/versions/7b84d0e_add_currency.py",
                    'op.add_column("invoices", sa.Column("currency", sa.String(3)))',
                    'op.execute("ALTER TABLE invoices ADD COLUMN IF NOT EXISTS currency varchar(3)")',
                ),
            ),
            (
                "Again.",
                sh(
                    "alembic upgrade head",
                    "INFO  [alembic.runtime.migration] Running upgrade 3f2a91c -> 7b84d0e, add currency to invoices",
                ),
            ),
        ],
        "The migration now uses ADD COLUMN IF NOT EXISTS, because the column had been created by hand on staging.",
        "the staging release broke on a schema change that said something was already there — how did we get past it?",
        ["what exactly did the migration error say when the staging deploy failed?"],
    ),
    Incident(
        "api-webhook-signature",
        "billing-api",
        "stripe webhook signature invalid in staging",
        "Stripe webhooks get 400 in staging, `No signatures found matching the expected signature for payload`. Locally with the stripe CLI they pass.",
        [
            (
                "Checking the handler.",
                sh(
                    "rg -n 'construct_event' app/",
                    "app/webhooks/stripe.py:41:    event = stripe.Webhook.construct_event(json.dumps(payload), sig, secret)",
                ),
            ),
            (
                "The handler verifies a re-serialised copy of the parsed JSON. Locally the bytes happen to match; behind the staging proxy the key order and whitespace differ. The signature must be checked on the raw request body.",
                edit(
                    "app/webhooks/stripe.py",
                    "event = stripe.Webhook.construct_event(json.dumps(payload), sig, secret)",
                    "event = stripe.Webhook.construct_event(await request.body(), sig, secret)",
                ),
            ),
        ],
        "Webhooks verify against the raw body now; re-serialised JSON never matches the signature byte for byte.",
        "payment provider callbacks were rejected as invalid on staging but worked on my machine — what was the cause?",
        ["which source file built the stripe event from the payload?"],
    ),
    Incident(
        "api-refund-stale-total",
        "billing-api",
        "invoice total stale after partial refund",
        "Support says after a partial refund the invoice page still shows the full amount, for an hour or so.",
        [
            (
                "The invoice view is cached in redis for an hour.",
                sh("redis-cli TTL invoice:inv_8842:v1", "(integer) 3412"),
            ),
            (
                "Refunds update the invoice row but nothing evicts the cached view; only edits through the admin do. Evicting on refund.",
                edit(
                    "app/refunds/service.py",
                    "session.commit()",
                    "session.commit()\n        cache.delete(invoice_cache_key(invoice.id))",
                ),
            ),
            ("Tests.", sh("pytest -q tests/refunds", "23 passed in 1.84s")),
        ],
        "The refund path now evicts the invoice's cache entry; before, only admin edits did.",
        "customers kept seeing the old amount on their bill after we gave part of the money back",
    ),
    Incident(
        "api-due-date-midnight",
        "billing-api",
        "test_invoice_due_date fails at night",
        "test_invoice_due_date failed on the nightly run again, it passes when I run it.",
        [
            (
                "Running it with a faked clock at 23:30 UTC.",
                sh(
                    "pytest -q tests/test_invoices.py::test_invoice_due_date",
                    "E       AssertionError: assert datetime.date(2026, 3, 15) == datetime.date(2026, 3, 14)\nFAILED tests/test_invoices.py::test_invoice_due_date",
                    1,
                ),
            ),
            (
                "The code takes the due date from the UTC timestamp, the test from date.today() in the machine's zone; they disagree between midnight UTC and midnight local. Freezing the time in the test.",
                edit(
                    "tests/test_invoices.py",
                    "def test_invoice_due_date():",
                    '@freeze_time("2026-03-01 23:30:00+00:00")\ndef test_invoice_due_date():',
                ),
            ),
        ],
        "The due-date test now freezes time; it compared a UTC date with a local one and failed around midnight.",
        "one of the billing tests only failed when the scheduled run happened late in the evening",
    ),
    Incident(
        "api-orders-backfill",
        "billing-api",
        "backfill order totals",
        "Run the order totals backfill against production, batches of 5000, and tell me how it went.",
        [
            (
                "Dry run first.",
                sh("python scripts/backfill_order_totals.py --dry-run", "would update 1893112 rows in 379 batches"),
            ),
            (
                "Now for real.",
                sh(
                    "python scripts/backfill_order_totals.py --batch-size 5000",
                    "batch 379/379 done\nbackfilled 1893112 rows in 412.3s (4591 rows/s)\nskipped 17 rows with NULL currency",
                ),
            ),
        ],
        "The backfill finished; 17 rows with no currency were skipped and need a look.",
        "the one-off job that recomputed order amounts in production: did anything get skipped?",
        ["how many rows did the order totals backfill end up updating?", "1893112"],
        long=True,
    ),
    Incident(
        "api-pool-exhausted",
        "billing-api",
        "api times out under load test",
        "The k6 load test at 200 rps makes the api time out after a minute. CPU is fine.",
        [
            (
                "The api log during the test.",
                sh(
                    "docker compose logs api | grep -m1 TimeoutError",
                    "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00",
                ),
            ),
            (
                "The pool is exhausted. The PDF receipt background task opens a session and never closes it, so every receipt leaks a connection.",
                edit(
                    "app/receipts/tasks.py",
                    "session = SessionLocal()",
                    "with SessionLocal() as session:",
                ),
            ),
            (
                "Load test again.",
                sh(
                    "k6 run load/invoices.js",
                    "http_req_failed................: 0.00%  ✓ 0  ✗ 12000\nhttp_req_duration..............: p(95)=84ms",
                ),
            ),
        ],
        "A background task leaked database sessions; with a context manager the pool stays within its limit.",
        "under the load test the api hung waiting on the database even though cpu was idle",
        ["what size and overflow did the connection pool timeout error report?"],
    ),
    Incident(
        "api-jwt-clock-skew",
        "billing-api",
        "tokens expire immediately on one node",
        "Some users get kicked back to login right after signing in. Only requests served by api-2 it seems.",
        [
            (
                "Comparing clocks.",
                sh("ssh api-2 date -u; date -u", "Tue Mar 10 14:07:41 UTC 2026\nTue Mar 10 14:04:29 UTC 2026"),
            ),
            (
                "api-2's clock is 3 minutes 12 seconds ahead, so the access token's iat looks like it is in the future / about to expire. chrony was not running there. Also allowing a little leeway.",
                edit(
                    "app/auth/tokens.py",
                    'jwt.decode(token, key, algorithms=["RS256"])',
                    'jwt.decode(token, key, algorithms=["RS256"], leeway=30)',
                ),
            ),
            (
                "Enable time sync.",
                sh(
                    "ssh api-2 sudo systemctl enable --now chronyd",
                    "Created symlink /etc/systemd/system/multi-user.target.wants/chronyd.service.",
                ),
            ),
        ],
        "api-2's clock had drifted; chrony is on and token checks allow 30 s leeway.",
        "people were signed out straight after logging in, but only when they hit one particular server",
        ["how far ahead was the clock on the second api box?"],
    ),
    # ------------------------------------------------------------------ storefront
    Incident(
        "shop-dynamic-cookies",
        "storefront",
        "next build fails on account page",
        "`next build` fails now, it worked yesterday. Something about the account page.",
        [
            (
                "Building.",
                sh(
                    "pnpm build",
                    "Error: Dynamic server usage: Route /account couldn't be rendered statically because it used `cookies`.\n> Export encountered errors on following paths:\n\t/account/page: /account",
                    1,
                ),
            ),
            (
                "The new header reads cookies() to show the user's name, which makes every page using it dynamic; /account was still marked static.",
                edit(
                    "app/account/page.tsx", "export const revalidate = 3600", 'export const dynamic = "force-dynamic"'
                ),
            ),
            ("Building again.", sh("pnpm build", "✓ Compiled successfully\n✓ Generating static pages (41/41)")),
        ],
        "The account page is now dynamic; the header's cookie read made static generation fail.",
        "the shop's production build started failing on the profile page, what did we change?",
        ["how many static pages did the shop build generate once it passed again?"],
    ),
    Incident(
        "shop-checkout-flaky",
        "storefront",
        "checkout e2e test flaky",
        "checkout.spec.ts fails every few runs at the pay button. Can you find out why?",
        [
            (
                "Repeating it 50 times.",
                sh(
                    "pnpm playwright test e2e/checkout.spec.ts --repeat-each 50",
                    'Error: locator.click: Element is not visible\n  - element is covered by <div class="toast">Added to cart</div>\n  7 failed\n  43 passed (3.8m)',
                    1,
                ),
            ),
            (
                "The 'Added to cart' toast slides over the pay button for 1.5 s. The test clicks before it disappears.",
                edit(
                    "e2e/checkout.spec.ts",
                    "await page.getByRole('button', { name: 'Pay' }).click()",
                    "await page.locator('.toast').waitFor({ state: 'detached' })\n  await page.getByRole('button', { name: 'Pay' }).click()",
                ),
            ),
            ("Again 50 times.", sh("pnpm playwright test e2e/checkout.spec.ts --repeat-each 50", "  50 passed (3.9m)")),
        ],
        "The test waits for the cart toast to go before clicking Pay.",
        "the end-to-end purchase test failed now and then when clicking to pay",
        ["how many of the 50 repeated checkout runs failed before the fix?"],
    ),
    Incident(
        "shop-cdn-stale-price",
        "storefront",
        "old price shown for a day",
        "Marketing changed a price in the admin at 9 and the product page still shows the old one at 3pm.",
        [
            (
                "Headers of the product API.",
                sh(
                    "curl -sI https://shop.example.com/api/products/sku-1182 | grep -i cache",
                    "cache-control: public, s-maxage=86400\nx-cache: HIT",
                ),
            ),
            (
                "The product API is cached at the CDN for a day and nothing purges it. Switching to tag revalidation from the admin's save hook.",
                edit("app/api/products/[sku]/route.ts", "s-maxage=86400", "s-maxage=60, stale-while-revalidate=300"),
            ),
        ],
        "Product responses are cached for 60 s at the edge and the admin revalidates the product's tag on save.",
        "after editing a price in the back office, the site kept showing the previous one for hours",
        ["what cache-control header was the product endpoint sending?"],
    ),
    Incident(
        "shop-nextauth-https",
        "storefront",
        "login loops in production",
        "In production signing in sends you back to the sign-in page. Locally fine.",
        [
            (
                "Checking the env.",
                sh("vercel env ls production | grep NEXTAUTH", "NEXTAUTH_URL  http://shop.example.com  Production"),
            ),
            (
                "NEXTAUTH_URL is http, so the session cookie is set without the secure prefix but the site is served over https and looks for `__Secure-next-auth.session-token`.",
                sh(
                    "vercel env add NEXTAUTH_URL production <<< https://shop.example.com",
                    "Added Environment Variable NEXTAUTH_URL to Project storefront",
                ),
            ),
        ],
        "NEXTAUTH_URL had to be https for the secure session cookie to be found.",
        "signing in worked on localhost but on the live site you bounced straight back to the login form",
    ),
    Incident(
        "shop-image-size",
        "storefront",
        "slim the storefront docker image",
        "The storefront image is huge and deploys are slow. Make it smaller.",
        [
            (
                "Current size.",
                sh(
                    "docker images storefront",
                    "REPOSITORY   TAG      IMAGE ID       SIZE\nstorefront   latest   4be1f0c2d9aa   1.92GB",
                ),
            ),
            (
                "It ships node_modules and the whole build. Using Next's standalone output and a multi-stage build.",
                edit("next.config.js", "module.exports = {", "module.exports = {\n  output: 'standalone',"),
            ),
            (
                "Rebuilt.",
                sh(
                    "docker build -t storefront . && docker images storefront",
                    "storefront   latest   9c03aa71e2b4   212MB",
                ),
            ),
        ],
        "The image went from 1.92GB to 212MB with standalone output and a multi-stage Dockerfile.",
        "how did we make shop deploys faster by shrinking what we ship?",
        ["how big was the storefront image before we slimmed it down?"],
    ),
    Incident(
        "shop-hydration-locale",
        "storefront",
        "hydration mismatch on order history",
        "React warns `Text content does not match server-rendered HTML` on the order history page.",
        [
            (
                "The dates. The server renders toLocaleString() in the container's locale (en-US), the browser in the user's locale (de-DE): '3/4/2026' against '4.3.2026'.",
                edit(
                    "components/OrderRow.tsx",
                    "{new Date(order.createdAt).toLocaleString()}",
                    "{formatDate(order.createdAt, userLocale)}",
                ),
            ),
            ("Checking.", sh("pnpm test components/OrderRow", "Tests: 6 passed, 6 total")),
        ],
        "Dates are formatted with the user's locale on both sides, so server and client render the same text.",
        "the order history page complained that the html from the server didn't match the browser's, dates were in a different locale",
    ),
    Incident(
        "shop-localstorage-safari",
        "storefront",
        "cart empties in private mode",
        "In Safari private browsing the cart empties when you go to the next page.",
        [
            (
                "The cart is persisted in localStorage; in Safari private mode setItem throws QuotaExceededError and the store resets.",
                edit(
                    "lib/cart/persist.ts",
                    "localStorage.setItem(KEY, JSON.stringify(cart))",
                    "try { localStorage.setItem(KEY, JSON.stringify(cart)) } catch { memoryFallback.set(KEY, cart) }",
                ),
            ),
        ],
        "Cart persistence falls back to memory when localStorage refuses writes.",
        "on the iphone in a private tab the basket forgot its items between pages",
    ),
    # ------------------------------------------------------------------ ingest-worker
    Incident(
        "worker-oom-csv",
        "ingest-worker",
        "importer killed on large file",
        "The ingest job dies on the ACME file (6 GB), no error in our logs.",
        [
            (
                "The kernel log.",
                sh(
                    "dmesg | grep -i 'killed process'",
                    "Out of memory: Killed process 23817 (ingest) total-vm:4128832kB, anon-rss:3911204kB, file-rss:0kB",
                ),
            ),
            (
                "ReadAll loads the whole file into memory before parsing. Streaming rows through csv.Reader instead.",
                edit(
                    "internal/importer/csv.go",
                    "data, err := io.ReadAll(f)",
                    "r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))",
                ),
            ),
            (
                "Running the ACME file again.",
                sh("go run ./cmd/ingest --file acme.csv", "imported 48211033 rows, peak RSS 61 MB"),
            ),
        ],
        "The importer streams the CSV instead of reading it whole; peak memory went from ~3.9 GB to 61 MB.",
        "the importer kept getting killed on the biggest customer upload with nothing in our logs",
        ["how much resident memory did the ingest process have when the kernel killed it?"],
    ),
    Incident(
        "worker-deadlock-upsert",
        "ingest-worker",
        "bulk upsert aborts",
        "The nightly sync sometimes aborts one batch with an error from postgres.",
        [
            (
                "Finding it in the log.",
                sh(
                    "kubectl logs job/nightly-sync | grep -m1 ERROR",
                    "ERROR: deadlock detected (SQLSTATE 40P01)\nDETAIL: Process 4121 waits for ShareLock on transaction 998871; blocked by process 4188.",
                ),
            ),
            (
                "Two workers upsert overlapping customers in different orders. Sorting each batch by customer id makes them take row locks in the same order.",
                edit(
                    "internal/sync/upsert.go",
                    "for _, row := range batch {",
                    "sort.Slice(batch, func(i, j int) bool { return batch[i].CustomerID < batch[j].CustomerID })\n\tfor _, row := range batch {",
                ),
            ),
        ],
        "Batches are sorted by customer id before the upsert so concurrent workers lock rows in one order.",
        "the overnight sync job occasionally lost a batch because two transactions were waiting on each other",
        ["which SQLSTATE code did postgres give when the nightly sync batch aborted?"],
    ),
    Incident(
        "worker-docker-dns-vpn",
        "ingest-worker",
        "docker build can't download go modules",
        "docker build for the worker fails while I'm on the VPN.",
        [
            (
                "Building.",
                sh(
                    "docker build -t ingest-worker .",
                    'go: github.com/jackc/pgx/v5@v5.5.5: Get "https://proxy.golang.org/github.com/jackc/pgx/v5/@v/v5.5.5.mod": dial tcp: lookup proxy.golang.org on 10.8.0.1:53: no such host',
                    1,
                ),
            ),
            (
                "The build containers use the VPN's resolver 10.8.0.1, which does not answer for public names. Giving the docker daemon its own DNS servers.",
                edit("/etc/docker/daemon.json", "{}", '{"dns": ["1.1.1.1", "8.8.8.8"]}'),
            ),
        ],
        "The docker daemon uses public DNS; the VPN resolver could not resolve the module proxy.",
        "building the worker image couldn't fetch dependencies while I was connected to the corporate network",
        ["which resolver address did the module download try to use?"],
    ),
    Incident(
        "worker-flaky-backoff",
        "ingest-worker",
        "TestRetryBackoff flaky",
        "TestRetryBackoff fails randomly on CI. Never locally.",
        [
            (
                "Running it under load.",
                sh(
                    "go test -run TestRetryBackoff -count 200 -cpu 1 ./internal/retry",
                    "--- FAIL: TestRetryBackoff (0.31s)\n    retry_test.go:44: elapsed 312ms, want < 300ms\nFAIL",
                    1,
                ),
            ),
            (
                "It asserts wall-clock time around real sleeps; a loaded runner oversleeps. Injecting a fake clock.",
                edit("internal/retry/retry.go", "time.Sleep(d)", "r.clock.Sleep(d)"),
            ),
        ],
        "The retry test uses a fake clock instead of measuring real sleeps.",
        "a timing test in the go service failed at random on the slow build machines",
    ),
    Incident(
        "worker-s3-plus",
        "ingest-worker",
        "some uploads refused by the bucket",
        "Some exports never arrive in the bucket. The worker logs a 403 for them.",
        [
            (
                "One failing key.",
                sh(
                    "grep -m1 SignatureDoesNotMatch worker.log",
                    "upload exports/acme/2026-03/report+final.csv: SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided",
                ),
            ),
            (
                "Keys with a '+' are signed unescaped but sent percent-encoded. Encoding the key once with the SDK's path escaper.",
                edit("internal/export/s3.go", "Key: aws.String(key)", "Key: aws.String(sanitizeKey(key))"),
            ),
        ],
        "Object keys containing '+' broke the request signature; keys are sanitised before upload.",
        "uploads to the bucket were refused, but only for files with certain characters in their names",
        ["which export file did the bucket refuse with a signature error?"],
    ),
    Incident(
        "worker-timezone-orders",
        "ingest-worker",
        "orders dated a day early",
        "Australian customers see their orders dated the day before.",
        [
            (
                "The CSV dates have no zone and are parsed as UTC.",
                edit(
                    "internal/importer/dates.go",
                    'time.Parse("2006-01-02 15:04", s)',
                    'time.ParseInLocation("2006-01-02 15:04", s, customer.Location)',
                ),
            ),
            (
                "Tests.",
                sh("go test ./internal/importer/...", "ok  \tgithub.com/acme/ingest-worker/internal/importer\t0.412s"),
            ),
        ],
        "Dates are parsed in the customer's zone.",
        "imported purchases showed up on the previous day for customers in Sydney",
    ),
    # ------------------------------------------------------------------ infra
    Incident(
        "infra-nginx-502",
        "infra",
        "bad gateway after release",
        "After the release everything returns 502.",
        [
            (
                "nginx's error log.",
                sh(
                    "docker compose exec proxy tail -n 3 /var/log/nginx/error.log",
                    '2026/04/02 10:14:07 [error] 31#31: *118 connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.0.12, server: api.example.com, upstream: "http://172.18.0.5:8000/", host: "api.example.com"',
                ),
            ),
            (
                "The new api image listens on 8080 (gunicorn config changed), nginx still proxies to 8000.",
                edit("nginx/conf.d/api.conf", "proxy_pass http://api:8000;", "proxy_pass http://api:8080;"),
            ),
        ],
        "nginx proxied to the old port; the api listens on 8080 now.",
        "right after a deploy the whole site answered with gateway errors",
        ["what upstream address was nginx failing to connect to after the release?"],
    ),
    Incident(
        "infra-runner-disk",
        "infra",
        "CI runner out of disk",
        "Jobs on runner-03 fail with no space left on device.",
        [
            (
                "What's using it.",
                sh(
                    "docker system df",
                    "TYPE            TOTAL     ACTIVE    SIZE      RECLAIMABLE\nImages          87        3         31.4GB    29.8GB (94%)\nBuild Cache     412       0         14.2GB    14.2GB\nVolumes         12        2         3.1GB     2.7GB (87%)",
                ),
            ),
            (
                "Pruning and adding a nightly prune.",
                sh("docker system prune -af --volumes", "Total reclaimed space: 46.7GB"),
            ),
        ],
        "Old images and build cache filled runner-03; a nightly prune runs now.",
        "one of the build machines kept failing jobs because it had no room left, what was eating it?",
        ["how much space did pruning docker free on the runner?"],
    ),
    Incident(
        "infra-compose-volume",
        "infra",
        "local database empty after restart",
        "My local postgres is empty after I restarted the stack. All my seed data is gone.",
        [
            (
                "What did you run? The shell history.",
                sh("history | tail -3", "  512  docker compose down -v\n  513  docker compose up -d"),
            ),
            (
                "`down -v` removes the named volumes, pgdata included. Adding a make target that restarts without it and a re-seed script.",
                edit("Makefile", "restart:", "restart:\n\tdocker compose down && docker compose up -d"),
            ),
        ],
        "`docker compose down -v` deleted the pgdata volume; `make restart` keeps it.",
        "my local db came back completely empty after bouncing the containers",
    ),
    Incident(
        "infra-terraform-lock",
        "infra",
        "terraform state lock",
        "terraform plan hangs then fails, says it can't get a lock.",
        [
            (
                "Plan.",
                sh(
                    "terraform plan",
                    "Error: Error acquiring the state lock\n\nLock Info:\n  ID:        6f1c2a9e-4b7d-4e0f-9a33-0d5e8c1b7a42\n  Path:      acme-tf-state/prod/terraform.tfstate\n  Who:       ci@runner-02\n  Created:   2026-04-09 07:55:12 UTC",
                    1,
                ),
            ),
            (
                "The CI job that took it was cancelled mid-apply. Releasing it.",
                sh(
                    "terraform force-unlock -force 6f1c2a9e-4b7d-4e0f-9a33-0d5e8c1b7a42",
                    "Terraform state has been successfully unlocked!",
                ),
            ),
        ],
        "A cancelled CI apply left the state locked; force-unlocked it.",
        "infrastructure planning refused to run because something else was holding it",
        ["what was the lock ID terraform complained about?"],
    ),
    Incident(
        "infra-cert-expired",
        "infra",
        "staging certificate expired",
        "Browsers say staging is not secure.",
        [
            (
                "Renewal log.",
                sh(
                    "sudo certbot renew --dry-run",
                    "Challenge failed for domain staging.example.com\nTimeout during connect (likely firewall problem)",
                    1,
                ),
            ),
            (
                "Port 80 was closed in the new security group, so the HTTP-01 challenge cannot reach certbot. Opening 80 to the world for the challenge.",
                edit(
                    "terraform/staging/sg.tf",
                    "from_port = 443",
                    "from_port = 80\n    to_port   = 80\n  }\n  ingress {\n    from_port = 443",
                ),
            ),
        ],
        "Renewals failed since port 80 was closed; the security group allows it again.",
        "chrome started warning that the staging site wasn't safe to visit",
        ["what did certbot say when the staging renewal failed?"],
    ),
    Incident(
        "infra-redis-noeviction",
        "infra",
        "redis refuses writes",
        "Cache writes fail with an OOM error, but the box has 30 GB free.",
        [
            (
                "The error and the config.",
                sh(
                    "redis-cli config get maxmemory-policy; redis-cli info memory | grep used_memory_human",
                    "maxmemory-policy\nnoeviction\nused_memory_human:2.00G",
                ),
            ),
            (
                "Redis is capped at 2 GB with noeviction, so when full it refuses writes with `OOM command not allowed when used memory > 'maxmemory'`. For a cache the policy should be allkeys-lru.",
                edit("redis/redis.conf", "maxmemory-policy noeviction", "maxmemory-policy allkeys-lru"),
            ),
        ],
        "Redis now evicts least recently used keys instead of refusing writes at its 2 GB cap.",
        "writes to the cache failed with an out-of-memory message even though the machine had plenty of ram",
    ),
    # ------------------------------------------------------------------ mobile-app
    Incident(
        "mobile-refresh-race",
        "mobile-app",
        "random sign-outs",
        "Users get signed out at random, mostly when opening the Orders tab.",
        [
            (
                "The Orders tab fires three requests at once; with an expired access token each one refreshes, and the refresh token is single-use, so the second and third refreshes fail and we sign out.",
                edit(
                    "src/api/client.ts",
                    "const tokens = await refresh()",
                    "const tokens = await (refreshing ??= refresh().finally(() => { refreshing = null }))",
                ),
            ),
            ("Tests.", sh("yarn jest src/api", "Tests:       31 passed, 31 total")),
        ],
        "Concurrent requests share one token refresh instead of racing.",
        "the phone app logged people out seemingly at random when they opened a screen with several requests",
    ),
    Incident(
        "mobile-snapshot-date",
        "mobile-app",
        "snapshot test changes every run",
        "The OrderCard snapshot test fails every time: the snapshot never matches.",
        [
            (
                "Running it.",
                sh(
                    "yarn jest OrderCard",
                    "- Snapshot  - 1\n+ Received  + 1\n-       Placed 2 minutes ago\n+       Placed 3 minutes ago\n  1 snapshot failed.",
                    1,
                ),
            ),
            (
                "It renders a relative time from Date.now(). Mocking the clock.",
                edit(
                    "src/components/__tests__/OrderCard.test.tsx",
                    "describe('OrderCard', () => {",
                    "jest.useFakeTimers().setSystemTime(new Date('2026-05-01T10:00:00Z'))\ndescribe('OrderCard', () => {",
                ),
            ),
        ],
        "The OrderCard test fixes the system time.",
        "a component test in the app never matched its saved output",
    ),
    Incident(
        "mobile-image-cache",
        "mobile-app",
        "app uses gigabytes of storage",
        "Reviews say the app takes several GB of storage.",
        [
            (
                "On my test phone.",
                sh(
                    "adb shell du -sh /data/data/com.acme.app/cache/images",
                    "2.3G\t/data/data/com.acme.app/cache/images",
                ),
            ),
            (
                "The image cache has no size limit. Capping it at 200 MB with LRU eviction.",
                edit(
                    "src/images/cache.ts",
                    "new DiskCache({ dir })",
                    "new DiskCache({ dir, maxBytes: 200 * 1024 * 1024, evict: 'lru' })",
                ),
            ),
        ],
        "The disk image cache is capped at 200 MB.",
        "users complained the app was eating a huge amount of phone storage",
        ["how large was the app's image cache folder on the test phone?"],
        long=True,
    ),
    Incident(
        "mobile-android-resources",
        "mobile-app",
        "android build broke after new icons",
        "Android build fails since I added the new icon set.",
        [
            (
                "Building.",
                sh(
                    "cd android && ./gradlew assembleDebug",
                    "> Task :app:mergeDebugResources FAILED\nERROR: [drawable/ic_cart] /home/dev/src/mobile-app/android/app/src/main/res/drawable/ic_cart.png\t[drawable/ic_cart] /home/dev/src/mobile-app/android/app/src/main/res/drawable/ic_cart.xml: Resource and asset merger: Duplicate resources",
                    1,
                ),
            ),
            (
                "Both a PNG and a vector exist for ic_cart. Removing the PNG.",
                sh(
                    "git rm android/app/src/main/res/drawable/ic_cart.png",
                    "rm 'android/app/src/main/res/drawable/ic_cart.png'",
                ),
            ),
        ],
        "ic_cart existed as both PNG and XML; the PNG is gone.",
        "the android build stopped working after adding artwork",
        ["which gradle task failed when the new icons went in?"],
    ),
    Incident(
        "mobile-apns-env",
        "mobile-app",
        "push not arriving from testflight",
        "Push notifications arrive when I run from Xcode but not on the TestFlight build.",
        [
            (
                "The push service's response for a TestFlight token.",
                sh("node scripts/push-test.js --token 7f3a…", "400 BadDeviceToken"),
            ),
            (
                "TestFlight builds get production APNs tokens; our sender uses the sandbox gateway. Choosing the gateway per build channel.",
                edit("server/push/apns.ts", "production: false", "production: device.channel !== 'debug'"),
            ),
        ],
        "Tokens from TestFlight builds are sent through production APNs.",
        "notifications showed up for builds from my laptop but not for beta testers",
    ),
    # ------------------------------------------------------------------ analytics
    Incident(
        "analytics-seq-scan",
        "analytics",
        "daily revenue model slow",
        "fct_daily_revenue went from 4 minutes to over an hour.",
        [
            (
                "The plan of its slowest query.",
                sh(
                    "psql -c 'EXPLAIN SELECT … FROM events WHERE user_id = ANY($1) AND created_at >= $2'",
                    "Seq Scan on events  (cost=0.00..1843211.00 rows=48211033 width=64)\n  Filter: ((user_id = ANY ($1)) AND (created_at >= $2))",
                ),
            ),
            (
                "The composite index was dropped with last week's partition change. Restoring it.",
                sh(
                    "psql -c 'CREATE INDEX CONCURRENTLY events_user_created ON events (user_id, created_at)'",
                    "CREATE INDEX",
                ),
            ),
        ],
        "The (user_id, created_at) index on events is back; the model runs in 3m50s.",
        "the daily money report went from a few minutes to more than an hour",
        ["how many rows did the planner estimate for the events scan?"],
        long=True,
    ),
    Incident(
        "analytics-catchup",
        "analytics",
        "dag ran for old days",
        "After I edited the schedule of the reports DAG it ran for a whole bunch of past days.",
        [
            (
                "Airflow backfilled from the new start_date because catchup defaults to True.",
                edit(
                    "dags/reports.py",
                    "start_date=datetime(2026, 1, 1),",
                    "start_date=datetime(2026, 1, 1),\n    catchup=False,",
                ),
            ),
            ("Clearing the extra runs.", sh("airflow dags delete-runs reports --state queued", "Deleted 38 dag runs")),
        ],
        "catchup=False on the reports DAG; 38 queued runs deleted.",
        "after changing when the reports run, they were generated over and over for earlier dates",
    ),
    Incident(
        "analytics-fanout",
        "analytics",
        "fct_orders has duplicates",
        "Revenue is inflated, fct_orders has more rows than stg_orders.",
        [
            (
                "dbt tests.",
                sh(
                    "dbt test -s fct_orders",
                    "Failure in test unique_fct_orders_order_id\n  Got 3127 results, configured to fail if != 0",
                    1,
                ),
            ),
            (
                "The join to refunds fans out when an order has several partial refunds. Aggregating refunds per order first.",
                edit(
                    "models/marts/fct_orders.sql",
                    "left join refunds using (order_id)",
                    "left join refunds_per_order using (order_id)",
                ),
            ),
        ],
        "Refunds are aggregated per order before the join.",
        "the orders table in the warehouse had more rows than the source and totals were inflated",
        ["how many duplicate order ids did the uniqueness test find?"],
    ),
    Incident(
        "analytics-replica-cancel",
        "analytics",
        "replica cancels long queries",
        "Long reports against the read replica get cancelled after ~30 s.",
        [
            (
                "The error.",
                sh(
                    "psql -h replica -f reports/cohorts.sql",
                    "ERROR:  canceling statement due to conflict with recovery\nDETAIL:  User query might have needed to see row versions that must be removed.",
                    1,
                ),
            ),
            (
                "Vacuum on the primary removes rows the replica's query still needs. Turning on hot_standby_feedback on the replica.",
                sh(
                    "psql -h replica -c 'ALTER SYSTEM SET hot_standby_feedback = on' && psql -h replica -c 'SELECT pg_reload_conf()'",
                    "ALTER SYSTEM\n pg_reload_conf\n----------------\n t",
                ),
            ),
        ],
        "hot_standby_feedback is on for the replica.",
        "big reports on the read-only copy of the database kept getting killed partway through",
    ),
    Incident(
        "analytics-pg-password",
        "analytics",
        "password auth fails after changing compose",
        "I changed POSTGRES_PASSWORD in docker-compose.yml and now I can't log in at all.",
        [
            (
                "Trying.",
                sh(
                    "psql postgresql://analytics:newpass@localhost:5433/warehouse",
                    'psql: error: connection to server at "localhost" (127.0.0.1), port 5433 failed: FATAL:  password authentication failed for user "analytics"',
                    2,
                ),
            ),
            (
                "POSTGRES_PASSWORD only applies when the data directory is first initialised; the volume still holds the old one. Changing it inside the database.",
                sh(
                    "docker compose exec warehouse psql -U analytics -c \"ALTER USER analytics PASSWORD 'newpass'\"",
                    "ALTER ROLE",
                ),
            ),
        ],
        "The image's password variable is only read on first init; the role's password was changed with ALTER USER.",
        "I edited the database credentials in the compose file and after that it wouldn't let me in",
        ["which port was the local warehouse database on when the login failed?"],
    ),
    Incident(
        "analytics-ci-missing-ref",
        "analytics",
        "dbt CI relation does not exist",
        "dbt CI sometimes fails with relation does not exist; rerun passes.",
        [
            (
                "The failing model.",
                sh(
                    "dbt build --threads 8",
                    'Database Error in model int_customer_ltv (models/intermediate/int_customer_ltv.sql)\n  relation "analytics_ci.int_orders_enriched" does not exist',
                    1,
                ),
            ),
            (
                "int_customer_ltv selects from the table by name instead of ref(), so dbt doesn't know to build it first; with 8 threads the order is random.",
                edit(
                    "models/intermediate/int_customer_ltv.sql",
                    "from analytics_ci.int_orders_enriched",
                    "from {{ ref('int_orders_enriched') }}",
                ),
            ),
        ],
        "A hard-coded table name instead of ref() let models run out of order.",
        "the warehouse CI sometimes failed saying a table wasn't there, but a rerun always passed",
        ["which model failed in the warehouse CI run?"],
    ),
]

UNANSWERABLE = [
    "how did we set up logical replication from postgres to the warehouse?",
    "why did the redis healthcheck in docker compose keep flapping?",
    "alembic autogenerate kept detecting changes to enum types that weren't there",
    "the graphql subscription disconnected after exactly sixty seconds",
    "kafka consumer group kept rebalancing every few minutes",
    "pgbouncer in transaction mode broke prepared statements",
    "oauth PKCE code verifier mismatch on android",
    "memcached evicted keys much earlier than their expiry",
    "cypress test on the login page was flaky in CI",
    "elasticsearch mapping conflict on the product index",
    "how did we upload sentry source maps for the storefront?",
    "celery beat scheduled tasks ran twice after the daylight saving change",
    "the per customer rate limiter returned 429 to admin users",
    "webpack hot reload stopped working inside docker on mac",
    "github actions cache restore never found node_modules",
    "vacuum full locked the invoices table during business hours",
    "saml login for enterprise customers failed with an audience mismatch",
    "the terraform aws provider upgrade wanted to recreate the rds instance",
    "kubernetes pod stuck in CrashLoopBackOff because of the liveness probe",
    "redis cluster MOVED errors from the python client",
    "the ios app crashed on launch on older iOS 15 devices",
    "CORS preflight failed for the mobile web view",
    "the go worker leaked goroutines on shutdown",
    "dbt snapshot didn't catch deleted customers",
    "airflow scheduler heartbeat missing and tasks stuck in queued",
    "jest hung forever because the database client left open handles",
    "postgres jsonb gin index not used for containment queries",
    "docker compose watch didn't sync file changes on windows",
    "the stripe customer portal link expired too quickly",
    "password reset emails landed in spam",
    "nginx rate limiting returned 503 for api clients",
    "the offline queue in the app sent duplicate orders after reconnecting",
    "grpc deadline exceeded between the worker and the pricing service",
    "what did we decide about sharding the events table by tenant?",
]

#: The blind set: written after the tuning and reporting halves had been looked
#: at, before any gate change of the blind round, without running search or the
#: gate on them. (incident key, kind, question). Never tune on these.
BLIND = [
    (
        "api-compose-db-host",
        "symptom",
        "the billing service container kept restarting on my laptop because it couldn't connect to the database, but the db container itself was healthy",
    ),
    (
        "api-ci-db-not-ready",
        "symptom",
        "pytest errored inside conftest in the pipeline because the server closed the connection, and a rerun was green",
    ),
    (
        "api-ci-db-not-ready",
        "printed",
        "which github run id had the failed log when CI broke before the tests started?",
    ),
    (
        "api-migration-duplicate-column",
        "printed",
        "what revision ids were in the alembic output when the staging migration broke?",
    ),
    ("api-webhook-signature", "symptom", "why were incoming payment events answered with a 400 on staging only?"),
    (
        "api-refund-stale-total",
        "printed",
        "what TTL did redis report for the cached invoice when support complained about the refund amount?",
    ),
    (
        "api-due-date-midnight",
        "printed",
        "which two dates did the assertion compare when the invoice due date test failed overnight?",
    ),
    (
        "api-orders-backfill",
        "printed",
        "how long did the production order totals backfill take and how many rows per second did it do?",
    ),
    ("api-orders-backfill", "printed", "how many batches did the dry run of the order backfill say it would need?"),
    ("api-pool-exhausted", "symptom", "what made the api time out during the k6 load test?"),
    ("api-pool-exhausted", "printed", "what was the p95 request duration in k6 once the timeouts were fixed?"),
    (
        "api-jwt-clock-skew",
        "symptom",
        "why did logins bounce straight back for requests that went to one of the api nodes?",
    ),
    (
        "shop-dynamic-cookies",
        "symptom",
        "next refused to prerender a page after we started showing the user's name in the header",
    ),
    ("shop-checkout-flaky", "printed", "what element was covering the pay button in the failing playwright runs?"),
    ("shop-cdn-stale-price", "printed", "which sku did we curl when a price change didn't show up on the shop?"),
    (
        "shop-nextauth-https",
        "printed",
        "what was NEXTAUTH_URL set to in the vercel production env when sign-in looped?",
    ),
    ("shop-image-size", "symptom", "deploys of the shop took forever because the container image was enormous"),
    (
        "shop-hydration-locale",
        "symptom",
        "react warning that server-rendered text didn't match on the orders page for german users",
    ),
    ("shop-localstorage-safari", "symptom", "safari private browsing lost the cart contents when navigating"),
    ("worker-oom-csv", "symptom", "the ingest job silently died on a 6 GB file"),
    ("worker-oom-csv", "printed", "how many rows did the ACME import report once it finally went through?"),
    (
        "worker-deadlock-upsert",
        "printed",
        "which postgres process ids were in the deadlock error from the nightly sync?",
    ),
    (
        "worker-docker-dns-vpn",
        "symptom",
        "the worker's docker build couldn't resolve the go module proxy while I was on the vpn",
    ),
    ("worker-flaky-backoff", "printed", "how many milliseconds did the retry backoff test measure when it failed?"),
    ("worker-s3-plus", "symptom", "some exported reports never showed up in s3 and the worker logged a 403 for them"),
    ("worker-timezone-orders", "symptom", "orders from australia were shown a day too early after import"),
    ("infra-nginx-502", "symptom", "every request returned 502 after the last release, what was the proxy doing?"),
    ("infra-runner-disk", "printed", "how much build cache was sitting on runner-03 when it ran out of disk?"),
    ("infra-compose-volume", "symptom", "all my seed data vanished from local postgres after restarting docker"),
    ("infra-terraform-lock", "printed", "who was holding the terraform state lock when plan failed?"),
    ("infra-cert-expired", "symptom", "why didn't the https certificate for staging renew?"),
    ("infra-redis-noeviction", "printed", "what maxmemory policy was redis using when cache writes failed?"),
    ("mobile-refresh-race", "symptom", "opening the orders tab in the app signed users out at random"),
    (
        "mobile-snapshot-date",
        "symptom",
        "the OrderCard jest snapshot never matched, something about how many minutes ago",
    ),
    ("mobile-image-cache", "symptom", "app store reviews complained the app used several gigabytes on the phone"),
    ("mobile-android-resources", "printed", "which drawable was duplicated when the gradle resource merge failed?"),
    ("mobile-apns-env", "symptom", "push notifications never arrived on testflight builds"),
    ("mobile-apns-env", "printed", "what error did apple's push service return for the testflight device token?"),
    ("analytics-seq-scan", "symptom", "why did the daily revenue model suddenly take more than an hour?"),
    ("analytics-catchup", "printed", "how many dag runs did we delete after the reports schedule change?"),
    ("analytics-fanout", "symptom", "revenue numbers in the warehouse were too high because orders were duplicated"),
    (
        "analytics-replica-cancel",
        "printed",
        "what error did psql give when the cohorts report on the replica was cancelled?",
    ),
    (
        "analytics-pg-password",
        "symptom",
        "I changed the postgres password in docker-compose and then login failed for the analytics user",
    ),
    ("analytics-ci-missing-ref", "symptom", "dbt CI flaked with a missing relation error that went away on rerun"),
]
#: Unanswerable, same libraries and vocabulary, written with ``BLIND``.
BLIND_UNANSWERABLE = [
    "why did the alembic downgrade fail on the invoices table in staging?",
    "stripe webhook events arrived out of order and the subscription status flipped back",
    "what did pg_dump print when we took the production backup before the upgrade?",
    "the playwright tests timed out waiting for the login redirect in CI",
    "next image optimization returned 500 for remote product photos",
    "the ingest worker's prometheus metrics endpoint returned 404 in kubernetes",
    "why did the go worker panic with a nil map on empty csv files?",
    "terraform apply failed because the s3 bucket name was already taken",
    "nginx returned 413 request entity too large for invoice pdf uploads",
    "the react native app crashed when the camera permission was denied",
    "android release build failed because proguard stripped the auth classes",
    "dbt seed failed on a csv with a utf-8 byte order mark",
    "airflow task retried forever because the postgres connection id was wrong",
    "how many rows did the customer dedupe script merge in production?",
    "the refresh token cookie wasn't sent because of SameSite on the storefront",
    "redis sentinel failover made the api lose its sessions",
    "docker buildx cache for the storefront image was never reused in CI",
    "postgres ran out of connections when the analytics dashboards refreshed",
    "expo OTA update shipped the wrong bundle to production users",
    "jwt signature verification failed after rotating the signing keys",
    "what exit code did the nightly sync return when the sftp server was down?",
]

# --------------------------------------------------------------------------- routine sessions

TASKS = {
    "billing-api": [
        "add a {noun} endpoint to the invoices router",
        "write tests for the {noun} service",
        "bump sqlalchemy and fix deprecation warnings in the {noun} module",
        "add an index on invoices for the {noun} lookup",
        "add redis caching to the {noun} listing",
        "refactor auth dependencies for the {noun} routes",
        "upgrade postgres in docker compose from 15 to 16",
        "quarantine flaky tests in the {noun} suite",
    ],
    "storefront": [
        "build a {noun} component for the product page",
        "add playwright tests for the {noun} flow",
        "move {noun} fetching to server components",
        "add a cache header to the {noun} api route",
        "refactor the auth middleware for {noun} pages",
        "upgrade next and fix type errors in {noun}",
        "speed up the docker build for the storefront",
        "translate the {noun} page for the german locale",
    ],
    "ingest-worker": [
        "add a {noun} parser to the importer",
        "write table tests for the {noun} validation",
        "add prometheus metrics for {noun} batches",
        "add a postgres migration for the {noun} staging table",
        "make the {noun} retry policy configurable",
        "run the worker in docker compose with postgres for {noun} testing",
        "fix golangci-lint warnings in {noun}",
    ],
    "infra": [
        "add a grafana dashboard for {noun}",
        "move the {noun} service to the new docker network",
        "write terraform for the {noun} bucket",
        "rotate the postgres credentials used by {noun}",
        "set up backups for the {noun} database",
        "add an alert for {noun} cache hit rate",
        "tune nginx timeouts for the {noun} upstream",
    ],
    "mobile-app": [
        "add a {noun} screen",
        "write jest tests for the {noun} reducer",
        "cache {noun} responses for offline use",
        "handle auth token expiry on the {noun} screen",
        "upgrade react native and fix the {noun} build",
        "add deep links for {noun}",
        "fix the flaky detox test for {noun}",
    ],
    "analytics": [
        "add a dbt model for {noun}",
        "write dbt tests for {noun}",
        "add an airflow task that exports {noun}",
        "speed up the {noun} query on postgres",
        "document the {noun} columns",
        "add a {noun} metric to the weekly dashboard",
        "run the warehouse locally in docker for {noun}",
    ],
}
NOUNS = [
    "subscription",
    "coupon",
    "tax rate",
    "shipping",
    "wishlist",
    "review",
    "loyalty points",
    "address",
    "payout",
    "dispute",
    "inventory",
    "supplier",
    "category",
    "search",
    "notification",
    "session",
    "cohort",
    "churn",
    "invoice pdf",
    "webhook log",
]
SENTENCES = [
    "Postgres is running in docker compose on the usual port.",
    "The auth dependency already checks the session token, so the route only needs the scope.",
    "I added a cache entry with a five minute TTL; invalidation happens on write.",
    "The flaky test list lives in tests/quarantine.txt and CI skips those.",
    "The migration is reversible and runs in under a second on a copy of production.",
    "I kept the old function as a thin wrapper so callers don't break.",
    "The docker image builds from the same base as the other services.",
    "Connection settings come from DATABASE_URL like everywhere else.",
    "The login flow is unchanged; only the token scope is new.",
    "Redis is only used as a cache here, nothing depends on it surviving a restart.",
    "The test uses the transactional fixture so the database is clean after each case.",
    "I ran the linter and the type checker, both are clean.",
    "The query uses the existing index on created_at.",
    "Timeouts are read from the environment with sane defaults.",
    "I left a TODO where the retry count should become configurable.",
    "The CI job caches dependencies between runs.",
]
PASSING = [
    ("pytest -q", "{n} passed in {s}s"),
    ("pnpm test", "Tests: {n} passed, {n} total"),
    ("go test ./...", "ok  \tgithub.com/acme/service\t{s}s"),
    ("docker compose ps", "NAME       STATUS\ndb-1       running (healthy)\nredis-1    running\napi-1      running"),
    ("git status --short", " M {path}\n?? {path}.bak"),
    ("yarn jest", "Tests:       {n} passed, {n} total"),
    ("dbt build -s {model}", "Completed successfully\nDone. PASS={n} WARN=0 ERROR=0 SKIP=0 TOTAL={n}"),
]


def _routine(rng: random.Random, project: str, task: str, turns: int) -> list[Turn]:
    """A routine session about ``task``: a request, some work with passing commands and edits, a summary."""
    out: list[Turn] = [("user", task[0].upper() + task[1:] + ".", [])]
    for _ in range(turns):
        text = " ".join(rng.sample(SENTENCES, rng.randint(1, 3)))
        roll = rng.random()
        calls: list[Call] = []
        slug = task.split()[-1].replace(" ", "_")
        if roll < 0.45:
            command, output = rng.choice(PASSING)
            values = {
                "n": rng.randint(3, 240),
                "s": f"{rng.uniform(0.2, 9):.2f}",
                "path": f"src/{slug}.py",
                "model": slug,
            }
            calls.append(sh(command.format(**values), output.format(**values)))
        elif roll < 0.75:
            calls.append(
                edit(
                    f"src/{slug}/{rng.choice(['service', 'routes', 'models', 'index'])}.py",
                    "pass",
                    f"return {slug}_{rng.randint(1, 99)}",
                )
            )
        out.append(("assistant", text, calls))
        if rng.random() < 0.3:
            out.append(
                (
                    "user",
                    rng.choice(
                        [
                            "Looks good, continue.",
                            "Can you also add a test?",
                            "Keep it small please.",
                            "What about the docker setup?",
                            "Does this touch the auth code?",
                        ]
                    ),
                    [],
                )
            )
    out.append(("assistant", f"Done: {task}. " + rng.choice(SENTENCES), []))
    return out


def _incident_turns(incident: Incident) -> list[Turn]:
    turns: list[Turn] = [("user", incident.ask, [])]
    for text, call in incident.steps:
        turns.append(("assistant", text, [call] if call else []))
    turns.append(("assistant", incident.summary, []))
    return turns


@dataclass
class Question:
    text: str
    #: "symptom", "printed" or "none" (unanswerable).
    kind: str
    #: The session holding the answer ("" when none does).
    gold: str
    half: str = ""


@dataclass
class CodingHistory:
    history: SampleHistory
    questions: list[Question]
    sessions: int


def _session_id(rng: random.Random, n: int) -> str:
    return f"{n:08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-8{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"


def _plan(rng: random.Random) -> tuple[list[tuple[str, str, str, list[Turn]]], dict[str, str]]:
    """Every session as (id, project, name, turns) in a seeded order; and incident key -> session id."""
    sessions: list[tuple[str, str, str, list[Turn]]] = []
    gold: dict[str, str] = {}
    for incident in INCIDENTS:
        turns = _incident_turns(incident)
        if incident.long:
            # Buried: a long session about other things in the same project, the incident in its middle.
            before = _routine(
                rng, incident.project, rng.choice(TASKS[incident.project]).format(noun=rng.choice(NOUNS)), 18
            )
            after = _routine(
                rng, incident.project, rng.choice(TASKS[incident.project]).format(noun=rng.choice(NOUNS)), 18
            )
            turns = before + turns + after
        sid = _session_id(rng, len(sessions))
        gold[incident.key] = sid
        sessions.append((sid, incident.project, incident.title, turns))
    for project, tasks in TASKS.items():
        for _ in range(20):
            task = rng.choice(tasks).format(noun=rng.choice(NOUNS))
            sessions.append(
                (_session_id(rng, len(sessions)), project, task, _routine(rng, project, task, rng.randint(3, 12)))
            )
    rng.shuffle(sessions)
    return sessions, gold


def _questions(rng: random.Random, gold: dict[str, str]) -> list[Question]:
    questions = []
    for incident in INCIDENTS:
        questions.append(Question(incident.symptom, "symptom", gold[incident.key]))
        questions.extend(Question(text, "printed", gold[incident.key]) for text in incident.printed)
    questions.extend(Question(text, "none", "") for text in UNANSWERABLE)
    # Tuning and reporting halves: alternate within each kind after a seeded shuffle.
    order = list(range(len(questions)))
    rng.shuffle(order)
    seen: dict[str, int] = {}
    for i in order:
        q = questions[i]
        q.half = "tuning" if seen.get(q.kind, 0) % 2 == 0 else "reporting"
        seen[q.kind] = seen.get(q.kind, 0) + 1
    # The blind set comes after the halves are drawn: it takes nothing from the seeded stream.
    questions.extend(Question(text, kind, gold[key], "blind") for key, kind, text in BLIND)
    questions.extend(Question(text, "none", "", "blind") for text in BLIND_UNANSWERABLE)
    return questions


def build(root: Path, seed: int = SEED) -> CodingHistory:
    """Write the history under ``root`` (cursor-agent and IDE stores) and return it with its questions."""
    rng = random.Random(seed)
    sessions, gold = _plan(rng)
    ide_root, cli_root = root / "cursor" / "User", root / "cursor-agent"
    ide_batch: list[tuple[str, str, datetime, str, list]] = []
    for n, (sid, project, name, turns) in enumerate(sessions):
        start = BASE + timedelta(hours=19 * n, minutes=rng.randint(0, 59))
        cwd = PROJECTS[project]
        if n % 3 == 0:
            ide_batch.append((sid, cwd, start, name, turns))
        else:
            write_cli_chat(cli_root, sid, cwd, start, turns, with_store=True)
    write_ide_chats(ide_root / "globalStorage" / "state.vscdb", ide_batch)
    history = SampleHistory(ide_root=ide_root, cli_root=cli_root, projects={k: Path(v) for k, v in PROJECTS.items()})
    return CodingHistory(history, _questions(rng, gold), len(sessions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    built = build(args.out)
    kinds = {k: sum(q.kind == k for q in built.questions) for k in ("symptom", "printed", "none")}
    print(f"{built.sessions} sessions in {len(PROJECTS)} projects; questions: {kinds}")


if __name__ == "__main__":
    main()
