"""A corpus of credential shapes, each in the text around it in a real transcript, and a
corpus of ordinary text that must come through redaction unchanged.

Every secret is generated here from a seed (the shape's id) in its provider's documented
format, so the repository holds no string that a secret scanner would flag, and every run
sees the same values. Prefixes are split (`"sk" "_live_"`) for the same reason.

Each shape says where it appears: `command` (a shell command an agent ran), `file` (a
file's content, as a `cat` or a Read tool prints it) or `paste` (text a person typed or
pasted into the prompt). The end-to-end tests place every shape in each place the
harvester keeps, whatever its `where`.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

_LOWER = string.ascii_lowercase
_UPPER = string.ascii_uppercase
_DIGITS = string.digits
_ALNUM = _LOWER + _UPPER + _DIGITS
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"


@dataclass(frozen=True)
class Shape:
    """One credential in its surroundings."""

    id: str
    kind: str
    """The marker kind the redactor should name (`[REDACTED:<kind>]`)."""
    where: str
    text: str
    secrets: tuple[str, ...]
    """Values that must not survive anywhere; each is also checked by its 8-char pieces."""


class _Gen:
    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def s(self, n: int, alphabet: str = _ALNUM) -> str:
        # Every class present, as in real random tokens (a 20-char draw can miss digits).
        while True:
            value = "".join(self.rng.choice(alphabet) for _ in range(n))
            classes = [c for c in (_LOWER, _UPPER, _DIGITS) if set(c) & set(alphabet)]
            if n < 12 or all(set(value) & set(c) for c in classes):
                return value

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(nbytes)).decode()

    def password(self) -> str:
        words = ["Tr0ub4dor", "Blue", "Horse", "Staple", "Maple", "Quartz", "Falcon"]
        return f"{self.rng.choice(words)}{self.s(4, _DIGITS)}{self.rng.choice('!-#%&+')}{self.s(3)}"

    def pem_body(self, nbytes: int) -> str:
        raw = base64.b64encode(b"0\x82\x04\xa4\x02\x01\x00" + self.rng.randbytes(nbytes)).decode()
        return "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _pem(label: str, body: str) -> str:
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _aws_credentials(g: _Gen) -> Shape:
    key_id = "AK" + "IA" + g.s(16, _UPPER + "234567")
    secret = g.s(40, _B64)
    text = (
        "$ cat ~/.aws/credentials\n[default]\n"
        f"aws_access_key_id = {key_id}\naws_secret_access_key = {secret}\nregion = eu-west-1\n"
    )
    return Shape("aws-credentials-file", "aws_access_key", "file", text, (key_id, secret))


def _aws_env(g: _Gen) -> Shape:
    secret = g.s(40, _B64)
    text = f"export AWS_SECRET_ACCESS_KEY={secret}\naws s3 ls s3://build-artifacts/"
    return Shape("aws-secret-export", "aws_secret_key", "command", text, (secret,))


def _aws_sts_json(g: _Gen) -> Shape:
    key_id = "AS" + "IA" + g.s(16, _UPPER + "234567")
    secret = g.s(40, _B64)
    session = "FwoGZXIvYXdzE" + g.s(300, _B64)
    body = {
        "Credentials": {
            "AccessKeyId": key_id,
            "SecretAccessKey": secret,
            "SessionToken": session,
            "Expiration": "2026-05-11T12:26:55+00:00",
        }
    }
    text = "$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/ci\n" + json.dumps(
        body, indent=4
    )
    return Shape("aws-sts-json", "aws_access_key", "file", text, (key_id, secret, session))


def _github_remote(g: _Gen) -> Shape:
    token = "gh" + "p_" + g.s(36)
    text = f"git remote set-url origin https://{token}@github.com/acme/api.git && git push"
    return Shape("github-ghp-remote-url", "github_token", "command", text, (token,))


def _github_hosts(g: _Gen) -> Shape:
    token = "gh" + "o_" + g.s(36)
    text = f"$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    oauth_token: {token}\n    user: dev"
    return Shape("github-gho-hosts-yml", "github_token", "file", text, (token,))


def _github_pat(g: _Gen) -> Shape:
    token = "github" + "_pat_" + g.s(22) + "_" + g.s(59)
    return Shape(
        "github-fine-grained-pat", "github_token", "file", f"GITHUB_TOKEN={token}\n", (token,)
    )


def _gitlab(g: _Gen) -> Shape:
    token = "gl" + "pat-" + g.s(20, _URLSAFE)
    text = (
        f'curl --header "PRIVATE-TOKEN: {token}" '
        '"https://gitlab.example.com/api/v4/projects?owned=true"'
    )
    return Shape("gitlab-pat-header", "gitlab_token", "command", text, (token,))


def _slack_bot(g: _Gen) -> Shape:
    token = "xo" + f"xb-{g.s(12, _DIGITS)}-{g.s(13, _DIGITS)}-{g.s(24)}"
    text = json.dumps({"slack": {"bot_token": token, "channel": "#deploys"}}, indent=2)
    return Shape("slack-bot-token-json", "slack_token", "file", text, (token,))


def _slack_webhook(g: _Gen) -> Shape:
    path = f"T{g.s(8, _UPPER + _DIGITS)}/B{g.s(10, _UPPER + _DIGITS)}/{g.s(24)}"
    url = "https://hooks.slack.com/" + "services/" + path
    text = f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"hi\"}}' {url}"
    return Shape("slack-webhook-url", "slack_webhook", "command", text, (path,))


def _stripe_live(g: _Gen) -> Shape:
    key = "sk" + "_live_" + g.s(99)
    text = f'import stripe\nstripe.api_key = "{key}"\nstripe.Charge.list(limit=3)'
    return Shape("stripe-secret-key-code", "stripe_key", "file", text, (key,))


def _stripe_restricted(g: _Gen) -> Shape:
    key = "rk" + "_live_" + g.s(24)
    return Shape("stripe-restricted-env", "stripe_key", "file", f"STRIPE_KEY={key}\n", (key,))


def _openai_project(g: _Gen) -> Shape:
    key = "sk-" + "proj-" + g.s(74, _URLSAFE) + "T3Blbk" + "FJ" + g.s(74, _URLSAFE)
    return Shape(
        "openai-project-key-export", "openai_key", "command", f"export OPENAI_API_KEY={key}", (key,)
    )


def _openai_legacy(g: _Gen) -> Shape:
    key = "sk-" + g.s(20) + "T3Blbk" + "FJ" + g.s(20)
    text = json.dumps({"provider": "openai", "apiKey": key, "model": "gpt-4o"}, indent=2)
    return Shape("openai-legacy-key-json", "openai_key", "file", text, (key,))


def _anthropic(g: _Gen) -> Shape:
    key = "sk-" + "ant-api03-" + g.s(93, _URLSAFE) + "AA"
    text = (
        "curl https://api.anthropic.com/v1/messages "
        f'-H "x-api-key: {key}" -H "anthropic-version: 2023-06-01" -d @body.json'
    )
    return Shape("anthropic-key-curl", "anthropic_key", "command", text, (key,))


def _huggingface(g: _Gen) -> Shape:
    token = "h" + "f_" + g.s(34, _LOWER + _UPPER)
    text = f"huggingface-cli login --token {token} --add-to-git-credential"
    return Shape("huggingface-token-cli", "huggingface_token", "command", text, (token,))


def _sendgrid(g: _Gen) -> Shape:
    key = "S" + "G." + g.s(22, _URLSAFE) + "." + g.s(43, _URLSAFE)
    text = f"# .env\nSENDGRID_API_KEY={key}\nMAIL_FROM=noreply@example.com"
    return Shape("sendgrid-key-env", "sendgrid_key", "file", text, (key,))


def _twilio_env(g: _Gen) -> Shape:
    sid = "AC" + g.s(32, _HEX)
    token = g.s(32, _HEX)
    text = f"TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={token}\n"
    return Shape("twilio-auth-token-env", "secret", "file", text, (token,))


def _twilio_curl(g: _Gen) -> Shape:
    sid = "AC" + g.s(32, _HEX)
    token = g.s(32, _HEX)
    text = (
        f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json "
        f"--data-urlencode 'Body=hi' -u {sid}:{token}"
    )
    return Shape("twilio-basic-auth-curl", "basic_auth", "command", text, (token,))


def _google_api_key(g: _Gen) -> Shape:
    key = "AI" + "za" + g.s(35, _URLSAFE)
    text = f'curl "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={key}"'
    return Shape("google-api-key-url", "google_api_key", "command", text, (key,))


def _gcp_service_account(g: _Gen) -> Shape:
    body = g.pem_body(600)
    key = _pem("PRIVATE KEY", body) + "\n"
    data = {
        "type": "service_account",
        "project_id": "acme-prod",
        "private_key_id": g.s(40, _HEX),
        "private_key": key,
        "client_email": "ci@acme-prod.iam.gserviceaccount.com",
        "client_id": g.s(21, _DIGITS),
    }
    lines = tuple(line for line in body.splitlines() if len(line) >= 16)
    return Shape(
        "gcp-service-account-json", "private_key", "file", json.dumps(data, indent=2), lines
    )


def _azure_storage(g: _Gen) -> Shape:
    key = g.b64(64)
    text = (
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmelogs;'
        f'AccountKey={key};EndpointSuffix=core.windows.net"'
    )
    return Shape("azure-storage-connection-string", "azure_key", "file", text, (key,))


def _jwt(g: _Gen) -> Shape:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": g.s(12, _DIGITS), "exp": 1893456000}).encode())
    token = f"{header}.{payload}.{_b64url(g.rng.randbytes(32))}"
    text = f"curl -b 'session={token}' https://app.example.com/api/me"
    return Shape("jwt-cookie", "jwt", "command", text, (token,))


def _pem_rsa(g: _Gen) -> Shape:
    body = g.pem_body(900)
    text = "$ cat ~/.ssh/deploy_rsa\n" + _pem("RSA PRIVATE KEY", body)
    lines = tuple(line for line in body.splitlines() if len(line) >= 16)
    return Shape("pem-rsa-private-key", "private_key", "file", text, lines)


def _pem_openssh(g: _Gen) -> Shape:
    raw = base64.b64encode(b"openssh-key-v1\x00" + g.rng.randbytes(300)).decode()
    body = "\n".join(raw[i : i + 70] for i in range(0, len(raw), 70))
    text = _pem("OPENSSH PRIVATE KEY", body)
    lines = tuple(line for line in body.splitlines() if len(line) >= 16)
    return Shape("pem-openssh-private-key", "private_key", "paste", text, lines)


def _basic_auth_header(g: _Gen) -> Shape:
    password = g.password()
    creds = base64.b64encode(f"deploy:{password}".encode()).decode()
    text = f'curl -H "Authorization: Basic {creds}" https://ci.example.com/api/json'
    return Shape("authorization-basic-curl", "basic_auth", "command", text, (creds, password))


def _bearer_header(g: _Gen) -> Shape:
    token = g.s(40, _URLSAFE)
    text = f"curl -sS -H 'Authorization: Bearer {token}' https://api.example.com/v2/orders"
    return Shape("authorization-bearer-curl", "bearer_token", "command", text, (token,))


def _postgres_url(g: _Gen) -> Shape:
    password = g.password()
    text = f"psql postgresql://app_user:{password}@db.internal:5432/orders -c 'select 1'"
    return Shape("postgres-url", "url_password", "command", text, (password,))


def _mysql_url(g: _Gen) -> Shape:
    password = g.s(16)
    return Shape(
        "mysql-url-env",
        "url_password",
        "file",
        f"DATABASE_URL=mysql://root:{password}@127.0.0.1:3306/shop\n",
        (password,),
    )


def _mongodb_url(g: _Gen) -> Shape:
    password = g.s(20)
    text = (
        f'const uri = "mongodb+srv://admin:{password}@cluster0.ab1cd.mongodb.net/'
        '?retryWrites=true&w=majority";'
    )
    return Shape("mongodb-srv-url", "url_password", "file", text, (password,))


def _redis_url(g: _Gen) -> Shape:
    password = g.s(24)
    text = f"redis-cli -u redis://:{password}@cache.internal:6379/0 ping"
    return Shape("redis-url-no-user", "url_password", "command", text, (password,))


def _dotenv(g: _Gen) -> Shape:
    password = g.password()
    secret = g.s(50, _ALNUM + "!@#%^&*(-_=+)")
    text = f"NODE_ENV=production\nDB_PASSWORD={password}\nSECRET_KEY={secret}\nPORT=8080\n"
    return Shape("dotenv-lines", "secret", "file", text, (password, secret))


def _yaml_unquoted(g: _Gen) -> Shape:
    password = "hunter" + g.s(3, _DIGITS) + "-" + g.s(4, _LOWER)
    text = f"database:\n  host: db.internal\n  user: app\n  password: {password}\n  port: 5432\n"
    return Shape("yaml-password-unquoted", "secret", "file", text, (password,))


def _yaml_quoted(g: _Gen) -> Shape:
    password = g.password()
    text = f'smtp:\n  username: "mailer"\n  password: "{password}"\n'
    return Shape("yaml-password-quoted", "secret", "file", text, (password,))


def _json_client_secret(g: _Gen) -> Shape:
    secret = "GOC" + "SPX-" + g.s(28, _URLSAFE)
    data = {
        "installed": {
            "client_id": f"{g.s(12, _DIGITS)}-{g.s(32, _HEX)}.apps.googleusercontent.com",
            "client_secret": secret,
            "redirect_uris": ["http://localhost"],
        }
    }
    return Shape(
        "json-client-secret", "google_oauth", "file", json.dumps(data, indent=2), (secret,)
    )


def _json_client_secret_generic(g: _Gen) -> Shape:
    secret = g.s(40, _URLSAFE + "~.")
    text = json.dumps({"tenant": "acme", "clientId": "web", "clientSecret": secret})
    return Shape("json-client-secret-generic", "secret", "file", text, (secret,))


def _shell_token_export(g: _Gen) -> Shape:
    token = g.s(32, _URLSAFE)
    text = f"export DEPLOY_TOKEN={token} && ./deploy.sh --env staging"
    return Shape("shell-export-token", "secret", "command", text, (token,))


def _npmrc(g: _Gen) -> Shape:
    token = "np" + "m_" + g.s(36)
    text = f"$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken={token}\nfund=false\n"
    return Shape("npmrc-auth-token", "npm_token", "file", text, (token,))


def _pypirc(g: _Gen) -> Shape:
    token = "py" + "pi-AgEIcHlwaS5vcmc" + g.s(120, _URLSAFE)
    text = f"[pypi]\n  username = __token__\n  password = {token}\n"
    return Shape("pypirc-token", "pypi_token", "file", text, (token,))


def _docker_config(g: _Gen) -> Shape:
    password = g.password()
    auth = base64.b64encode(f"ci-bot:{password}".encode()).decode()
    data = {"auths": {"https://index.docker.io/v1/": {"auth": auth}}}
    text = "$ cat ~/.docker/config.json\n" + json.dumps(data, indent=2)
    return Shape("docker-config-auth", "secret", "file", text, (auth,))


def _issue_token_eq(g: _Gen) -> Shape:
    token = g.s(8, _LOWER + _UPPER) + "-" + g.s(8, _DIGITS)
    return Shape("issue-token-equals", "secret", "paste", f"token={token}", (token,))


def _issue_api_key(g: _Gen) -> Shape:
    key = g.s(12, _LOWER + _UPPER) + "+" + g.s(6)
    return Shape("issue-api-key-spaces", "secret", "paste", f"api_key = {key}", (key,))


def _django_secret(g: _Gen) -> Shape:
    key = "django-insecure-" + g.s(50, _LOWER + _DIGITS + "!@#$%^&*(-_=+)")
    text = f"# settings.py\nSECRET_KEY = '{key}'\nDEBUG = False"
    return Shape("django-secret-key", "secret", "file", text, (key,))


def _mysql_cli(g: _Gen) -> Shape:
    password = g.password()
    text = f"mysql -h 127.0.0.1 -u root -p{password} shop < dump.sql"
    return Shape("mysql-cli-password", "cli_password", "command", text, (password,))


def _pgpassword(g: _Gen) -> Shape:
    password = g.password()
    text = f"PGPASSWORD={password} pg_dump -h db.internal -U app orders > orders.sql"
    return Shape("pgpassword-inline", "secret", "command", text, (password,))


def _netrc(g: _Gen) -> Shape:
    password = g.s(8, _HEX) + "-" + g.s(4, _HEX) + "-" + g.s(4, _HEX) + "-" + g.s(12, _HEX)
    text = (
        f"$ cat ~/.netrc\nmachine api.heroku.com\n  login dev@example.com\n  password {password}\n"
    )
    return Shape("netrc-password", "secret", "file", text, (password,))


def _prose_password(g: _Gen) -> Shape:
    password = g.password()
    text = f"the staging db password is {password} - can you check why login fails?"
    return Shape("prose-password", "secret", "paste", text, (password,))


def _kubeconfig(g: _Gen) -> Shape:
    pem = _pem("RSA PRIVATE KEY", g.pem_body(600))
    data = base64.b64encode(pem.encode()).decode()
    text = (
        "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n"
        f"    client-key-data: {data}\n"
    )
    # The middle of the blob encodes the key's body; its ends encode the fixed BEGIN/END lines.
    return Shape("kubeconfig-client-key-data", "encoded_secret", "file", text, (data[60:-60],))


def _k8s_secret_b64(g: _Gen) -> Shape:
    creds = json.dumps(
        {"type": "service_account", "private_key": _pem("PRIVATE KEY", g.pem_body(300))}
    )
    blob = base64.b64encode(creds.encode()).decode()
    text = f"echo '{blob}' | base64 -d > /tmp/sa.json && gcloud auth activate-service-account"
    body = blob[len(blob) // 3 : -60]  # encodes the key's body, not the JSON around it
    return Shape("base64-service-account", "encoded_secret", "command", text, (body,))


def _digitalocean(g: _Gen) -> Shape:
    token = "do" + "p_v1_" + g.s(64, _HEX)
    text = f"doctl auth init --access-token {token}"
    return Shape("digitalocean-token", "digitalocean_token", "command", text, (token,))


def _vault(g: _Gen) -> Shape:
    token = "hv" + "s." + g.s(90, _URLSAFE)
    return Shape(
        "vault-token",
        "vault_token",
        "command",
        f"VAULT_TOKEN={token} vault kv get secret/app",
        (token,),
    )


def _telegram(g: _Gen) -> Shape:
    token = f"{g.s(10, _DIGITS)}:AA{g.s(33, _URLSAFE)}"
    text = f'requests.get(f"https://api.telegram.org/bot{token}/sendMessage", params=p)'
    return Shape("telegram-bot-token", "telegram_token", "file", text, (token,))


def _shopify(g: _Gen) -> Shape:
    token = "shp" + "at_" + g.s(32, _HEX)
    text = f'curl -H "X-Shopify-Access-Token: {token}" https://shop.myshopify.com/admin/api/orders.json'
    return Shape("shopify-token-header", "shopify_token", "command", text, (token,))


def _presigned_url(g: _Gen) -> Shape:
    token = "IQoJb3JpZ2luX2VjE" + g.s(200, _URLSAFE)
    sig = g.s(64, _HEX)
    text = (
        "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        f"&X-Amz-Security-Token={token}&X-Amz-Signature={sig}"
    )
    return Shape("aws-presigned-url", "url_signature", "paste", text, (token, sig))


SHAPES: tuple[Callable[[_Gen], Shape], ...] = (
    _aws_credentials,
    _aws_env,
    _aws_sts_json,
    _github_remote,
    _github_hosts,
    _github_pat,
    _gitlab,
    _slack_bot,
    _slack_webhook,
    _stripe_live,
    _stripe_restricted,
    _openai_project,
    _openai_legacy,
    _anthropic,
    _huggingface,
    _sendgrid,
    _twilio_env,
    _twilio_curl,
    _google_api_key,
    _gcp_service_account,
    _azure_storage,
    _jwt,
    _pem_rsa,
    _pem_openssh,
    _basic_auth_header,
    _bearer_header,
    _postgres_url,
    _mysql_url,
    _mongodb_url,
    _redis_url,
    _dotenv,
    _yaml_unquoted,
    _yaml_quoted,
    _json_client_secret,
    _json_client_secret_generic,
    _shell_token_export,
    _npmrc,
    _pypirc,
    _docker_config,
    _issue_token_eq,
    _issue_api_key,
    _django_secret,
    _mysql_cli,
    _pgpassword,
    _netrc,
    _prose_password,
    _kubeconfig,
    _k8s_secret_b64,
    _digitalocean,
    _vault,
    _telegram,
    _shopify,
    _presigned_url,
)


def credential_shapes() -> list[Shape]:
    """Every shape, its values drawn from a generator seeded by the shape's function name."""
    return [make(_Gen(make.__name__)) for make in SHAPES]


