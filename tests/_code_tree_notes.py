"""A team's notes and decisions about the web stack it runs, and the questions that should find
them: worded like the code (the libraries' own names), in a workspace that also holds that
code (starlette, uvicorn, httpx, click and rich, copied from the installed wheels).

Each question names the title of the note it should find; the notes were written for this
test from the libraries' real settings and classes (e.g. uvicorn's `UvicornWorker`,
`timeout_keep_alive`; starlette's `GZipMiddleware(minimum_size=...)`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Packages copied into the workspace: 222 Python files, all runtime dependencies of
#: nano-brain, so every machine that runs the tests has them.
PACKAGES = ("starlette", "uvicorn", "httpx", "click", "rich")


@dataclass(frozen=True)
class Note:
    title: str
    text: str
    question: str
    decision: bool = True


NOTES: tuple[Note, ...] = (
    Note(
        "Uvicorn workers",
        "We run 4 uvicorn workers under gunicorn with the UvicornWorker "
        "class; 8 workers exhausted the database connection pool.",
        "uvicorn workers",
    ),
    Note(
        "Refund window",
        "Refunds are allowed within 30 days of purchase; after that "
        "support must approve them by hand.",
        "refund window",
    ),
    Note(
        "Outbound HTTP timeouts",
        "Every outbound call goes through httpx with a 5 s connect "
        "timeout and a 30 s read timeout: the 5 s default for everything cut off the slow "
        "report API.",
        "httpx timeout for outbound calls",
    ),
    Note(
        "Keep-alive behind the load balancer",
        "Uvicorn's timeout_keep_alive is 75 seconds, "
        "above the load balancer's 60, or the balancer reuses closed connections and "
        "returns 502s.",
        "keep alive timeout",
    ),
    Note(
        "Graceful shutdown",
        "Deploys give uvicorn 30 seconds of timeout_graceful_shutdown so "
        "that running exports finish before the pod stops.",
        "graceful shutdown timeout",
    ),
    Note(
        "WebSocket pings",
        "The dashboard's websocket ping interval is 10 seconds "
        "(ws_ping_interval): mobile networks dropped idle sockets after 15.",
        "websocket ping interval",
    ),
    Note(
        "Proxy headers",
        "Uvicorn runs with proxy headers on and forwarded_allow_ips set to "
        "the load balancer's subnet only, so clients cannot spoof their address.",
        "proxy headers forwarded ips",
    ),
    Note(
        "Gzip responses",
        "GZipMiddleware compresses responses above minimum_size 1000 "
        "bytes; smaller ones grew when compressed.",
        "gzip compression minimum size",
    ),
    Note(
        "Middleware order",
        "CORS middleware is added before the session middleware: the "
        "other way round, preflight requests failed without a session cookie.",
        "starlette middleware order",
    ),
    Note(
        "Trailing slashes",
        "redirect_slashes stays on in the router: mobile clients call /orders/ and /orders alike.",
        "trailing slash redirects",
    ),
    Note(
        "Session cookie",
        "The session cookie is https_only with same_site lax; strict broke "
        "the login redirect from the identity provider.",
        "session cookie settings",
    ),
    Note(
        "Background email",
        "Order confirmation emails go out as starlette BackgroundTasks "
        "after the response, never inside the request.",
        "background tasks after the response",
    ),
    Note(
        "Not found as JSON",
        "An exception handler turns 404 into a JSON body "
        '{"error": "not found"} for the API routes; HTML stays for the site.',
        "exception handler for not found",
    ),
    Note(
        "Lifespan start-up",
        "The lifespan handler opens the database pool at start-up and "
        "closes it at shutdown; on_startup hooks are not used any more.",
        "lifespan startup events",
    ),
    Note(
        "Static files caching",
        "StaticFiles responses carry Cache-Control max-age of one "
        "day; hashed bundle names make that safe.",
        "static files cache headers",
    ),
    Note(
        "Upload size limit",
        "Request bodies over 20 MB are refused before they are read; "
        "uploads of scanned invoices were the only large ones.",
        "request body size limit",
    ),
    Note(
        "HTTP/2 for the payment API",
        "The payment client uses httpx with http2 enabled: "
        "the provider throttles HTTP/1.1 connections.",
        "http2 client for payments",
    ),
    Note(
        "Connection pool limits",
        "httpx Limits are max_connections 50 and "
        "max_keepalive_connections 10 per client; the defaults ran the provider's rate "
        "limit down.",
        "connection pool limits",
    ),
    Note(
        "Transport retries",
        "HTTPTransport(retries=3) retries failed connects only, never "
        "requests that reached the server.",
        "transport retries on connect errors",
    ),
    Note(
        "Redirect policy",
        "Outbound clients never follow redirects (follow_redirects stays "
        "false): a redirect to another host would carry our token.",
        "follow redirects",
    ),
    Note(
        "Custom CA bundle",
        "Calls to the internal services verify TLS with our own CA "
        "bundle passed as verify=, not by turning verification off.",
        "custom CA bundle verify",
    ),
    Note(
        "Cookies between requests",
        "The scraper keeps cookies in one httpx Client for a "
        "whole run; a new client per request logged it out.",
        "cookies kept between requests",
    ),
    Note(
        "CLI exit codes",
        "Our click commands exit 2 on bad input and 4 when the store is "
        "locked, so that cron can tell the two apart.",
        "click exit codes",
    ),
    Note(
        "Options from the environment",
        "click's auto_envvar_prefix is APP, so every option "
        "can come from an APP_ variable in the container.",
        "click options from environment variables",
    ),
    Note(
        "Lazy command groups",
        "The admin CLI's command group loads each subcommand's module "
        "only when it runs: start-up went from 900 ms to 120 ms.",
        "lazy loading of click command groups",
    ),
    Note(
        "Progress bars in CI",
        "rich progress bars are switched off when the output is not a "
        "terminal; CI logs filled with redraws.",
        "rich progress bar in CI logs",
    ),
    Note(
        "Logging handler",
        "Services log through RichHandler in development and plain JSON lines in production.",
        "rich logging handler",
    ),
    Note(
        "Report tables",
        "Report tables are rich Tables with fixed column widths so that "
        "the nightly diff of two reports lines up.",
        "rich table column widths",
    ),
    Note(
        "Auto reload",
        "uvicorn --reload is for development only; in production it watched "
        "the upload folder and restarted on every upload.",
        "auto reload in development",
    ),
    Note(
        "Access log format",
        "Uvicorn's access log is off; the request middleware writes one "
        "structured line per request with the request id instead.",
        "access log format",
    ),
    Note(
        "Test client",
        "Route tests use starlette's TestClient with the lifespan run, so the "
        "database pool exists in tests too.",
        "test client with lifespan",
    ),
    Note(
        "Validation error format",
        "Validation errors answer 422 with a list of field and "
        "message pairs, the same shape for every endpoint.",
        "validation errors response format",
    ),
)
