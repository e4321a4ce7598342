"""Redaction: every secret shape with a realistic positive and a near-miss negative; ordinary prose, ledger
hashes, digests, UUIDs and git shas untouched; markers stable; secrets gone from what is sent, recorded,
printed and raised."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc.llm import LLMConfigError, Message, Redactor, provider_from_config
from aidlc.model.config import LLMConfig
from aidlc.redaction import find_secrets, without_password
from tests.openai_server import ScriptedServer, chat, error

ROOT = Path(__file__).resolve().parent.parent
GCP_KEY = ("-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\\n"
           "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\\n-----END PRIVATE KEY-----\\n")

# (kind, realistic text with a secret, the secret itself, a near miss that must stay as it is)
SHAPES = [
    ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
                    "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
     "Keep the private key in the vault; never paste a BEGIN PRIVATE KEY block into a story."),
    ("private-key", '{"type": "service_account", "project_id": "shop-prod", "private_key_id": "4f1c2e", '
                    f'"private_key": "{GCP_KEY}", "client_email": "ci@shop-prod.iam.gserviceaccount.com"}}',
     "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
     '{"type": "service_account", "client_email": "ci@shop-prod.iam.gserviceaccount.com"}'),
    ("aws-key", "aws_access_key_id = AKIAZ5QXN7EXAMPLE42Q", "AKIAZ5QXN7EXAMPLE42Q",
     "the AKIA prefix marks long-term keys; AKIAZ5QXN7 alone is too short to be one"),
    ("aws-secret-key", "AKIAZ5QXN7EXAMPLE42Q,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",
     "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei", "commit 8f14e45fceea167a5a36dedd4bea2543b2c1d0e9 fixed it"),
    ("assigned-secret", "[default]\naws_secret_access_key = Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei",
     "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei", "aws_secret_access_key = os.environ.get"),
    ("azure-key", "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=q8Rst9UvWx0YzAbCdEfGhIjKlMnOpQr"
                  "StUvWxYz0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH==;EndpointSuffix=core.windows.net",
     "q8Rst9UvWx0YzAbCdEfGhIjKlMnOpQrStUvWxYz", "AccountName=shopdata;EndpointSuffix=core.windows.net"),
    ("azure-key", "Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=send;"
                  "SharedAccessKey=Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3EiQ8=",
     "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3EiQ8=", "SharedAccessKeyName=send"),
    ("azure-sas", "https://shop.blob.core.windows.net/exports/a.csv?sv=2022-11-02&se=2026-12-01&sr=b&sp=r"
                  "&sig=Xk2F9%2BqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei%3D", "Xk2F9%2BqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei",
     "the signature (sig=...) ends a SAS URL"),
    ("azure-client-secret", "client secret: Abc8Q~Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra",
     "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra", "see FAQ~section 3Q~ of the guide"),
    ("google-api-key", "maps key AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T", "AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T",
     "keys start with AIza and are 39 characters long"),
    ("google-oauth", "client_secret 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", "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",
     "the GOCSPX- prefix"),
    ("google-oauth", "access ya29.a0AfB_byZk3r9PqLmT8vWx2YbN5cHs7Jd1Fg", "ya29.a0AfB_byZk3r9PqLmT8vWx2YbN5cHs7Jd1Fg",
     "ya29 is a prefix"),
    ("url-password", "DATABASE_URL=postgres://shop:Pa55w0rdXyZ@db.internal:5432/shop", "Pa55w0rdXyZ",
     "see https://docs.example.com:8443/a:b@c and git@github.com:org/repo.git"),
    ("assigned-secret", "DB_PASSWORD=s3cr3t-Passw0rd!", "s3cr3t-Passw0rd!", "password_min_length: 12"),
    ("assigned-secret", 'db:\n  password: "correct horse battery"', "correct horse battery",
     "**Password**: at least 12 characters"),
    ("assigned-secret", '{"api_key": "c0ffee-1234-beef"}', "c0ffee-1234-beef", '{"api_key_env": "OPENAI_API_KEY"}'),
    ("assigned-secret", 'const apiKey = "Zk3r9PqLmT8v";', "Zk3r9PqLmT8v", "password = get_password()"),
    ("assigned-secret", "export SLACK_SIGNING_SECRET=8f14e45fceea167a5a36", "8f14e45fceea167a5a36",
     "secret: ${{ secrets.SLACK_SIGNING_SECRET }}"),
    ("assigned-secret", "GITHUB_TOKEN: v1.Zk3r9PqLmT8vWx2Y", "v1.Zk3r9PqLmT8vWx2Y", "max_tokens: 120000"),
    ("assigned-secret", "client_secret := 'Zk3r9PqLmT8vWx'", "Zk3r9PqLmT8vWx", "token_budget = 12000"),
    ("stripe-key", "STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
     "pk_live_ keys are public; sk_live_ ones are not"),
    ("stripe-key", "restricted rk_live_51H8Zk3r9PqLmT8vWx2YbN5c", "rk_live_51H8Zk3r9PqLmT8vWx2YbN5c",
     "the task_test_runner module"),
    ("stripe-key", "endpoint secret whsec_Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg", "whsec_Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg",
     "whsec_ is the webhook secret prefix"),
    ("api-key", "OPENAI_API_KEY=sk-proj-Zk3r9PqLmT8vWx2YbN5cHs7Jd1", "sk-proj-Zk3r9PqLmT8vWx2YbN5cHs7Jd1",
     "a risk-assessment-for-payments story and the disk-encryption-at-rest NFR"),
    ("api-key", "x-api-key: sk-ant-api03-Zk3r9PqLmT8vWx2YbN5c", "sk-ant-api03-Zk3r9PqLmT8vWx2YbN5c", "sk-short"),
    ("api-key", "key = sk-Zk3r9PqLmT8vWx2YbN5cHs7Jd1", "sk-Zk3r9PqLmT8vWx2YbN5cHs7Jd1",
     "key type sk-ecdsa-sha2-nistp256@openssh.com"),
    ("github-token", "token ghp_R2d2C3poBb8Ll4Hh6Yy9Qq1Ww3Ee5Tt7Uu0Z", "ghp_R2d2C3poBb8Ll4Hh6Yy9Qq1Ww3Ee5Tt7Uu0Z",
     "ghp_ tokens are classic personal access tokens"),
    ("github-token", "github_pat_11AB2CD3E0Zk3r9PqLmT8v_Wx2YbN5cHs7Jd1Fg", "github_pat_11AB2CD3E0Zk3r9PqLmT8v",
     "github_pat_ is the fine-grained prefix"),
    ("gitlab-token", "CI uses glpat-Zk3r9PqLmT8vWx2YbN5c", "glpat-Zk3r9PqLmT8vWx2YbN5c", "glpat- tokens expire"),
    ("npm-token", "//registry.npmjs.org/:_authToken=npm_Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0U",
     "npm_Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0U", "run npm_config_cache=/tmp npm ci"),
    ("pypi-token", "password = pypi-AgEIcHlwaS5vcmcCJDZrM3I5UHFMbVQ4dld4MllibjVjSHM3SmQxRmc0S2U2UmEw",
     "pypi-AgEIcHlwaS5vcmcCJDZrM3I5UHFMbVQ4dld4MllibjVjSHM3SmQxRmc0S2U2UmEw", "pip install pypi-simple"),
    ("slack-token", "SLACK_BOT=xoxb-2301234567-4567890123-Zk3r9PqLmT8vWx2YbN5c", "Zk3r9PqLmT8vWx2YbN5c",
     "the xox prefix names Slack tokens"),
    ("slack-webhook", "post to https://hooks.slack.com/services/T0AB1CD2E/B0FG3HI4J/q8Rst9UvWx0YzAbCdEfGhIjK",
     "q8Rst9UvWx0YzAbCdEfGhIjK", "see https://api.slack.com/messaging/webhooks"),
    ("jwt", "cookie session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEiLCJyb2xlIjoiYWRtaW4ifQ.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
     "dBjftJeZ4CVPmB92K27uhbUJU1p1r", "a JWT starts with eyJ, as base64 of '{\"'"),
    ("bearer-token", "curl -H 'Authorization: Bearer 7f3a9c2e1b8d4f6a0e5c'", "7f3a9c2e1b8d4f6a0e5c",
     "the bearer of this card"),
    ("basic-auth", "Authorization: Basic YWRhOmNvcnJlY3QtaG9yc2U=", "YWRhOmNvcnJlY3QtaG9yc2U=", "Basic usage first"),
]


@pytest.mark.parametrize(("kind", "text", "secret", "near_miss"), SHAPES,
                         ids=[f"{kind}-{index}" for index, (kind, *_rest) in enumerate(SHAPES)])
def test_each_shape_is_redacted_and_its_near_miss_is_not(kind: str, text: str, secret: str, near_miss: str) -> None:
    redact = Redactor(env={})
    redacted = redact(text)
    assert f"[REDACTED:{kind}]" in redacted and secret not in redacted
    assert redact(near_miss) == near_miss


def test_an_assignment_keeps_its_key_and_quotes_and_a_url_its_user_and_host() -> None:
    redact = Redactor(env={})
    assert redact('password: "hunter2!"') == 'password: "[REDACTED:assigned-secret]"'
    assert redact("DB_PASSWORD=s3cr3t-Passw0rd!") == "DB_PASSWORD=[REDACTED:assigned-secret]"
    assert redact("postgres://shop:Pa55w0rdXyZ@db:5432/shop") == "postgres://shop:[REDACTED:url-password]@db:5432/shop"
    # A key named for what it is wins over the assignment it stands in.
    assert redact('OPENAI_API_KEY = "sk-proj-Zk3r9PqLmT8vWx2YbN5cHs7Jd1"') == 'OPENAI_API_KEY = "[REDACTED:api-key]"'


@pytest.mark.parametrize("text", [
    '{"hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","key":"gate:001:plan",'
    '"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":7}',
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "run 123e4567-e89b-12d3-a456-426614174000 on commit 8f14e45fceea167a5a36dedd4bea2543b2c1d0e9 (8f14e45)",
    "prompt_sha256: 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "usage: prompt_tokens: 1200, completion_tokens: 300, max_tokens: 4096, token budget: 12000",
    "The password policy says: a secret is never written in a story. Tokens expire after 90 days.",
    "api_key_env: OPENAI_API_KEY  # the variable that holds the key",
    "### NFR-2: Secrets\n- [ ] **Given** a password: **When** it is stored, **Then** it is hashed with argon2",
])
def test_ordinary_text_digests_and_ids_are_left_alone(text: str) -> None:
    assert Redactor(env={})(text) == text


def test_this_repository_itself_has_nothing_to_redact() -> None:
    """Its code, templates and ledger: thousands of near misses (max_tokens, api_key=..., digests)."""
    files = [*(ROOT / "aidlc").rglob("*.py"), *(ROOT / "templates").rglob("*"), ROOT / "memory-bank" / "events.jsonl"]
    for path in (p for p in files if p.is_file()):
        text = path.read_text(encoding="utf-8")
        assert find_secrets(text) == [], path


def test_markers_are_stable_across_machines() -> None:
    text = "AKIAZ5QXN7EXAMPLE42Q and DB_PASSWORD=hunter2hunter2 and ghp_R2d2C3poBb8Ll4Hh6Yy9Qq1Ww3Ee5Tt7Uu0Z"
    here = Redactor(env={"DB_PASSWORD": "hunter2hunter2"})(text)
    there = Redactor(env={"DB_PASSWORD": "another-machine-1"})(text)
    assert here == "[REDACTED:aws-key] and DB_PASSWORD=[REDACTED:DB_PASSWORD] and [REDACTED:github-token]"
    assert there == "[REDACTED:aws-key] and DB_PASSWORD=[REDACTED:assigned-secret] and [REDACTED:github-token]"


def test_secret_looking_environment_names() -> None:
    env = {"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountName=x",
           "GOOGLE_PRIVATE_KEY_ID": "4f1c2e9d8b7a", "MYSQL_PWD": "hunter2hunter2", "BASIC_AUTH": "ada:lovelace1",
           "PWD": "/home/ada/src/shop", "GIT_AUTHOR_NAME": "Ada Lovelace", "PATH": "/usr/local/bin:/usr/bin"}
    redact = Redactor(env=env)
    assert redact("DefaultEndpointsProtocol=https;AccountName=x") == "[REDACTED:AZURE_STORAGE_CONNECTION_STRING]"
    assert redact("id 4f1c2e9d8b7a, pwd hunter2hunter2, user ada:lovelace1") == \
        "id [REDACTED:GOOGLE_PRIVATE_KEY_ID], pwd [REDACTED:MYSQL_PWD], user [REDACTED:BASIC_AUTH]"
    kept = "cd /home/ada/src/shop; author Ada Lovelace; PATH=/usr/local/bin:/usr/bin"
    assert redact(kept) == kept


def smuggled(secret: str) -> list[str]:
    """The secret as code that wants it past a redactor prints it, each inside other text it was encoded with."""
    import base64
    from urllib.parse import quote

    found = [secret[::-1], secret.encode().hex(), secret.encode().hex().upper(), quote(secret, safe="")]
    for before in ("", "x", "xy", "xyz", "user:"):
        for after in ("", "!", "!?"):
            plain = f"{before}{secret}{after}".encode()
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                found += [encode(plain).decode(), encode(plain).decode()[::-1],
                          encode(f"{before}{secret[::-1]}{after}".encode()).decode()]
    return found


@pytest.mark.parametrize("secret", ["hunter2-but/longer?+", "AbCdEfGh", "s3cr3t-t0k3n-\u00e9t\u00e9-99"])
def test_a_secret_value_is_redacted_reversed_base64_hex_and_url_encoded(secret: str) -> None:
    redact = Redactor(env={"DEPLOY_TOKEN": secret})
    for form in smuggled(secret):
        text = f"AssertionError: {form} != 'expected'"
        assert "[REDACTED:DEPLOY_TOKEN]" in redact(text), form
    ordinary = "AssertionError: 6 != -6; sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    assert redact(ordinary) == ordinary


def test_a_url_password_never_reaches_a_key_a_cassette_or_a_message(tmp_path: Path, server: ScriptedServer) -> None:
    url = server.url.replace("http://", "http://ada:Pa55w0rdXyZ@")
    assert without_password(url) == server.url.replace("http://", "http://ada:[REDACTED:url-password]@")
    cassette = tmp_path / "c.jsonl"
    server.push(chat("ok"), error(400, "bad request"))
    provider = provider_from_config(LLMConfig(), base_url=url, record=cassette, env={})
    assert "Pa55w0rdXyZ" not in provider.key
    answer = provider.complete([Message("user", "hi")], max_tokens=8)
    assert "Pa55w0rdXyZ" not in answer.target
    with pytest.raises(Exception) as caught:
        provider.complete([Message("user", "again")], max_tokens=8)
    assert "Pa55w0rdXyZ" not in str(caught.value)
    assert "Pa55w0rdXyZ" not in cassette.read_text()
    with pytest.raises(LLMConfigError) as refused:
        provider_from_config(LLMConfig(), base_url="https://ada:Pa55w0rdXyZ@llm.example/v1", env={})
    assert "Pa55w0rdXyZ" not in refused.value.message + " ".join(refused.value.next_steps)


def test_degradation_notices_are_redacted(server: ScriptedServer) -> None:
    from aidlc.llm.retry import RetryPolicy
    from aidlc.model.config import LLMTarget

    with ScriptedServer() as backup:
        server.push(*[error(503, "overloaded while handling sk-proj-Zk3r9PqLmT8vWx2YbN5cHs7Jd1")] * 2)
        backup.push(chat("from the backup"))
        notices: list[str] = []
        llm = LLMConfig(fallback=[LLMTarget(model="small", base_url=backup.url)])
        provider = provider_from_config(llm, base_url=server.url, env={}, retry=RetryPolicy(attempts=2,
                                        sleep=lambda _s: None), on_degrade=lambda d: notices.append(d.reason))
        assert provider.complete([Message("user", "hi")], max_tokens=8).text == "from the backup"
    assert notices and "sk-proj-Zk3r9PqLmT8vWx2YbN5cHs7Jd1" not in notices[0] and "[REDACTED:api-key]" in notices[0]


def test_many_secrets_and_a_large_prompt_stay_linear() -> None:
    """Thousands of assignments: each found once, no quadratic overlap checks (runs in well under a second)."""
    text = "".join(f"user{i}_password = S3cret-{i:06d}-value\n" for i in range(5000))
    redacted = Redactor(env={})(text)
    assert redacted.count("[REDACTED:assigned-secret]") == 5000 and "S3cret-" not in redacted


def test_the_benchmark_runs_and_ours_removes_every_planted_secret(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "redaction.py"), "--size", "5000", "--runs", "1",
                           "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["rows"]["aidlc"]["secrets_removed"] == report["secrets"] == 8
    assert report["imports"]["aidlc_redact_s"] >= 0