def fragments(secret: str, width: int = 8) -> list[str]:
    """The secret and every `width`-char piece of it: a partial leak is a leak too."""
    if len(secret) <= width:
        return [secret]
    return [secret, *(secret[i : i + width] for i in range(len(secret) - width + 1))]


# Ordinary text from transcripts, code and logs that must come through unchanged.
ORDINARY: tuple[str, ...] = (
    "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Dev <dev@example.com>\n",
    "$ git log --oneline\n9fceb02 fix: token refresh\n4b825dc (tag: v1.2.0) release\n",
    "sha256sum dist/app.tar.gz\n"
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  dist/app.tar.gz",
    "2026-05-11T11:26:55Z INFO request_id=019e1625-789d-76c0-80ab-3724b5ddb799 took 12ms",
    "session 4c2ddfdc-b619-4525-8d03-1950fb1b0257 resumed",
    "docker pull python@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
    '"integrity": "sha512-dBYHKjT0wXnZhbE3d2vKcMlpXH1Mp3eHIvFvZbfMkxJkaC8XQ4dZcyQfsBbbv0TgYgX'
    'lCTbsXxFCSWp1yiAqvA=="',
    "token_count = 12",
    "password_min_length: 8",
    "max_tokens: 4096\ncache_read_input_tokens: 126365",
    "def get_password(self) -> str:\n    return self._password",
    "token = get_token()",
    "password=self.password",
    "api_key = os.environ['OPENAI_API_KEY']",
    "const apiKey = process.env.OPENAI_API_KEY;",
    "SECRET_KEY = env('SECRET_KEY')",
    "password: ${DB_PASSWORD}",
    "TOKEN=$GITHUB_TOKEN and SECRET=${SECRET}",
    "password: <your-password>",
    'api_key: "YOUR_API_KEY"',
    "Authorization: Bearer $TOKEN",
    'curl -H "Authorization: Bearer ${OPENAI_API_KEY}" https://api.openai.com/v1/models',
    "def f(token: str, password: Optional[str] = None) -> None:",
    "function login(user: string, password: string): Promise<Session>",
    "{ username: username, password: password }",
    "const token = await getAccessToken(client);",
    "token_type: bearer\nexpires_in: 3600",
    "api_key_env: OPENAI_API_KEY",
    "password_file: /run/secrets/db_password",
    "token_url: https://oauth2.googleapis.com/token",
    "the token is expired, ask for a new password",
    "Your password is required to continue.",
    "tokenizer = AutoTokenizer.from_pretrained(model_path)",
    "bypass_cache=True passenger_count=3",
    "NODE_ENV=production\nPORT=8080\nLOG_LEVEL=debug",
    "http://localhost:8080/api and https://user@example.com/x and git@github.com:acme/api.git",
    "ssh://git@github.com:22/acme/api.git",
    "/home/dev/.config/nano-brain/config.yml /Users/Sample_User/repos/codemie-ai/codemie-code",
    "server/nano_brain/harvest/redact.py:42: AbstractSingletonProxyFactoryBeanTokenizer",
    "test_redaction_keeps_surrounding_text_when_run_twice_on_secret_tokens PASSED",
    "ICON_PNG = 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGXRFWHRTb2Z0d2FyZQBBZG9iZSBJbWFnZ"
    "VJlYWR5ccllPAAAAJZJREFUeNpi/P//PwMlgImBQjDwBrBw7MAUJWBQAAIMAKq4Cu3YKAAAAAElFTkSuQmCC'",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n"
    "-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEVs/o5+uQbTjL3chynL4wXgUg2R9\n"
    "-----END PUBLIC KEY-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "docker run -u 1000:1000 -p 8080:80 nginx",
    "The basic idea: Bearer tokens are sent in the Authorization header.",
    "if password == confirm_password:\n    save()",
    "pk" + "_test_TYooMQauvdEDq54NiTphI7jx is Stripe's documented publishable test key",
    "AccountName=devstoreaccount1;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
    '$ cat package.json\n{\n  "name": "api",\n  "version": "1.2.3",\n  "private": true\n}',
    "fixed in 2f1e5a1, see https://github.com/acme/api/pull/42#issuecomment-1234567890",
    "export PATH=$HOME/.local/bin:$PATH\nexport PWD=/home/dev/project",
    "secret_name: prod/db/password\ntoken_endpoint_auth_method: client_secret_basic",
    "password_hint: 'your first pet'\nauth: oauth2",
    "Use `--password-stdin` instead of `--password` with docker login.",
)


def command_line_shapes() -> list[tuple[str, str, str]]:
    """(id, text, secret): more places a credential stands in sessions, in one line each;
    first measured as a held-out set (16/25, then 14/20 of a second one), now regressions."""
    g = _Gen("command_line_shapes")
    s, p, h = g.s(24), g.password(), g.s(40, _HEX)
    pg = g.password().replace("#", "")
    k = g.s(40, _B64)
    return [
        ("az-login", f"az login --service-principal -u app-id -p {s} --tenant acme", s),
        ("docker-login", f"docker login -u ci-bot -p '{p}' registry.example.com", p),
        ("pgpass", f"echo 'db.internal:5432:orders:app:{p}' >> ~/.pgpass", p),
        ("aws-configure", f"aws configure set aws_secret_access_key {k}", k),
        ("redis-cli", f"redis-cli -h cache -a {p} ping", p),
        ("jdbc", f"jdbc:mysql://db:3306/shop?user=root&password={p}&useSSL=true", p),
        ("libpq", f'psql "host=db user=app password={p} dbname=orders"', p),
        ("mongosh", f"mongosh mongodb://db --username admin --password {p}", p),
        ("tfvars", f'db_password = "{p}"', p),
        ("windows-set", f"set API_KEY={s}", s),
        ("powershell", f'$env:OPENAI_API_KEY = "{s}"', s),
        ("k8s-stringdata", f"stringData:\n  password: {p}", p),
        ("heroku", f"heroku config:set STRIPE_SECRET={s}", s),
        ("git-clone-oauth2", f"git clone https://oauth2:{s}@gitlab.example.com/acme/api.git", s),
        ("wget", f"wget --user=ci --password={p} https://example.com/x", p),
        ("aws-sigv4", f"Authorization: AWS4-HMAC-SHA256 Credential=x, Signature={h}{h[:24]}", h),
        ("json-api-key", f'{{"api_key": "{s}", "region": "eu"}}', s),
        ("prose-api-key", f"the new api key is {s}", s),
        ("spring", f"spring.datasource.password={p}", p),
        ("openssl", f"openssl enc -aes-256-cbc -k {p} -in a -out b", p),
        ("zip", f"zip -P {p} backup.zip data/", p),
        ("x-api-key", f"curl https://api.example.com -H 'X-API-Key: {s}'", s),
        ("httpie", f"http POST api.example.com/login username=bob password={p}", p),
        ("sql-create-user", f"CREATE USER app WITH PASSWORD '{p}';", p),
        ("sql-identified-by", f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{p}';", p),
        ("helm-set", f"--set auth.rootPassword={p}", p),
        ("kubectl-literal", f"kubectl create secret generic db --from-literal=password={p}", p),
        ("xml-element", f"<password>{p}</password>", p),
        ("cookie", f"Cookie: session_id={s}; theme=dark", s),
        ("ftp-url", f"ftp://deploy:{pg}@files.example.com/upload", pg),
    ]
