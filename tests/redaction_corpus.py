"""The redaction corpus: code that must come out as written, and secrets that must not come out at all.

Every secret is assembled at run time from pieces (``_join``), so this file holds no
string a secret scanner would take for a live credential; the values are random-looking
but fake.
"""

from __future__ import annotations

import base64

#: Code as people paste it into chats, by language: every line must come out unchanged.
CODE: dict[str, str] = {
    "python": r"""
import os
from typing import Optional
def login(username, password=None):
def login(username: str, password: str | None = None) -> Session:
    token = os.environ["GITHUB_TOKEN"]
    api_key = os.environ.get("OPENAI_API_KEY", "")
    api_key = os.getenv("API_KEY")
    secret_key = settings.SECRET_KEY
    SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
    password: str
    password: Optional[str] = None
    api_key: str = ""
    token: SecretStr = Field(default=None)
    access_token = get_token()
    refresh_token = await client.refresh(token=refresh_token)
    self.token = token
    self.api_key = api_key
    client = OpenAI(api_key=api_key)
    client = Client(
        api_key=api_key,
        timeout=30,
    )
    headers = {"Authorization": f"Bearer {token}"}
    headers = {"Authorization": "Bearer " + token}
    if not password:
        raise ValueError("password is required")
    print("Password: " + mask(password))
    password = getpass.getpass("Password: ")
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
    token_type = "bearer"
    max_tokens = 4096
    tokens = tokenizer.encode(text)
    key = lambda item: item.name
    sorted(users, key=lambda u: u.created_at)
    for key, value in config.items():
    cache_key = f"user:{user_id}:profile"
    primary_key = True
    id = Column(Integer, primary_key=True)
    password_hash = Column(String(128), nullable=False)
    data["password"] = hash_password(data["password"])
    os.environ["API_KEY"] = api_key
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")
    SECRET_KEY = os.getenv("SECRET_KEY", "dev-only-secret-key")
    if (token := get_token()):
    app.secret_key = os.environ.get("SECRET_KEY", "dev")
    self.token = request.headers.get("X-Token")
    return {"token": token, "expires_in": 3600}
    assert response.json()["token_type"] == "bearer"
    parser.add_argument("--password", help="database password")
    parser.add_argument("--api-key", default=os.environ.get("API_KEY"))
    secret = secrets.token_urlsafe(32)
    token = jwt.encode(payload, key, algorithm="HS256")
    pass
else:
    pass
    logger.info("token refreshed for %s", user.id)
    password = request.form["password"]
    api_key: Optional[str] = Field(None, env="API_KEY")
    SECRET_KEY = env("SECRET_KEY")
    DATABASES = {"default": env.db("DATABASE_URL")}
    passphrase = None
    private_key: Ed25519PrivateKey | Ed448PrivateKey
    token = r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+"
    token = "'", token[0][1:-1]
    Token: "#ddd0c0",
    jsonnet_token = r'[^\W\d]\w*'
    user = User(username="scolvin", password="password")
    password = input("Password: ")
    password = "<your password>"
    password = "changeme"
    password = ""
    errors = {"password": "Password is required", "token": "Invalid or expired token."}
""",
    "typescript": """
export interface Config { apiKey: string; baseUrl: string }
  apiKey: string = ''
  private readonly apiKey: string;
  token?: string;
  password: z.string().min(8),
const apiKey = process.env.API_KEY;
const apiKey = process.env.OPENAI_API_KEY ?? "";
  apiKey: process.env.OPENAI_API_KEY!,
const token = localStorage.getItem('token');
const { token } = useAuth();
  headers: { Authorization: `Bearer ${token}` },
  headers: { 'x-api-key': apiKey },
  credentials: 'include',
  body: JSON.stringify({ username, password }),
  password: '',
  password: "",
  token: state.auth.token,
  return { token, user };
if (!token) throw new Error('missing token');
export const TOKEN_KEY = 'auth.token';
const secret = await getSecret(secretName);
<input type="password" name="password" autoComplete="current-password" />
  type: 'password',
  const [password, setPassword] = useState('');
  onChange={(e) => setPassword(e.target.value)}
  list.map((item) => <Row key={item.id} {...item} />)
  { key: 'name', title: 'Name' },
  res.cookie('token', token, { httpOnly: true, secure: true });
  token: string | null;
  private token: string | undefined = undefined;
  const passwordInput = screen.getByLabelText(/password/i);
  expect(res.body.token).toBeDefined();
  jwt.sign({ sub: user.id }, process.env.JWT_SECRET!, { expiresIn: '1h' })
  const hash = await bcrypt.hash(password, 10);
""",
    "go": """
package auth
func Login(username, password string) (*Session, error) {
	token := os.Getenv("GITHUB_TOKEN")
	apiKey, ok := os.LookupEnv("API_KEY")
	Password: os.Getenv("DB_PASSWORD"),
	Token     string `json:"token"`
	APIKey    string `json:"api_key" yaml:"api_key"`
	req.Header.Set("Authorization", "Bearer "+token)
	token, err := auth.GetToken(ctx)
	if token == "" {
	var apiKey string
	secret := []byte(cfg.Secret)
	key := fmt.Sprintf("session:%s", id)
	for key, value := range headers {
	return &Client{token: token, baseURL: baseURL}, nil
	password := flag.String("password", "", "database password")
	token := &oauth2.Token{AccessToken: accessToken}
secret := []byte(cfg.Secret)
""",
    "rust": """
use std::env;
let token = env::var("GITHUB_TOKEN")?;
let api_key = std::env::var("API_KEY").expect("API_KEY must be set");
pub struct Config { pub api_key: String, pub timeout: u64 }
    api_key: String,
    pub secret: Secret<String>,
    password: &'a str,
let token: String = String::new();
let key = format!("user:{}", id);
    .header("Authorization", format!("Bearer {}", token))
fn verify(password: &str, hash: &str) -> bool {
    let secret_key = SecretKey::from_slice(&bytes)?;
""",
    "shell": """
export GITHUB_TOKEN=$(gh auth token)
setx PATH "%PATH%;C:\\tools\\bin"
setx API_KEY %API_KEY%
set -gx API_KEY $API_KEY
set -gx SECRET_KEY (cat ~/.config/app/secret)
set -euo pipefail
cat password.txt | sha256sum
echo "$TOKEN" | base64 -d
TOKEN ?= $(GITHUB_TOKEN)
SECRET_KEY_PROD=${SECRET_KEY_PROD}
export API_KEY="${API_KEY:-}"
TOKEN=$(vault kv get -field=token secret/ci)
curl -H "Authorization: Bearer $TOKEN" https://api.github.com/user
curl -H "Authorization: token ${GITHUB_TOKEN}" https://api.github.com/repos
echo "$DB_PASSWORD" | docker login --username ci --password-stdin
read -s -p "Password: " PASSWORD
docker login -u "$REGISTRY_USER" -p "$REGISTRY_PASSWORD" registry.example.com
git push -u origin main
sort -u names.txt
ssh-keygen -t ed25519 -C "me@example.com" -f ~/.ssh/id_ed25519
gpg --list-secret-keys --keyid-format=long
PWD=/home/dev/code/api
OLDPWD=/home/dev
aws configure get aws_secret_access_key
kubectl create secret generic db --from-literal=password="$DB_PASSWORD"
psql "postgresql://app:${PGPASSWORD}@localhost:5432/app"
git clone https://github.com/acme/api.git
pip install --index-url https://pypi.org/simple requests
npm config set //registry.npmjs.org/:_authToken "${NPM_TOKEN}"
PASSWORD_FILE=/run/secrets/db psql -h db
TOKEN_TTL=3600 ./run.sh
SECRET_KEY_BASE=$(rails secret) rails server
NODE_ENV=production API_KEY=$API_KEY npm start
AUTH_TOKEN=none make test
PASSWORD="$DB_PASSWORD"
redis-cli -a "$REDIS_PASSWORD" ping
redis-cli --askpass -h cache ping
redis-cli -h cache -p 6379 --no-auth-warning info
redis-server --requirepass ${REDIS_PASSWORD}
ls -a src && cp -a dist /tmp/dist
docker run -p 8080:80 nginx
ssh -p 22 deploy@build-01
kubectl port-forward svc/api 8080:80
mkdir -p build/out && cp -p a.txt b.txt
git commit -m "fix login"
grep -w word notes.txt | sort -k2
tar -k -xf backup.tar && ls -P
sqlcmd -S db -U sa -Q "select 1"
smbclient //srv/share -U user
keytool -list -keystore x.jks
keytool -list -keystore x.jks -storepass:env STOREPASS
ldapsearch -x -LLL -s sub -b dc=example,dc=org
htpasswd -c .htpasswd admin
rabbitmqctl list_users
zip -r out.zip dir && unzip -l out.zip
7z x archive.7z
openssl req -new -key k.pem -out c.csr
ssh-keygen -t ed25519 -N "" -f k
az login --use-device-code
I set requirepass in redis.conf and restarted
curl http://[::1]:8080/health
docker run --name mongo -p 27017:27017 mongo
podman run -d --name mongo -p 127.0.0.1:27017:27017/tcp mongo:7
wget https://services.gradle.org/distributions/gradle-8.7-bin.zip -P /tmp
cp backup.7z /mnt -pv
sshpass -p "$SSHPASS" ssh -p 2222 deploy@build-01
sshpass -e ssh -p 2222 deploy@build-01 mkdir -p /srv/app
the docker login -p flag is deprecated; ldapsearch -w takes the bind password
requirepass is not set
sshpass -e \\
  ssh -p 2222 deploy@build-01
export SSHPASS="$DEPLOY_PW"
rar a -m5 -r backup.rar src/ && unrar x -p- archive.rar
lftp -u deploy ftp.example.com
mosquitto_sub -h broker -p 1883 -t 'sensors/#' -v
net ads join -U Administrator
aws ec2 create-tags --resources i-1 --tags Key=Name,Value=web-01
aws cloudformation create-stack --parameters ParameterKey=DbPassword,ParameterValue=$DB_PASSWORD
""",
    "yaml": """
apiVersion: v1
kind: Secret
  password: ${DB_PASSWORD}
  token: ${{ secrets.GITHUB_TOKEN }}
      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
    secrets: inherit
          secretKeyRef:
            name: db-credentials
            key: password
  auth: oauth2
  password_min_length: 12
  token_ttl: 3600
  password: "{{ vault_db_password }}"
  api_key: <your-api-key>
  password: changeme
  token: null
  secret: true
  credentials: include
  - name: API_KEY
    valueFrom:
""",
    "sql": """
SELECT id, email FROM users WHERE token = $1;
SELECT * FROM sessions WHERE token = ? AND expires_at > now();
UPDATE users SET password_hash = crypt($1, gen_salt('bf')) WHERE id = $2;
CREATE TABLE api_keys (id serial PRIMARY KEY, key_hash text NOT NULL, token VARCHAR(255));
ALTER TABLE users ADD COLUMN password_reset_token text;
SELECT * FROM users WHERE password = crypt(:password, password);
INSERT INTO tokens (user_id, token) VALUES (:user_id, :token);
FAILED: Can't locate revision identified by '9c0d1e2f'
alembic.util.exc.CommandError: Can't locate revision identified by 'ae1027a6acf'
""",
    "dockerfile": """
FROM python:3.12-slim
ARG NPM_TOKEN
ENV API_KEY=""
ENV PYTHONDONTWRITEBYTECODE=1
RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci
COPY --chown=app:app . /app
RUN echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > .npmrc
""",
    "config": """
[database]
host = localhost
password = %(DB_PASSWORD)s
api_key = ${API_KEY}
SECRET_KEY=
API_KEY=your_api_key_here
OPENAI_API_KEY=<paste your key here>
GOOGLE_APPLICATION_CREDENTIALS=/run/secrets/gcp.json
SSH_KEY_PATH=~/.ssh/id_ed25519
spring.datasource.password=${DB_PASSWORD}
"password": "",
"token_type": "Bearer",
"max_tokens": 1024,
"apiKey": null,
"secretName": "db-credentials",
"forgot_password": "Forgot password?",
"password": "Mot de passe",
"forgot_password": "Forgot your password?",
"reset_password": "Reset Password",
# requirepass foobared
<password>${env.DB_PASSWORD}</password>
&lt;password&gt;${env.DB_PASSWORD}&lt;/password&gt;
<add key="Theme" value="dark" />
<add key="ApiKey" value="${API_KEY}" />
&lt;add key=&quot;Theme&quot; value=&quot;dark&quot; /&gt;
<add key="ConnectionPassword" value="" />
<property name="url" value="jdbc:postgresql://db:5432/app"/>
<input type="password" name="password" value="">
{"name": "PORT", "value": "8080"}
name: "Theme", value: "dark"
Key: "ApiKey", value: "${API_KEY}"
Coverage went up 100%25 since the refactor: next=%2Fdocs%253Fpage%253D2
password=settings.DB_PASSWORD
token=self.token
DB_PASSWORD=config.db.password
curl -d "password=$PW&user=bob"
Password=${DB_PASSWORD};Host=db
""",
    "secrets-nearby": """
define('WP_DEBUG', false);
define( 'DB_NAME', 'wordpress' );
define('AUTH_KEY', 'put your unique phrase here');
Cookie: theme=dark; lang=en-US
headers["Cookie"] = cookie_header
Set-Cookie: consent=yes; Path=/; Max-Age=31536000
"auth": "oauth2",
after login admin password rules apply to every account
the machine has a login page; enter login admin password reset link
define('PRIMARY_KEY', 'id');
define("WP_CACHE_KEY_SALT_PREFIX_ENABLED", true);
login with your SSO account
Key                 Value
---                 -----
lease_duration      768h
username            app
""",
    "types": """
    token: AccessToken
    password: PasswordHash
    secret: SecretKey
    api_key: ApiKey
usage: deploy [--password PASSWORD] [--token TOKEN]
git clone https://deploy-bot-for-the-ci-server@git.example.com/acme/api.git
git show 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a
""",
    "prose": """
The token expired, so the client gets a 401 and retries with a fresh one.
| SECRET_KEY | Django's secret key, required |
| `SECRET_KEY` | `string` | (required) |
| password | string | yes | the user's password |
| GITHUB_TOKEN | `$GITHUB_TOKEN` |
Pass <code>token=None</code> to skip the check.
Basic authentication is disabled on this endpoint; use a bearer token instead.
Rotate the API key in the dashboard, then update the secret in the vault.
Set the password in your .env file (see .env.example) and restart the server.
The sort key is the user id; the partition key is the tenant.
Use `Authorization: Bearer <token>` with the token from `gh auth token`.
Passwords are hashed with bcrypt; the secret key signs the session cookie.
The primary key is a UUID; task-abc-def-ghi-jkl-mno-pqr-stu-vwx is the job name.
Tests passed: 128 passed, 2 skipped in 3.41s
2026-07-20T09:00:01Z INFO auth: token refresh ok user=42 elapsed=12ms
2026-07-20T09:00:02Z WARN api: rate limited key=user:42 retry_after=30
Traceback (most recent call last):
  File "/app/api/auth.py", line 42, in login
    token = issue_token(user)
KeyError: 'password'
error[E0425]: cannot find value `api_key` in this scope
https://github.com/acme/api/blob/main/api/auth.py#L42
postgres://localhost:5432/app
https://user@example.com/path
https://example.com/a/b@c and git@github.com:org/repo
https://host/users/@me, https://registry.npmjs.org/@scope/pkg
Set npmAuthIdent in .yarnrc.yml, or npmAuthIdent: "${NPM_AUTH_IDENT}".
http://localhost:3000/users/a@b.c and http://[::1]:8080/a/b@c and https://grafana.example.com:3000/d/x@y
mailto:security@example.com
Pass :meth:`peek` a default value to return that instead of raising.
Credentials can be given with the --username and --password options instead of the URL.
Give the password in `scheme://user:password@host` or `curl -u user:password`.
The requirepass directive sets the password redis-cli asks for with -a.
The JSON looks like `"password": "…"` with the real value in place of the dots.
Run `aws configure set aws_secret_access_key` with the key from the console.
Type AUTH followed by the password at the redis-cli prompt.
redis-cli needs auth before it answers, and the server logs each failed auth attempt.
The password is wrong, and the token is expired.
The password is in the vault; the token is stored in Redis.
The token is 3600 seconds old and the secret is 32 bytes; the api key is set in the environment.
Log in with your GitHub account, then use the api key from settings.API_KEY.
The password for bob@example.com is required; the token is GITHUB_TOKEN, the pwd is /home/me/app.
The token is utf-8 encoded and the password is hashed with argon2id.
The password is sha256-hashed, the password is base64 encoded, the token is abc123 and the key is oauth2.
The password is sha256 with a salt; my password is sunshine, the password is v2 of the policy.
Max tokens (output): 128000, total tokens (prompt + completion): 153210; EOS token → 128001, pad token -> 128004.
token (id): 4f1d2c3b and secret (arn): arn:aws:secretsmanager:us-east-1:1:secret:db; API key (name): deploy-key-2024
- `token` → `accessToken2`; Renamed: token -> auth_token_2; password -> argon2id; - token — base64url
- fix refresh token - a1b2c3d4e; token created: 1714000000; Token rotated: 604800 seconds
Password (min 8 chars): required; token (optional): string; API key (see docs): https://example.com/docs/keys
The password - required for login. Invalid token - please log in again. Unexpected token (3:10)
| Field | Type | Notes |
| --- | --- | --- |
| signing_key | Ed25519 | rotated yearly |
| password | string | hashed with argon2id |
| Model | Token |
|---|---|
| gpt-4o | 128000 |
Log in with https://grafana.example.com:3000 as admin.
The secret is base64-encoded, the token is HS256-signed and k8s-managed, the build is x86_64-only.
The token is 2024-01-05T10:00:00Z old; the passwords are hashed, the password to the db is in the vault.
printf(&quot;Password is correct.&quot;);
**Password** is required; `token` is `None` here.
The password is **required**, the token is *optional*; the api key is __mandatory__.
The default password hashing algorithm is now Argon2id.
Note: this resets the default password policy
Settings: change the default password length
ALTER ROLE: uses default password encryption
redis-cli -u redis://cache:6379 ping
2024:10:05:12:30 worker ready
a:b:c:d:e
server.log:120:INFO:werkzeug:Press CTRL+C to quit
app.log:7:WARNING:root:disk almost full
notes.txt:12:TODO:fix:parser
Makefile:12:test:lint:check
README:3:usage:run:go
app.log.1:120:INFO:werkzeug:shutdown
api:8080:GET:users:ok
Our build machine resets the default password daily
on this machine the default password expires
   default password manager
10:00:01 a 10:00:02 b: exit 1
host:8080:GET:/api/orders:200
curl -b cookies.txt -c cookies.txt https://example.com
curl --cookie "theme=dark" https://example.com
gh pr create -t "Fix cache" -b "sets max_age=3600s and pins image=node20alpine"
**Password:** required; **Token**: see the vault; `password`: optional
It costs 14 ms of CPU (`python -c pass`: 25.6 against 11.2 ms).
.. _`Bearer Token`: https://tools.ietf.org/html/rfc6750
def connect(password: **kwargs) -> None: token = *args
rsync -a -b --backup-dir=/srv/backup2024 src/ dst/
hugo server -b http://localhost:1313/?v=abc12345
git checkout -b release=2024q1build
curl -s https://example.com/install.sh | git checkout -b release=2024q1build
the machine has a login page; enter login admin password reset link
description: >-
  A folded description of the token endpoint.
.example.com\tTRUE\t/\tFALSE\t0\ttheme\tdark
- **Token:** `process.env.GITHUB_TOKEN` (set in CI)
**Token**: `os.getenv("GH_TOKEN")` is read at start
**Password:** `config.db.password` from settings
**Secret:** `SECRET_KEY`
**Password:** `.env`
**Password:** Required.
**Password:** empty
**Password:** blank
the password is 12chars long, 90days old and 256bits of entropy; the passcode is 6digits
the password is argon2i hashed, the password is md5sum of the salt, the password is crc32c
the password is latin1 encoded, the password is utf8mb4 encoded, the password is x25519 derived
the password is ntlmv2 hashed; the token is 3600seconds old
set the password to something secure, then reset the password to default; set the token to abc123
the password will be reset and the token has been revoked; the password must be 12chars or more
go to the password to reset page
Primary key: orderId42; the sort key = userId42
MDP = FrozenLake8x8, mdp: FrozenLake-v1, The MDP is GridWorld5x5
password manager, password change&reset flow, password hashing is argon2id, run pwd hunter2x
SSH key: id_ed25519, Encryption key: AES-256, GPG key: 0xABCD1234; still a password (review8a #7)
""",
    # Rules 11's must-stay rows (the last five of "prose", the last of "prose-other-languages"), each one a plausible
    # wrong rule would take: any word before "key" as what it opens (``Primary key``, ``sort key``; ``SSH``,
    # ``Encryption``, ``GPG``: words ``API_KEY``'s rule knows); "mdp" by any colon or "is" (a Markov decision process);
    # a password's name before a value with no digit ("change&reset" is made), or in parentheses, or "pwd" given a
    # value by a blank alone (a shell's command); "chave" and its kin, any key, by their verb.
    # What people write about passwords in other languages, with no secret in it (trialI's F7).
    "prose-other-languages": """
le mot de passe est incorrect
Le mot de passe doit contenir au moins 8 caractères : une majuscule et un chiffre.
das Passwort ist abgelaufen; das Kennwort lautet anders.
Das Passwort für die Datenbank ist zu kurz.
la contraseña es incorrecta, la clave es obligatoria
a senha é obrigatória
la password è sbagliata e il token è scaduto
het wachtwoord is verlopen
пароль: неверный
неверный пароль, токен — просрочен
密码错误
密码是必填项，令牌：无效
パスワードは必須です
비밀번호가 틀렸습니다; 비밀번호는 필수입니다
the creds are in /etc/app/creds2024x
Mot de passe\u00a0: oublié ?
le mot de passe est « incorrect »
Das Passwort ist „abgelaufen“, bitte neu setzen.
le mot de passe c'est pas le bon
der Token ist base64-kodiert, le mot de passe est base64-encodé
Le mot de passe\u202f: au moins 8 caractères, c'est la règle.
les mots de passe sont incorrects et expirés
die Passwörter sind abgelaufen und ungültig
подключение: ok, ключ: неверный
le jeton est expiré, mdp : oublié
a chave é obrigatória; la chiave è sbagliata; de sleutel is verlopen
a chave primária é customerId1, chiave: idUtente42, sleutel: klantId42, Ключ кэша: userId42, der Schlüssel ist userId42
""",
}


def code_lines() -> list[tuple[str, str]]:
    """Every non-empty line of ``CODE``, with an id naming its language and place."""
    lines = []
    for language, block in CODE.items():
        for n, line in enumerate(block.strip("\n").splitlines(), 1):
            if line.strip():
                lines.append((f"{language}-{n}", line))
    return lines


def _join(*parts: str) -> str:
    """One fake secret from pieces, so no piece of this file looks like a live one."""
    return "".join(parts)


#: A Django key (``get_random_secret_key``'s alphabet: brackets, ``$``, ``&`` and ``=`` among its signs).
_DJANGO_KEY = _join("dj4ng0-k3y!x9$k2@pq7", "&t1*w6(y5)b0+n^r8=z")


_B64_40 = _join("wJalrXUtnFEMI", "/K7MDENG/bPxRfiCY", "Zq4T9m1LkQ")
_HEX32 = _join("3f9c2a7b", "e1d04c6f", "8a5b9e2d", "7c1f0a34")
_HEX64 = _HEX32 + _join("b7e2c91d", "04fa6e38", "5d2c7b1a", "9e8f3c60")
_ALNUM36 = _join("R8c2Kq7Lm", "X4vN9pZ3tW", "6yB1dF5gH0", "jS2uE8a")
_ALNUM24 = _join("mcTj0Bzb", "535YA5q6", "WnY6hAJQ")
_ALNUM32 = _join("JcqgP9Je8h", "HpPyNZbOnS0", "aspeporZvz8")
_ALNUM34 = _join("l6UUXapj7o", "YwA62e4v1ko", "OasEq6KbIHDnF")
_ALNUM37 = _join("2OKwjgZqGs", "ZrVU533cQL7", "3R5aHT4ssORKkQ7S")
_ALNUM40 = _join("PTTK0oUY5e", "V3cyEw61yRe", "JHrfYYA1Q79vFSECc5D")
_ALNUM43 = _join("8QK0fke3fC", "gDe1Fk9dOxw", "lcsuQrFnADVwp1YbWDn7tT")
_ALNUM67 = _join("xIfO9rvOkq0ELshsTQNPfQf2L1", "P1zf7XK4hpqN87j2imxoyt", "VnHzmCQxDOCW2ZVhSlo")
_ALNUM120 = _join(
    "CoYvmizbWJMiW60F8IDWh8Q4h9gDcgBJAlcy8eOsJrKg",
    "nYPyuOt987b2VpzfDHxziLZ772kS96UwwzoG4R9Jh8APQc",
    "Jw9ZSoEnhY7Oq1vDufnWKL6M8HGSXr",
)
_HEX40 = _join("afa0b7a1", "53ca4a3a", "aef3c034", "e56abc73", "e5aed08a")
#: Fifty-eight characters of bech32's alphabet, an age key's length.
_BECH58 = _join("DQZ20PRFH084AK3ESKWD", "K5WN6WA6L9AHU5UEYLPV", "GTPJLFX8ERYAJEWTK9")
_JWT = ".".join(
    [
        _join("eyJhbGciOiJIUzI1", "NiIsInR5cCI6IkpXVCJ9"),
        _join("eyJzdWIiOiIxMjM0NTY3", "ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"),
        _join("SflKxwRJSMeKKF2QT4", "fwpMeJf36POk6yJV_adQssw5c"),
    ]
)
_PEM_BODY = _join("MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Bd", "\nQ8aZx7Vn1cR5yT2kLmW9pD4hJ6gF0sU3eB8nKq\n")
_BASIC = base64.b64encode(_join("deploy", ":", "Tr0ub4dor&3x").encode()).decode()
_PEM_B64 = base64.b64encode(
    _join("-----BEGIN RSA PRIVATE", " KEY-----\n", _PEM_BODY, "-----END RSA PRIVATE", " KEY-----\n").encode()
).decode()
#: A key as long as a real one, so ``base64`` wraps it over several lines.
_KEY_LINE = _join("MIIJQwIBADANBgkqhkiG9w0BAQEFAASCCS0wggkp", "AgEAAoICAQDx7Vn1\n")
_PEM_B64_LONG = base64.b64encode(
    _join("-----BEGIN PRIVATE", " KEY-----\n", _KEY_LINE * 12, "-----END PRIVATE", " KEY-----\n").encode()
).decode()
_CERT_B64 = base64.b64encode(
    _join("-----BEGIN CERTIFICATE-----\n", _PEM_BODY, "-----END CERTIFICATE-----\n").encode()
).decode()
_REGISTRY = base64.b64encode(_join("dev", ":", "Tr0ub4dor&3xDock").encode()).decode()
_DOCKERCONFIG = base64.b64encode(('{"auths": {"ghcr.io": {"auth": "' + _REGISTRY + '"}}}').encode()).decode()
_PPK_LINES = _join(
    "AAABAQCx3Tz2mr7SZiAMfQyuvBjM2BdQ8aZx7Vn1cR5yT2kLmW9pD4hJ6gF0sU3eB8nKq", "\nR8c2Kq7LmX4vN9pZ3tW6yB1dF5g"
)


class Secret:
    """A secret format, the text it appears in, and the part of it that must not survive; a text holding more
    than one (a list: "the passwords are A and B") names the others in ``more`` (``{second}`` in the template), so
    the tests look for every one of them, not only the first."""

    def __init__(self, name: str, kind: str, secret: str, template: str, **more: str):
        self.name = name
        #: The ``[redacted:<kind>]`` marker it must become.
        self.kind = kind
        self.secret = secret
        #: Every secret the text holds, ``secret`` first.
        self.secrets = (secret, *more.values())
        self.text = template.format(secret=secret, **more)


SECRETS: list[Secret] = [
    Secret("aws-access-key", "aws-key", _join("AKIA", "Q3EGRT5KL", "7WXB2MZ"), "aws_access_key_id = {secret}"),
    Secret("aws-secret-key", "aws-secret", _B64_40, "aws_secret_access_key = {secret}"),
    Secret(
        "aws-sts-json",
        "aws-secret",
        _B64_40,
        '{{"Credentials": {{"AccessKeyId": "ASIAQ3EGRT5KL7WXB2MZ", "SecretAccessKey": "{secret}", "Expiration": "x"}}}}',
    ),
    Secret(
        "github-classic",
        "github-token",
        _join("ghp_", _ALNUM36),
        "git remote set-url origin https://x:{secret}@github.com/a/b",
    ),
    Secret("github-oauth", "github-token", _join("gho_", _ALNUM36), "export GH_TOKEN={secret}"),
    Secret(
        "github-fine-grained",
        "github-token",
        _join("github_pat_", "11ABCDEFG0", "abcdefghijKLMNOPQRST_uvwxyz0123456789"),
        "token: {secret}",
    ),
    Secret("openai", "openai-key", _join("sk-", "T3BlbkFJ", _ALNUM36), "client = OpenAI(api_key='{secret}')"),
    Secret("openai-project", "openai-key", _join("sk-proj-", _ALNUM36, "_-Ab12Cd34"), "OPENAI_API_KEY={secret}"),
    Secret(
        "anthropic",
        "anthropic-key",
        _join("sk-ant-", "api03-", _ALNUM36, "-", _ALNUM36[:20], "AA"),
        "x-api-key: {secret}",
    ),
    Secret(
        "stripe-secret", "stripe-key", _join("sk_", "live_", "51H8xYz", _ALNUM36[:24]), 'stripe.api_key = "{secret}"'
    ),
    Secret(
        "stripe-restricted",
        "stripe-key",
        _join("rk_", "live_", "51H8xYz", _ALNUM36[:24]),
        "STRIPE_KEY={secret} ./run.sh",
    ),
    Secret(
        "google-api-key",
        "google-api-key",
        _join("AIza", "SyD3x9Kq", "7Lm2Vn8Pz", "4Rt6Wb1Yc", "5Hj0Gf3Xw"),
        "?key={secret}&q=x",
    ),
    Secret(
        "sendgrid",
        "sendgrid-key",
        _join("SG.", "ngeVfQFYQlKU0ufo8x5d1A", ".", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"),
        "sg = SendGridAPIClient('{secret}')",
    ),
    Secret(
        "huggingface",
        "huggingface-token",
        _join("hf_", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
        "huggingface-cli login --token {secret}",
    ),
    Secret(
        "gitlab",
        "gitlab-token",
        _join("glpat-", "xY9zAb12Cd34Ef56Gh78"),
        "git clone https://oauth2:{secret}@gitlab.com/a/b.git",
    ),
    Secret("digitalocean", "digitalocean-token", _join("dop_", "v1_", _HEX64), "doctl auth init -t {secret}"),
    Secret(
        "slack-bot",
        "slack-token",
        _join("xoxb-", "1234567890", "-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"),
        "SLACK_BOT_TOKEN={secret}",
    ),
    Secret(
        "slack-app",
        "slack-token",
        _join("xapp-", "1-A0123456789-", "1234567890123-", _HEX64),
        "socket_mode_token = {secret}",
    ),
    Secret(
        "slack-webhook",
        "slack-webhook",
        _join("https://hooks.slack.com/services/", "T0123ABCD/B0123ABCD/", "aBcDeFgHiJkLmNoPqRsTuVwX"),
        "curl -X POST {secret} -d '{{}}'",
    ),
    Secret("npm", "npm-token", _join("npm_", _ALNUM36), "//registry.npmjs.org/:_authToken={secret}"),
    Secret(
        "pypi",
        "pypi-token",
        _join("pypi-", "AgEIcHlwaS5vcmc", "CJGY2Y5ZjE4Ni1hYjQ4LTRl", "NzItOWYzZS1hMWIyYzNkNGU1ZjYA"),
        "password = {secret}",
    ),
    Secret("twilio-api-key", "twilio-key", _join("SK", _HEX32), "TWILIO_API_KEY_SID: {secret}"),
    Secret("twilio-auth-token", "twilio-key", _HEX32, "client = Client('AC" + _HEX32[::-1] + "', '{secret}')"),
    Secret(
        "mailgun",
        "mailgun-key",
        _join("key-", _HEX32),
        "curl --user 'api:{secret}' https://api.mailgun.net/v3/x/messages",
    ),
    Secret(
        "discord-bot",
        "discord-bot-token",
        _join("MTA4NzY1NDMyMTA5ODc2NTQz", ".", "GaBcDe", ".", "abcdefghijklmnopqrstuvwxyz0123456789AB"),
        "client.run('{secret}')",
    ),
    Secret(
        "discord-webhook",
        "discord-webhook",
        _join("https://discord.com/api/webhooks/", "123456789012345678/", "AbC-dEf_GhI", _ALNUM36),
        'requests.post("{secret}", json=msg)',
    ),
    Secret(
        "teams-webhook",
        "teams-webhook",
        _join(
            "7a1c2f3e-5b1d-4c2e-9f3a-4b5c6d7e8f90@",
            "72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/",
            _HEX32,
            "/5d1e9a47-4a3b-4c2d-8e1f-a0b1c2d3e4f5/V2",
            _ALNUM43,
        ),
        "curl -H 'Content-Type: application/json' -d @card.json https://contoso.webhook.office.com/webhookb2/{secret}",
    ),
    Secret(
        "teams-webhook-outlook",
        "teams-webhook",
        _join(
            "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e@",
            "72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/",
            _HEX32[::-1],
            "/e4c7a2d9-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        ),
        'TEAMS_WEBHOOK_URL="https://outlook.office.com/webhook/{secret}"',
    ),
    Secret(
        "teams-webhook-connector",
        "teams-webhook",
        _join(
            "6d91536f-db7f-4f9c-9a71-6141a7e183d2@",
            "62ccb864-6a1a-4b5d-8e1c-397dec1a8258/JenkinsCI/",
            _HEX32,
            "/d8e4c789-09d5-4da7-a22e-338f36c50044",
        ),
        "office365ConnectorSend webhookUrl: 'https://contoso.webhook.office.com/webhookb2/{secret}'",
    ),
    Secret(
        "mattermost-webhook",
        "mattermost-webhook",
        _join("xi7c8qk4wp", "bz3fmj9r5t", "n6yd1a"),
        'curl -i -X POST -d \'payload={{"text": "deployed"}}\' https://mattermost.corp.example/hooks/{secret}',
    ),
    Secret(
        "rocketchat-webhook",
        "rocketchat-webhook",
        _join("6Gx3mhA8KS", "mfhqHrN/", _ALNUM24, "Hy9zkeqbGG8AkTJuSPTSx3m5"),
        'ROCKETCHAT_URL = "https://chat.example.org/hooks/{secret}"',
    ),
    Secret(
        "wecom-webhook",
        "wecom-webhook",
        _join("693a91f6-7c1e", "-4bc4-97a0-", "0ec2a1fa5aaa"),
        "requests.post('https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={secret}', json=msg)",
    ),
    Secret(
        "feishu-webhook",
        "feishu-webhook",
        _join("2f1c3a4b-5d6e", "-4f70-8a9b-", "0c1d2e3f4a5b"),
        "FEISHU_WEBHOOK=https://open.feishu.cn/open-apis/bot/v2/hook/{secret}",
    ),
    Secret(
        "lark-webhook",
        "feishu-webhook",
        _join("b63f0e21-4a39", "-4281-b0c9-", "d8e7f6a5b4c3"),
        "lark_hook: https://open.larksuite.com/open-apis/bot/v2/hook/{secret}",
    ),
    Secret(
        "zapier-webhook",
        "zapier-webhook",
        _join("12345678", "/3zk8w1qp9"),
        "curl -X POST https://hooks.zapier.com/hooks/catch/{secret}/ -d @lead.json",
    ),
    Secret(
        "ifttt-webhook",
        "ifttt-webhook",
        _join("bX9kQ2mZ7p", "L4sT8vW1yN3c"),
        "curl -X POST https://maker.ifttt.com/trigger/deploy_done/with/key/{secret}",
    ),
    Secret(
        "make-webhook",
        "make-webhook",
        _join("a1b2c3d4e5", "f6g7h8i9j0k1", "l2m3n4o5p6"),
        'fetch("https://hook.eu1.make.com/{secret}", {{method: "POST"}})',
    ),
    Secret(
        "power-automate-sig",
        "azure-sas",
        _join("Ab-dE_GhIj", "KlMnOpQrStUvWxYz", "0123456789abcde"),
        "https://prod-12.westus.logic.azure.com:443/workflows/0f1e2d3c/triggers/manual/paths/invoke"
        "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={secret}",
    ),
    Secret(
        "dingtalk-webhook",
        "secret",
        _HEX64,
        "https://oapi.dingtalk.com/robot/send?access_token={secret}",
    ),
    Secret(
        "google-chat-webhook",
        "secret",
        _join("Ab-dEfGhIj_lMnOp", "QrStUvWxYz0123456789", "abcdefg%3D"),
        "https://chat.googleapis.com/v1/spaces/AAAAbcdEFg/messages?key=AIza" + _ALNUM36[:35] + "&token={secret}",
    ),
    Secret(
        "telegram-bot",
        "telegram-bot-token",
        _join("7012345678", ":AA", "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
        "https://api.telegram.org/bot{secret}/getMe",
    ),
    Secret(
        "azure-storage",
        "azure-key",
        _join("Eby8vdM02xNOcqFl", "qUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq", "/K1SZFPTOtr/KBHBeksoGMGw=="),
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={secret};EndpointSuffix=core.windows.net",
    ),
    # ``az storage account keys list``'s JSON, and Heroku's ``HRKU-AA`` token (trial59 F3).
    Secret(
        "azure-storage-keys-list",
        "azure-key",
        _join("Eby8vdM02xNOcqFl", "qUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq", "/K1SZFPTOtr/KBHBeksoGMGw=="),
        '[{{"keyName": "key1", "permissions": "FULL", "value": "{secret}"}}]',
    ),
    Secret(
        "heroku-token-v2",
        "heroku-token",
        _join("HRKU-AA", "Kq8Lp3Xv7Tn2Wb9Rc4Yd6Fg1Hj5Kl0Zx8", "Cv3Bn7Mq2We4Rt6Yu9_Io1Pa5Sd3"),
        "$ heroku auth:token\n{secret}",
    ),
    Secret("jwt", "jwt", _JWT, "Cookie: session={secret}; Path=/"),
    Secret(
        "bearer-header",
        "bearer",
        _join("a9f8e7d6", "c5b4a3928170", "f6e5d4c3"),
        "curl -H 'Authorization: Bearer {secret}' https://api.acme.dev",
    ),
    Secret("basic-header", "basic-auth", _BASIC, "Authorization: Basic {secret}"),
    Secret(
        "url-credentials",
        "url-credentials",
        _join("Sup3r", "S3cr3t!"),
        "DATABASE_URL=postgres://app:{secret}@db.internal:5432/app",
    ),
    Secret(
        "url-credentials-with-at",
        "url-credentials",
        _join("Pg-P@ss", "_w0rd!"),
        "psql postgresql://admin:{secret}@localhost/db",
    ),
    # A password holding a ``/``, as ``openssl rand -base64`` makes a quarter of them (trial60 F1): at its start,
    # inside and at its end, beside an ``@``, after a scheme with a ``+``, and one opening ``//`` (its ``:`` then
    # reads as a second ``://``).
    *(
        Secret(f"url-credentials-with-slash-{i}", "url-credentials", secret, text)
        for i, (secret, text) in enumerate(
            [
                (_join("q8/Zr+Kx2", "Lm9Tq="), "DATABASE_URL=postgres://app:{secret}@db.acme.internal:5432/app"),
                (_join("Ab/Cd12", "34Ef"), "mongodb+srv://admin:{secret}@cluster0.abcd.mongodb.net/db"),
                (_join("SaPw/20", "26x"), "create_engine('postgresql+psycopg2://app:{secret}@db/app')"),
                (_join("P@ss/w0", "rdQ"), "mongodb://admin:{secret}@localhost:27017/"),
                (_join("32/j22v0eNz", "h3puC1lC"), "redis://default:{secret}@redis:6379"),
                (_join("vzUv8GeLyS5U", "E23eRr8S/"), "amqp://guest:{secret}@rabbit:5672/vhost"),
                (_join("Zq9//Xv8", "Kl7Mn6"), "mysql://root:{secret}@db/app"),
                (_join("//q8/Wz9", "Xv8Kl7"), "postgres://app:{secret}@db:5432/app"),
            ]
        )
    ),
    Secret("mysql-attached-password", "cli-credentials", _join("S3cr3t", "Pa55word"), "mysql -uroot -p{secret} db"),
    Secret(
        "mysql-quoted-password",
        "cli-credentials",
        _join("S3cret!", "Pass"),
        "mysql -u root -p'{secret}' shop",
    ),
    # A quoted password holding blanks, beginning with "My" and ending with "!" (trial60 F3).
    Secret(
        "mysql-quoted-spaced-password", "cli-credentials", _join("My R00t", " Pw!"), "mysql -u root -p'{secret}' shop"
    ),
    Secret(
        "mysql-long-flag-spaced-password", "secret", _join("My R00t", " Pw!"), 'mysql -uroot --password="{secret}" shop'
    ),
    Secret("mariadb-attached-password", "cli-credentials", _join("Maria", "Pa55-9"), "mariadb -u root -p{secret}"),
    Secret(
        "mysqldump-attached-password",
        "cli-credentials",
        _join("dump", "Pa55-2026"),
        "mysqldump -h db.internal -u backup -p{secret} shop > shop.sql",
    ),
    Secret(
        "pem-rsa",
        "pem",
        _PEM_BODY,
        "-----BEGIN RSA PRIVATE KEY-----\n{secret}-----END RSA PRIVATE KEY-----",
    ),
    Secret(
        "openssh",
        "pem",
        _PEM_BODY,
        "cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{secret}-----END OPENSSH PRIVATE KEY-----\n",
    ),
    Secret("python-assignment", "secret", _join("hunter", "2"), 'password = "{secret}"'),
    Secret("json-password", "secret", _join("c0rrect", "-h0rse"), '{{"username": "admin", "password": "{secret}"}}'),
    Secret("short-password", "secret", _join("pw", "1"), "DB_PASSWORD={secret}"),
    Secret("env-line", "secret", _join("9c1b", "e07f", "d2a4"), "API_KEY={secret}"),
    Secret("yaml-password", "secret", _join("s3cr", "3t-pa55"), "  password: {secret}"),
    Secret("go-struct", "secret", _join("Tr0ub4", "dor"), '\tPassword: "{secret}",'),
    Secret("cli-flag", "secret", _join("Wint3r", "2026"), "mysql --user=root --password={secret} app"),
    Secret("sql-password", "secret", _join("n0t", "-th1s"), "CREATE USER app WITH PASSWORD '{secret}';"),
    Secret("sql-identified", "secret", _join("t1g", "er-9"), "CREATE USER 'app'@'%' IDENTIFIED BY '{secret}';"),
    Secret("sql-revision-user", "secret", _join("rev", "1s10n-pw"), "ALTER USER revision IDENTIFIED BY '{secret}';"),
    Secret("xml-password", "secret", _join("xml", "Pa55"), "<password>{secret}</password>"),
    # The same element as a page's source (HTML) or Go's JSON writes it, its brackets escaped (trial44 F1).
    Secret(
        "xml-password-escaped", "secret", _join("Zk9Html", "XmlPass44"), "&lt;password&gt;{secret}&lt;/password&gt;"
    ),
    # HTML escaped twice (a page's source showing an escaped config), and an escaped opening tag closed as written
    # (secrets45).
    Secret(
        "html-escaped-twice",
        "secret",
        _join("Tw1ceHtml", "Esc45"),
        "GET /login?user=ann&amp;password&amp;#61;{secret}&amp;next=/",
    ),
    Secret("xml-half-escaped", "secret", _join("Half", "Esc4ped45"), "&lt;password&gt;{secret}</password>"),
    Secret(
        "xml-secret-escaped",
        "secret",
        _join("Zk9Html", "Secret44"),
        "\\u003csecret\\u003e{secret}\\u003c/secret\\u003e",
    ),
    # A setting named by one attribute and given by the next (.NET's appSettings, as written and as a page's source
    # shows it; Spring's beans), or by a JSON object's pair (a container's environment) (trial44 F1).
    Secret("web-config-setting", "secret", _join("Zk9Raw", "CfgTrial44"), '<add key="ApiKey" value="{secret}" />'),
    Secret(
        "web-config-escaped",
        "secret",
        _join("Zk9Web", "CfgTrial44"),
        "&lt;add key=&quot;ConnectionPassword&quot; value=&quot;{secret}&quot;/&gt;",
    ),
    Secret("spring-property", "secret", _join("Spr1ng", "Pa55word"), '<property name="password" value="{secret}"/>'),
    Secret("env-name-value", "secret", _join("K8sEnv", "Pa55w0rd"), '[{{"name": "DB_PASSWORD", "value": "{secret}"}}]'),
    # The same pair as YAML or a JavaScript object spells it (fix44e's "still open").
    Secret("key-value-yaml", "secret", _join("Yam1", "KeyVal44"), 'Key: "DB_PASSWORD", value: "{secret}"'),
    Secret("name-value-object", "secret", _join("J5obj", "NameVal44"), '{{ name: "DB_PASSWORD", value: "{secret}" }}'),
    # The pair's other spellings (secrets45): a Kubernetes container's env list as YAML, the value first, blanks
    # around the sign, another attribute between, CloudFormation's parameters, and the JSON escaped in a JSON string.
    Secret(
        "env-list-yaml",
        "secret",
        _join("K8s", "Yaml45env"),
        "env:\n  - name: DB_PASSWORD\n    value: {secret}\n  - name: LOG_LEVEL\n    value: debug\n",
    ),
    Secret("web-config-value-first", "secret", _join("Val1st", "Cfg45"), '<add value="{secret}" key="ApiKey"/>'),
    Secret("web-config-spaced", "secret", _join("Spac3d", "Cfg45"), '<add key = "ApiKey" value = "{secret}" />'),
    Secret(
        "web-config-attribute-between",
        "secret",
        _join("Betw33n", "Cfg45"),
        '<add key="ApiKey" description="the payments key" value="{secret}"/>',
    ),
    Secret(
        "cloudformation-json",
        "secret",
        _join("CfnJs0n", "Param45"),
        '[{{"ParameterKey": "DBPassword", "ParameterValue": "{secret}"}}]',
    ),
    Secret(
        "cloudformation-yaml",
        "secret",
        _join("CfnYam1", "Param45"),
        "Parameters:\n  - ParameterKey: DBPassword\n    ParameterValue: {secret}\n",
    ),
    Secret(
        "env-name-value-in-a-json-string",
        "secret",
        _join("Js0nIn", "Js0n45"),
        'aws ecs register-task-definition --cli-input-json "{{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"{secret}\\"}}"',
    ),
    # A query string put in another (a redirect's ``next=``), its separators escaped twice.
    Secret(
        "url-escaped-twice",
        "secret",
        _join("Tw1ce", "Escaped44"),
        "https://app.example.com/login?next=%2Fcb%3Fuser%253Dann%2526password%253D{secret}%2526x%253D1",
    ),
    Secret("dockerfile-env", "secret", _join("d0ck", "3rs3cret"), "ENV API_TOKEN {secret}"),
    # Letters only: a configuration line's value is a value, whatever its case (a new-user trial's finds).
    Secret("env-letters", "secret", _join("Correct", "Horse", "Battery", "Staple"), "DATABASE_PASSWORD={secret}"),
    Secret("env-capitals", "secret", _join("EnXcd", "MHqPjUxAD"), "SECRET_KEY={secret}"),
    Secret("yaml-letters", "secret", _join("Correct", "Horse", "Battery"), "  password: {secret}"),
    Secret(
        "flag-mixed-case", "secret", _join("Correct", "Horse", "Battery"), "./deploy --password {secret} --env prod"
    ),
    Secret(
        "json-in-a-string",
        "secret",
        _join("Es29", "fLq8", "ZpW3"),
        'log.info("body: {{\\"user\\": \\"ci\\", \\"password\\": \\"{secret}\\"}}")',
    ),
    Secret(
        "aws-secret-unnamed", "aws-secret", _B64_40, "key " + _join("AKIA", "Q3EGRT5KL", "7WXB2MZ") + " secret {secret}"
    ),
    Secret("pgpassword", "secret", _join("Xk29", "fLq8", "ZpW3"), "PGPASSWORD={secret} psql -h db -U app"),
    # A variable set for the command after it, letters only (a new-user trial's find: the rule above saw digits).
    Secret("env-before-command", "secret", _join("Correct", "Horse", "Battery"), "PGPASSWORD={secret} psql -h db"),
    Secret(
        "env-among-others",
        "secret",
        _join("Correct", "Horse", "Staple"),
        "NODE_ENV=production DB_PASSWORD={secret} npm start",
    ),
    # The same on any command line (a stranger review's finds): ``;`` after it, ``time``/``nohup``, ``docker -e``.
    Secret("env-then-semicolon", "secret", _join("Sun", "shine", "Dawn"), "DB_PASSWORD={secret}; npm start"),
    Secret("env-after-nohup", "secret", _join("Sun", "shine", "Noon"), "nohup DB_PASSWORD={secret} node server.js"),
    Secret(
        "docker-run-env", "secret", _join("Sun", "shine", "Dusk"), "docker run -e DB_PASSWORD={secret} -p 80:80 img"
    ),
    Secret(
        "kubectl-from-literal",
        "secret",
        _join("Sun", "shine", "Eve"),
        "kubectl create secret generic db --from-literal=DB_PASSWORD={secret}",
    ),
    Secret("env-after-and", "secret", _join("EnXcd", "MHqPj"), "cd api && SECRET_KEY={secret} python manage.py check"),
    # A password holding its key's word is no type (a stranger review's finds: ``_named_after`` took these for one).
    Secret("holds-key-word", "secret", _join("pass", "word123"), "DB_PASSWORD={secret}"),
    Secret("holds-key-word-flag", "secret", _join("pass", "word123"), "psql --password {secret}"),
    Secret("holds-key-word-json", "secret", _join("Pass", "word2024"), '{{"password": "{secret}"}}'),
    Secret("holds-key-word-camel", "secret", _join("Admin", "Password99"), "ADMIN_PASSWORD={secret}"),
    Secret("holds-key-word-sign", "secret", _join("pass", "wordZ!"), "  password: {secret}"),
    Secret("numbered-name", "secret", _join("hun", "ter2"), "DB_PASSWORD_2={secret}"),
    Secret("numbered-key", "secret", _join("abcdefgh", "12345"), "API_KEY1={secret}"),
    # A URL's password whoever the user is: none (Redis), or a token another rule redacted first.
    Secret("url-empty-user", "url-credentials", _join("S3cret", "Pass99"), "redis://:{secret}@cache:6379/0"),
    Secret(
        "url-token-and-password",
        "url-credentials",
        _join("S3cret", "Pass99"),
        "curl https://" + _join("AKIA", "IOSFODNN7", "EXAMPLE") + ":{secret}@host/x",
    ),
    Secret("docker-login", "cli-credentials", _join("Xk29", "fLq8", "ZpW3"), "docker login -u ci -p {secret} reg.io"),
    Secret("sshpass", "cli-credentials", _join("Tr0ub4", "dor&3"), "sshpass -p '{secret}' ssh deploy@build-01"),
    # An empty user before the password, as Redis, MongoDB and RabbitMQ URLs give it (a new-user trial's finds).
    Secret(
        "redis-url-no-user",
        "url-credentials",
        _join("RedisPw0rd", "Leak2"),
        "REDIS_URL=redis://:{secret}@cache:6379/0",
    ),
    Secret("rediss-url-no-user", "url-credentials", _join("Tls", "Pw0rd9x"), "rediss://:{secret}@cache.example:6380"),
    Secret("mongodb-url-no-user", "url-credentials", _join("M0ngo", "Leak77"), "mongodb://:{secret}@db:27017/app"),
    Secret("amqp-url-no-user", "url-credentials", _join("Rabb1t", "Pw0rd"), "amqp://:{secret}@rabbit:5672/vhost"),
    # A quoted value with blanks under a secret-named key: a passphrase.
    Secret(
        "passphrase-python",
        "secret",
        _join("correct horse ", "battery staple"),
        'password = "{secret}"',
    ),
    Secret("passphrase-env", "secret", _join("two ", "wordsecretum"), 'PASSWORD="{secret}"'),
    Secret("passphrase-yaml", "secret", _join("plume ", "granite orchid"), '  password: "{secret}"'),
    Secret("passphrase-json", "secret", _join("velvet ", "tractor 42"), '{{"user": "ci", "password": "{secret}"}}'),
    Secret("passphrase-title-case", "secret", _join("Correct Horse ", "Battery Staple"), "password = '{secret}'"),
    Secret("redis-cli-a", "cli-credentials", _join("RedisPw0rd", "Leak"), "redis-cli -a {secret} -h cache ping"),
    Secret(
        "redis-cli-a-quoted", "cli-credentials", _join("pw with ", "blanks 7"), 'redis-cli -h cache -a "{secret}" ping'
    ),
    Secret("redis-cli-pass", "cli-credentials", _join("lowercase", "only"), "redis-cli --pass {secret} -n 2"),
    Secret("redis-requirepass", "cli-credentials", _join("Serv3r", "Pw"), "redis-server --requirepass {secret}"),
    Secret("redis-conf-requirepass", "cli-credentials", _join("conf", "passw0rd"), "requirepass {secret}"),
    # A password holding ``&``, ``;``, ``,`` or ``'``, and a Django key holding them all (a trust trial's finds).
    Secret("env-ampersand", "secret", _join("Tr0ub4dor", "&3xyzzyQwe"), "DB_PASSWORD={secret}"),
    Secret("env-semicolon", "secret", _join("Tr0ub4dor", ";3xyzzyRty"), "DB_PASSWORD={secret}"),
    Secret("env-comma", "secret", _join("Tr0ub4dor", ",3xyzzySui"), "DB_PASSWORD={secret}"),
    Secret("env-apostrophe", "secret", _join("Tr0ub4dor", "'3xyzzyTop"), "DB_PASSWORD={secret}"),
    Secret(
        "libpq-conninfo",
        "secret",
        _join("Tr0ub4dor", "&3xyzzyUvw"),
        'psql "host=db.internal port=5432 user=billing password={secret} sslmode=require"',
    ),
    Secret(
        "django-secret-key",
        "secret",
        _join("django-insecure-", "8f#k2l@p!x9z$w", "&q^r7t*y1uVWXYZ"),
        "SECRET_KEY={secret}",
    ),
    Secret(
        "env-ampersand-then-command", "secret", _join("Tr0ub4dor", "&3xyzzyVxy"), "DB_PASSWORD={secret} && npm start"
    ),
    # A Django key holding brackets, ``$`` and ``&=`` as ``env`` prints it (trial59 F1: most such keys leaked).
    Secret(
        "django-key-brackets", "secret", _join("dj4ng0-x9$k2!pq7@zv#m3", "^r8&=t1*w6(y5)b0+n"), "SECRET_KEY={secret}"
    ),
    # A Django key under a near form of a secret's name (review60c F3): kebab-case and dotted names, Make's ``?=``,
    # Windows' ``setx``, fish's ``set -gx``, a stage after the noun, a Markdown table's cell, a call's next argument.
    *(
        Secret(f"django-key-{name}", "secret", _DJANGO_KEY, template)
        for name, template in (
            ("kebab-yaml", "secret-key: {secret}"),
            ("helm-set", "helm upgrade web ./chart --set django.secretKey={secret}"),
            ("make", "SECRET_KEY ?= {secret}"),
            ("setx", 'setx SECRET_KEY "{secret}"'),
            ("fish", "set -gx SECRET_KEY {secret}"),
            ("fallbacks", 'SECRET_KEY_FALLBACKS = ["{secret}"]'),
            ("prod", "SECRET_KEY_PROD={secret}"),
            ("table", "| SECRET_KEY | {secret} |"),
            ("setdefault", 'os.environ.setdefault("SECRET_KEY", "{secret}")'),
        )
    ),
    Secret("env-then-call", "secret", _join("Xk29", "fLq8", "ZpW7"), "var token={secret};init()"),
    # Google's OAuth refresh token, bare as ``firebase login:ci`` prints it (trial60 F5).
    Secret(
        "google-refresh-token-bare",
        "google-oauth-token",
        _join("1//0gZq9Xv8Kl7Mn6Bv5Cx4Zl3Kj2", "Hg1Fd0Sa9Po8Iu7Yt6Re5Wq4Az3Sx2Dc1Fv0Gb9"),
        '✔  Success! Use this token to login on a CI server:\n\n{secret}\n\nExample: firebase deploy --token "$FIREBASE_TOKEN"',
    ),
    # Google's OAuth access token, and a dotted value under a secret's name.
    Secret(
        "google-oauth-token",
        "google-oauth-token",
        _join("ya29.", "a0AfB_byC3xQ9ZkR7vLm", "N2pQ8sT4uW6yZ1"),
        "ACCESS_TOKEN={secret}",
    ),
    Secret(
        "google-oauth-token-yaml",
        "google-oauth-token",
        _join("ya29.", "a0AfB_byC3xQ9ZkR7vLm", "N2pQ8sT4uW6yZ2"),
        "  access_token: {secret}",
    ),
    Secret(
        "google-oauth-token-header",
        "google-oauth-token",
        _join("ya29.", "a0AfB_byC3xQ9ZkR7vLm", "N2pQ8sT4uW6yZ3"),
        'curl -H "Authorization: OAuth {secret}" https://www.googleapis.com/drive/v3/files',
    ),
    Secret("dotted-generated", "secret", _join("abc.", "defGHI1234", "56789xyz"), "ACCESS_TOKEN={secret}"),
    Secret("dotted-words", "secret", _join("correcthorse.", "batterystaple"), "DB_PASSWORD={secret}"),
    # The aws CLI's own forms (a trust trial's finds).
    Secret(
        "aws-configure-set",
        "aws-secret",
        _B64_40,
        "aws configure set aws_secret_access_key {secret}",
    ),
    Secret(
        "aws-configure-session-token",
        "aws-secret",
        _join("FwoGZXIvYXdzEJr", "//////////wEaDExAMPLE", "Tok3nQ9zR"),
        "aws configure set profile.dev.aws_session_token {secret}",
    ),
    Secret("aws-configure-prompt", "aws-secret", _B64_40, "AWS Secret Access Key [None]: {secret}"),
    Secret(
        "aws-configure-prompt-masked", "aws-secret", _B64_40, "AWS Secret Access Key [****************abcd]: {secret}"
    ),
    # Redis's AUTH command, an apostrophe in a double-quoted -a, and REDISCLI_AUTH.
    Secret("redis-cli-auth", "cli-credentials", _join("RedisAuth", "Pw0rd1"), "redis-cli -h cache AUTH {secret}"),
    Secret(
        "redis-cli-auth-user", "cli-credentials", _join("RedisAuth", "Pw0rd2"), "redis-cli -h cache AUTH app {secret}"
    ),
    Secret("redis-prompt-auth", "cli-credentials", _join("RedisAuth", "Pw0rd3"), "127.0.0.1:6379> AUTH {secret}"),
    Secret(
        "redis-cli-a-apostrophe",
        "cli-credentials",
        _join("Sun'shine", "Pw0rd4"),
        'redis-cli -h cache -a "{secret}" ping',
    ),
    Secret(
        "rediscli-auth-env", "cli-credentials", _join("RedisAuth", "Pw0rd5"), "REDISCLI_AUTH={secret} redis-cli ping"
    ),
    # A password before a shell's separator, and AUTH after options that take a value and one that does not.
    Secret("redis-cli-a-then-command", "cli-credentials", _join("RedisSemi", "Pw0rd6"), "redis-cli -a {secret}; ls"),
    Secret(
        "redis-cli-auth-after-options",
        "cli-credentials",
        _join("RedisAuth", "Pw0rd7"),
        "redis-cli -h cache -p 6380 --tls -n 2 auth {secret} && echo ok",
    ),
    # A secret named in a sentence, the commonest way one is pasted into a chat (trialG's F6).
    Secret(
        "sentence-password",
        "secret",
        _join("Xy7#", "kq9!Lm"),
        "grafana login fails. the admin password is {secret} and it worked yesterday",
    ),
    Secret(
        "sentence-token", "secret", _join("8f14e45f", "ceea167a", "5a36dedd", "4bea2543"), "the api token is {secret}"
    ),
    Secret("sentence-password-for", "secret", _join("Qz8#", "mw3!Tv"), "password for prod db: {secret}"),
    Secret("sentence-pw", "secret", _join("hunter7", "hunter7"), "the root pw was {secret}."),
    Secret("sentence-passphrase", "secret", _join("Lp4$", "nx7&Rw"), "use passphrase {secret} to unlock the key"),
    # A qualifier in brackets, a dash or an arrow, a participle, "here is your" (red64).
    Secret("sentence-qualified", "secret", _join("Qz8#", "mw3!Tv"), "Password (prod): {secret}"),
    Secret("sentence-dash", "secret", _join("Qz8#", "mw3!Tv"), "- **API key** \u2014 `{secret}`"),
    Secret("sentence-arrow", "secret", _join("8f14e45f", "ceea167a"), "staging token \u2192 {secret}"),
    Secret("sentence-generated", "secret", _join("8f14e45f", "ceea167a"), "New token generated: {secret}"),
    Secret("sentence-here-is", "secret", _join("8f14e45f", "ceea167a"), "Here is your token {secret} (keep it)"),
    # A quote inside a made password, written or escaped, and a sign after it (review44g L3).
    Secret("sentence-apostrophe", "secret", _join("Xk9m'", "Pq2Lw7zR"), "the password is {secret} for the db"),
    Secret("sentence-escaped-apostrophe", "secret", _join("Xk9m\\u0027", "-Pq2Lw7zR"), "the password is {secret} end"),
    Secret("sentence-login", "secret", _join("Xy7kq9", "Lm2024"), "login with admin:{secret}"),
    # A secret named in another language (trialI's F7), or given as a pair.
    Secret("sentence-french", "secret", _join("Kx9#", "mPq2Lw"), "le mot de passe de la base est {secret}"),
    Secret("sentence-french-colon", "secret", _join("Kx9#", "mPq2Lw"), "Mot de passe : {secret}"),
    Secret("sentence-german", "secret", _join("Zr7!", "tQe4Wn"), "das Passwort ist {secret}"),
    Secret("sentence-german-compound", "secret", _join("Zr7!", "tQe4Wn"), "Das Datenbankkennwort lautet {secret}."),
    Secret("sentence-spanish", "secret", _join("Jd5&", "nVb8Rs"), "la contraseña del servidor es {secret}"),
    Secret("sentence-spanish-mi", "secret", _join("PerroAzul", "#2024"), "mi contraseña es {secret} para el panel"),
    Secret("sentence-portuguese", "secret", _join("Qw3@", "rTy6Ui"), "a senha do banco é {secret}"),
    Secret("sentence-italian", "secret", _join("Mn4%", "bVc7Xz"), "la password del database è {secret}"),
    Secret("sentence-italian-token", "secret", _join("8f14e45f", "ceea167a"), "il token dell'API è {secret}"),
    Secret("sentence-dutch", "secret", _join("Lk8^", "jHg5Fd"), "het wachtwoord is {secret}"),
    Secret("sentence-russian", "secret", _join("Po9*", "iUy2Tr"), "Пароль от базы: {secret}"),
    Secret("sentence-chinese", "secret", _join("Hb6$", "yUj3Ko"), "数据库密码是 {secret}"),
    Secret("sentence-chinese-glued", "secret", _join("Hb6$", "yUj3Ko"), "密码是{secret}，别外传"),
    Secret("sentence-chinese-colon", "secret", _join("Hb6$", "yUj3Ko"), "密码：{secret}"),
    Secret("sentence-japanese", "secret", _join("Sakura-", "Himitsu-77"), "パスワードは {secret} です"),
    Secret("sentence-japanese-glued", "secret", _join("Sakura-", "Himitsu-77"), "パスワードは「{secret}」です"),
    Secret("sentence-korean", "secret", _join("Gh7#", "kL2mNp"), "비밀번호는 {secret} 입니다"),
    Secret("sentence-creds-pair", "secret", _join("Wm4$", "kR9pLx"), "the staging creds are deploy / {secret}"),
    # A trust trial's finds (trialH): keys and passwords in the files agents cat.
    Secret("kubeconfig-client-key", "pem", _PEM_B64, "    client-key-data: {secret}"),
    Secret("secret-manifest-tls-key", "pem", _PEM_B64, "data:\n  tls.crt: " + _CERT_B64 + "\n  tls.key: {secret}"),
    Secret(
        "docker-config-auth",
        "registry-auth",
        _REGISTRY,
        '{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{secret}"}}}}}}',
    ),
    Secret("npmrc-auth", "registry-auth", _REGISTRY, "//registry.npmjs.org/:_auth={secret}"),
    # Yarn's ``npmAuthIdent`` (trial60 F4): ``user:password`` quoted or not, its base64, set by ``yarn config``.
    Secret("yarnrc-auth-ident", "registry-auth", _join("ci-bot:N3xus", "Pa55w0rdQ"), "  npmAuthIdent: {secret}"),
    Secret("yarnrc-auth-ident-quoted", "registry-auth", _join("ci-bot:N3xus", "Pa55w0rdQ"), 'npmAuthIdent: "{secret}"'),
    Secret("yarnrc-auth-ident-base64", "registry-auth", _REGISTRY, "npmScopes:\n  acme:\n    npmAuthIdent: {secret}"),
    Secret(
        "yarn-config-auth-ident",
        "registry-auth",
        _join("ci-bot:N3xus", "Pa55w0rdQ"),
        "yarn config set npmAuthIdent {secret}",
    ),
    Secret("dockerconfigjson", "registry-auth", _DOCKERCONFIG, "  .dockerconfigjson: {secret}"),
    Secret(
        "netrc-one-line",
        "secret",
        _join("7f3e9d1c", "-5b2a-4e8f-9c6d-", "1a2b3c4d5e6f"),
        "machine api.heroku.com login me@example.com password {secret}",
    ),
    Secret(
        "netrc-lines",
        "secret",
        _join("Tr0ub4dor", "3xNetrc"),
        "machine git.example.com\n  login me\n  password {secret}\n",
    ),
    Secret(
        "vault-table",
        "secret",
        _join("Vault", "Pw0rd9x"),
        "Key                 Value\n---                 -----\nlease_duration      768h\npassword            {secret}\n",
    ),
    Secret(
        "terraform-sensitive",
        "secret",
        _join("Tf", "Pw0rd", "Sens1"),
        '"db_password": {{\n    "sensitive": true,\n    "type": "string",\n    "value": "{secret}"\n  }}',
    ),
    Secret("rails-secret-key-base", "secret", _HEX64 + _HEX64, "SECRET_KEY_BASE={secret}"),
    Secret("wordpress-db-password", "secret", _join("hunter2", "wpDB9"), "define( 'DB_PASSWORD', '{secret}' );"),
    Secret("wordpress-salt", "secret", _join("x7#kP!q9", "-Lm2@vW&"), "define('NONCE_SALT', '{secret}');"),
    Secret(
        "cookie-header",
        "cookie",
        _join("q9w8e7r6t5", "y4u3i2o1p0lkjh"),
        "> Cookie: sessionid={secret}; csrftoken=abc",
    ),
    Secret(
        "set-cookie", "cookie", _join("s3ss10n", "Abcdef123456"), "< set-cookie: session={secret}; Path=/; HttpOnly"
    ),
    Secret(
        "putty-ppk",
        "pem",
        _PPK_LINES,
        "PuTTY-User-Key-File-3: ssh-rsa\nPublic-Lines: 1\nAAAAB3NzaC1yc2E\nPrivate-Lines: 2\n{secret}\nPrivate-MAC: 0a1b\n",
    ),
    # A stranger review's variants of them (review6a).
    Secret(
        "base64-key-wrapped",
        "pem",
        "\n".join(_PEM_B64_LONG[i : i + 76] for i in range(0, len(_PEM_B64_LONG), 76)),
        "$ base64 ~/.ssh/id_rsa\n{secret}\n$ echo done",
    ),
    Secret("define-double-quoted", "secret", _join("Xy7kq9", "LmDq"), 'define("DB_PASSWORD", "{secret}");'),
    Secret("define-upper-spaced", "secret", _join("Xy7kq9", "LmUp"), "DEFINE ('DB_PASSWORD', '{secret}');"),
    Secret("netrc-quoted", "secret", _join("S3cret", " Pw9x"), 'machine h login me password "{secret}"'),
    Secret("netrc-account", "secret", _join("S3cret", "Acct7"), "machine h login me account ops password {secret}"),
    Secret("cookie-quoted", "cookie", _join("Zx9kq2Lm", "7Np4Rt6Vb8"), 'cookie: sid="{secret}"'),
    Secret("cookie-json-escaped", "cookie", _join("Zx9kq2Lm", "7Np4Rt6Vb9"), '\\"Cookie\\": \\"sid={secret}\\"'),
    Secret("registry-auth-json-escaped", "registry-auth", _REGISTRY, '\\"auth\\": \\"{secret}\\"'),
    Secret(
        "putty-ppk-indented",
        "pem",
        _PPK_LINES.replace("\n", "\n    "),
        "    Private-Lines: 2\n    {secret}\n    Private-MAC: 0a1b\n",
    ),
    Secret(
        "terraform-sensitive-object",
        "secret",
        _join("Tf", "Pw0rd", "Obj2"),
        '{{"c": {{"sensitive": true, "type": ["object", {{"pw": "string"}}], "value": {{"pw": "{secret}"}}}}}}',
    ),
    Secret(
        "vault-table-indented",
        "secret",
        _join("Vault", "Pw0rd8y"),
        "  Key                 Value\n  ---                 -----\n  password            {secret}\n",
    ),
    Secret(
        "url-token-user",
        "url-credentials",
        _join("a1b2c3d4e5", "f6a7b8c9d0", "e1f2a3b4"),
        "git clone https://{secret}@github.com/acme/api.git",
    ),
    # Sentences the rule missed (review6a): a noun's link other than for/of/on, Markdown, a plural, a possessive,
    # parentheses, a value on the next line, tabs and no-break spaces, and five words between the noun and its verb.
    Secret("sentence-to", "secret", _join("Xy7#", "kq9!Lt"), "the password to the db is {secret}"),
    Secret("sentence-bold", "secret", _join("Xy7#", "kq9!Lb"), "**password** is {secret}"),
    Secret("sentence-code-spans", "secret", _join("Xy7#", "kq9!Lc"), "`password` is `{secret}`"),
    Secret(
        "sentence-plural",
        "secret",
        _join("Xy7#", "kq9!Lp"),
        "the passwords are {secret} and {second}",
        second=_join("Xq2#", "mm8!Zz"),
    ),
    Secret("sentence-possessive", "secret", _join("Xy7#", "kq9!Ls"), "my password's {secret}"),
    # A short password in letters and digits after a password's own name; a second value after a singular noun.
    Secret("sentence-short-password", "secret", _join("hunt", "er2"), "the password is {secret}"),
    Secret("sentence-short-password-digits", "secret", _join("abc", "123"), "my password was {secret}."),
    # A value given by "set … to", "will be", "has been" (review8b).
    Secret("sentence-set-to", "secret", _join("hunt", "er2"), "set the password to {secret}"),
    Secret("sentence-changed-to", "secret", _join("Xy7#", "kq9!Ct"), "I changed my db password to {secret}."),
    Secret("sentence-will-be", "secret", _join("hunt", "er2"), "the new password will be {secret}"),
    Secret("sentence-has-been", "secret", _join("8f14e45f", "ceea167a", "5a36dedd"), "the api token has been {secret}"),
    # A word that starts as a scheme's short name does (``ed``, ``x``) is still a password (review8a #7).
    Secret("sentence-short-password-scheme-like", "secret", _join("ed4", "life"), "the password is {secret}"),
    Secret("sentence-short-password-scheme-like-cp", "secret", _join("cp3", "po99"), "the password is {secret}"),
    Secret(
        "bold-label-long",
        "secret",
        _join("Xy7#kq9", "!Lm"),
        "**Production database credentials for the legacy reporting cluster in eu-west-1, admin password**: {secret}",
    ),
    Secret("code-span-bracket", "secret", _join("Xy7#kq", "(9)Lm"), "Password: `{secret}`"),
    Secret("code-span-angle", "secret", _join("Tr0ub<4>", "dor&3"), "DB password: `{secret}`"),
    Secret("sentence-short-password-one-letter", "secret", _join("x9k", "2m3"), "the password is {secret}"),
    Secret(
        "sentence-singular-or",
        "secret",
        _join("Xy7#", "kq9!Lo"),
        "the password is {secret} or {second}",
        second=_join("Ab3$", "zz9!Qo"),
    ),
    Secret("sentence-parenthesised", "secret", _join("Xy7#", "kq9!Lr"), "the password is ({secret})"),
    Secret("sentence-next-line", "secret", _join("Xy7#", "kq9!Ln"), "the password is\n{secret}\n"),
    Secret("sentence-tab", "secret", _join("Xy7#", "kq9!Lx"), "the password\tis {secret}"),
    Secret("sentence-nbsp", "secret", _join("Xy7#", "kq9!Ly"), "the password is\u00a0{secret}"),
    Secret(
        "sentence-five-words",
        "secret",
        _join("Xy7#", "kq9!Lz"),
        "the password for the production postgres database server is {secret}",
    ),
    # What stop 26 left (review6a, trialH): netrc's other orders, ~/.pgpass, YAML block scalars, curl's cookies and
    # cookies.txt, terraform's maps and deeper values, a bare value before a shell separator, a Sentry DSN's key.
    Secret("netrc-password-first", "secret", _join("S3cret", "First1"), "machine h password {secret} login me"),
    Secret("netrc-no-login", "secret", _join("S3cret", "Alone2"), "machine h password {secret}"),
    Secret("pgpass", "secret", _join("Pg", "Pass9x", "Word"), "db.example.com:5432:app:me:{secret}\n"),
    Secret("pgpass-wildcards", "secret", _join("Pg", "Pass8yWild"), "*:*:*:post\\:gres:{secret}"),
    Secret("yaml-folded", "secret", _join("Yaml", "Folded7z"), "db:\n  password: >-\n    {secret}\n  user: app\n"),
    Secret("yaml-literal", "secret", _join("Yaml", "Literal6w"), "token: |\n  {secret}\nnext: 1\n"),
    Secret("curl-cookie-b", "cookie", _join("Zx9kq2Lm", "7Np4Rt6Vc1"), "curl -b 'sid={secret}' https://x.example"),
    Secret(
        "curl-cookie-long",
        "cookie",
        _join("Zx9kq2Lm", "7Np4Rt6Vc2"),
        'curl --cookie "theme=dark; sid={secret}" https://x.example',
    ),
    Secret(
        "cookies-txt",
        "cookie",
        _join("Zx9kq2Lm", "7Np4Rt6Vc3"),
        "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1767225600\tsid\t{secret}\n",
    ),
    Secret(
        "terraform-sensitive-map",
        "secret",
        _join("Tf", "Pw0rd", "Map3"),
        '{{"m": {{"sensitive": true, "type": ["map", "string"], "value": {{"a": "{secret}"}}}}}}',
    ),
    Secret(
        "terraform-sensitive-deep",
        "secret",
        _join("Tf", "Pw0rd", "Deep4"),
        '{{"c": {{"sensitive": true, "type": ["object", {{"a": ["object", {{"b": ["object", {{"c": "string"}}]}}]}}], '
        '"value": {{"a": {{"b": {{"c": "{secret}"}}}}}}}}}}',
    ),
    # A stranger review's (review7a): a bracket or an escaped quote inside a nested sensitive value's string
    # (``random_password`` puts ``[]{}`` in one by default), compact and pretty-printed.
    Secret(
        "terraform-sensitive-bracket",
        "secret",
        _join("Xk9]mP{q2", "Lw#Rt8"),
        '{{"db": {{"sensitive": true, "type": ["object", {{"pw": "string", "user": "string"}}], '
        '"value": {{"pw": "{secret}", "user": "admin"}}}}}}',
    ),
    Secret(
        "terraform-sensitive-bracket-pretty",
        "secret",
        _join("Qw8}zR[t5", 'Yu\\"Io3Pa7Lm2'),
        '{{\n  "db": {{\n    "sensitive": true,\n    "type": [\n      "list",\n      "string"\n    ],\n'
        '    "value": [\n      "{secret}",\n      "second]{{9Xk2Lw"\n    ]\n  }}\n}}',
    ),
    # Every value of a list after a plural noun (review7a finding 9), not only the first.
    Secret(
        "sentence-plural-three",
        "secret",
        _join("Xy7#", "kq9!L3"),
        "the staging passwords are {secret}, {second} and {third}.",
        second=_join("Ab3$", "zz9!Q3"),
        third=_join("Cd4%", "yy8!R3"),
    ),
    Secret(
        "sentence-plural-slash",
        "secret",
        _join("Xy7#", "kq9!L4"),
        "the admin and root passwords are `{secret}` / `{second}`",
        second=_join("Ab3$", "zz9!Q4"),
    ),
    # French and German typography (review7a finding 8): the no-break spaces before a colon, guillemets with their
    # spaces, German quotes, "c'est", a tab or a line's end after the verb.
    Secret("sentence-french-nbsp-colon", "secret", _join("Kx9#", "mPq2N1"), "Mot de passe\u00a0: {secret}"),
    Secret("sentence-french-narrow-colon", "secret", _join("Kx9#", "mPq2N2"), "le mot de passe\u202f: {secret}"),
    Secret("sentence-french-guillemets", "secret", _join("Kx9#", "mPq2N3"), "le mot de passe est « {secret} »"),
    Secret("sentence-german-quotes", "secret", _join("Kx9#", "mPq2N4"), "Das Passwort ist „{secret}“"),
    Secret("sentence-french-c-est", "secret", _join("Kx9#", "mPq2N5"), "le mot de passe c'est {secret}"),
    Secret("sentence-french-c-est-curly", "secret", _join("Kx9#", "mPq2N6"), "le mot de passe c\u2019est {secret}"),
    Secret("sentence-french-next-line", "secret", _join("Kx9#", "mPq2N7"), "le mot de passe est\r\n{secret}\r\n"),
    Secret("sentence-german-tab", "secret", _join("Kx9#", "mPq2N8"), "das Passwort ist\t{secret}"),
    Secret("sentence-german-token-tab", "secret", _join("Kx9#", "mPq2N9"), "der Token ist\t{secret}"),
    # A made value in Markdown's emphasis still goes (its stars are not what makes it one: review7a's low list).
    Secret("sentence-emphasis", "secret", _join("Xy7#", "kq9!Le"), "the password is **{secret}**"),
    # The value on the next line inside a JSON string, its line end escaped (review7a's low list).
    Secret(
        "sentence-next-line-json-escaped",
        "secret",
        _join("Xy7#", "kq9!Lj"),
        '{{"text": "the db password is\\n{secret}"}}',
    ),
    # A block scalar's header with two blanks after its colon.
    Secret("yaml-block-two-blanks", "secret", _join("Xy7kq9", "Lm22Yb"), "password:  |\n  {secret}\nuser: app\n"),
    # German's other quotes, plurals and their lists, and names rules 9 did not know (review7c item 8).
    Secret("sentence-german-guillemets", "secret", _join("Kx9#", "mPq2Gg"), "das Passwort ist »{secret}«"),
    Secret("sentence-german-single-quotes", "secret", _join("Kx9#", "mPq2Gs"), "das Passwort ist ‚{secret}‘"),
    Secret(
        "sentence-french-plural",
        "secret",
        _join("Kx9#", "mPq2Fp"),
        "les mots de passe sont {secret} et {second}",
        second=_join("Ab3$", "zz9!Fq"),
    ),
    Secret(
        "sentence-german-plural",
        "secret",
        _join("Kx9#", "mPq2Dp"),
        "die Passwörter sind {secret} und {second}",
        second=_join("Ab3$", "zz9!Dq"),
    ),
    Secret("sentence-russian-key", "secret", _join("Kx9#", "mPq2Rk"), "ключ API: {secret}"),
    Secret("sentence-russian-plural", "secret", _join("Kx9#", "mPq2Rp"), "пароли: {secret}"),
    Secret("sentence-french-jeton", "secret", _join("Kx9#", "mPq2Fj"), "le jeton est {secret}"),
    Secret("sentence-french-mdp", "secret", _join("Kx9#", "mPq2Fm"), "mdp : {secret}"),
    Secret("sentence-portuguese-chave", "secret", _join("Kx9#", "mPq2Pc"), "a chave da API é {secret}"),
    Secret("sentence-italian-chiave", "secret", _join("Kx9#", "mPq2Ic"), "la chiave è {secret}"),
    Secret("sentence-dutch-sleutel", "secret", _join("Kx9#", "mPq2Ns"), "de sleutel is {secret}"),
    Secret("sentence-french-euro", "secret", _join("Kx9#mPq2€", "Lw8Rt5Zq"), "le mot de passe est {secret}"),
    Secret("redis-cli-a-pipe", "cli-credentials", _join("RedisPipe", "Pw0rd8"), "redis-cli -a {secret}|grep x"),
    Secret(
        "rediscli-auth-semicolon",
        "cli-credentials",
        _join("RedisSemi", "Pw0rd9"),
        "REDISCLI_AUTH={secret};redis-cli ping",
    ),
    # Outside a shell (redis.conf, CONFIG SET, the prompt, a .env) a ;&| is the password's own (review7a item 1).
    Secret("redis-conf-ampersand", "cli-credentials", _join("Tr0ub4", "dor&3xRc"), "requirepass {secret}"),
    Secret("redis-conf-pipe", "cli-credentials", _join("pa|ss99", "wordMa"), "masterauth {secret}"),
    Secret(
        "redis-config-set-semicolon", "cli-credentials", _join("ab;cd12", "34Cfg"), "CONFIG SET requirepass {secret}"
    ),
    Secret(
        "redis-prompt-auth-ampersand", "cli-credentials", _join("Tr0ub4", "dor&3xPr"), "127.0.0.1:6379> AUTH {secret}"
    ),
    Secret("rediscli-auth-dotenv", "cli-credentials", _join("Tr0ub4", "dor&3xEnv"), "REDISCLI_AUTH={secret}\nOTHER=1"),
    # (An escaped ``\\;`` is tested by ``test_only_the_value_is_replaced``: JSON would double the corpus's ``\\``.)
    # netrc's ``default`` entry with no ``login`` (review7a item 3): no separator, so the gates must let it through.
    Secret("netrc-default-no-login", "secret", _join("Xy7kq9", "Lm22Def"), "default password {secret}"),
    Secret("netrc-default-lines", "secret", _join("Xy7kq9", "Lm22Dfl"), "default\n  password {secret}"),
    # ~/.pgpass written from a shell (review7a item 5).
    Secret("pgpass-echo", "secret", _join("Xy7kq9", "Lm22Pg"), 'echo "db:5432:app:app:{secret}" >> ~/.pgpass'),
    Secret(
        "pgpass-echo-bare", "secret", _join("Xy7kq9", "Lm22Pb"), "echo db.internal:5432:app:app:{secret} >> ~/.pgpass"
    ),
    # curl's -b on a continued line (review7a item 6: -b is a cookie in a curl command only).
    Secret(
        "curl-cookie-b-continued",
        "cookie",
        _join("Zx9kq2Lm", "7Np4Rt6Vc2"),
        "curl https://x.example \\\n  -b 'sid={secret}'",
    ),
    # Markdown around a label or a value, as agents list credentials in an answer (review7c item 3).
    Secret("markdown-bold-label", "secret", _join("hunter", "2xMd"), "**Password:** {secret}"),
    Secret("markdown-bold-key", "secret", _join("Xy7#", "kq9!Mb"), "- **Password**: {secret}"),
    Secret("markdown-bold-two-words", "secret", _join("Xy7#", "kq9!Mw"), "**DB password:** {secret}"),
    Secret("markdown-bold-value", "secret", _join("hunter", "2xMv"), "Password: **{secret}**"),
    Secret("markdown-bold-code-value", "secret", _join("Xy7#", "kq9!Mc"), "**Password**: `{secret}`"),
    Secret("markdown-underscore-key", "secret", _join("hunter", "2xMu"), "__password__: {secret}"),
    Secret("markdown-code-key", "secret", _join("hunter", "2xMk"), "`password`: {secret}"),
    Secret("markdown-next-line-quote", "secret", _join("Tr0ub4", "dor&3Mq"), "password:\n> {secret}"),
    Secret("sentence-markdown-next-line-item", "secret", _join("Tr0ub4", "dor&3Mi"), "the password is:\n- {secret}"),
    # Redaction rules 11 (review8a #3, #4, #5, #9): labels and sentences agents and people write every day.
    Secret("pw-label", "secret", _join("Xk9m", "Pq2Pw"), "user: admin, pw: {secret}"),
    Secret("pw-config", "secret", _join("Xk9m", "Pq2Pc"), "PW = {secret}"),
    Secret("api-key-spaced-label", "secret", _join("Xk9m", "Pq2Ak7"), "API key: {secret}"),
    Secret("api-key-spaced-assign", "secret", _join("Xk9m", "Pq2As"), "api key = {secret}"),
    Secret("markdown-bold-spaced-key", "secret", _join("Xk9m", "Pq2Ab7"), "**API Key:** {secret}"),
    Secret("markdown-underscore-label", "secret", _join("Xk9m", "Pq2Ul"), "__Password:__ {secret}"),
    Secret("markdown-italic-label", "secret", _join("Xk9m", "Pq2Il"), "*Password:* {secret}"),
    Secret("markdown-bold-italic-label", "secret", _join("Xk9m", "Pq2Bi"), "***Password:*** {secret}"),
    Secret("markdown-bold-label-nbsp", "secret", _join("Xk9m", "Pq2Nb"), "**Password**\u00a0: {secret}"),
    Secret("markdown-fenced-after-label", "secret", _join("hunter", "2Xf"), "Password:\n```text\n{secret}\n```"),
    Secret(
        "markdown-next-line-after-a-sentence", "secret", _join("Xk9m", "Pq2Hs"), "Here is the password:\n- {secret}"
    ),
    Secret(
        "markdown-numbered-after-a-sentence", "secret", _join("Xk9m", "Pq2Hn"), "Here is the password:\n1. {secret}"
    ),
    Secret("markdown-next-line-in-json", "secret", _join("Xk9m", "Pq2Js"), '{{"text": "password:\\n- {secret}"}}'),
    Secret(
        "markdown-bold-next-line-in-json", "secret", _join("Xk9m", "Pq2Jb"), '{{"t": "**Password:**\\n- {secret}"}}'
    ),
    Secret("markdown-next-line-alone", "secret", _join("Xk9m", "Pq2Na"), "Here is the password:\n{secret}\n"),
    Secret("markdown-after-a-blank-line", "secret", _join("hunter", "2Xb"), "Password:\n\n{secret}"),
    Secret(
        "sentence-fenced-after-a-blank-line", "secret", _join("Xk9m", "Pq2Fb"), "The password is:\n\n```\n{secret}\n```"
    ),
    Secret("yaml-block-scalar-tab", "secret", _join("Xk9m", "Pq2Yt"), "password:\t|\n  {secret}\nuser: app"),
    Secret("sentence-fenced-after-is", "secret", _join("hunter", "2Xy"), "the password is:\n```\n{secret}\n```"),
    Secret("sentence-password-alone", "secret", _join("hunter", "2"), "chat: password {secret}"),
    Secret("sentence-german-bold", "secret", _join("Xk9m", "Pq2Gb"), "**Passwort:** {secret}"),
    Secret("sentence-german-bold-key", "secret", _join("Xk9m", "Pq2Gk"), "**Kennwort**: {secret}"),
    Secret("sentence-french-bold", "secret", _join("Xk9m", "Pq2Fb"), "**Mot de passe :** {secret}"),
    Secret("sentence-spanish-bold", "secret", _join("Xk9m", "Pq2Sb"), "**Contraseña:** {secret}"),
    Secret("sentence-russian-bold", "secret", _join("Xk9m", "Pq2Rb"), "**Пароль:** {secret}"),
    Secret("sentence-chinese-bold", "secret", _join("Xk9m", "Pq2Cb"), "**密码：** {secret}"),
    Secret("sentence-german-api-key", "secret", _join("Xk9m", "Pq2Gs"), "der API-Schlüssel ist {secret}"),
    Secret("sentence-german-secret-key", "secret", _join("Xk9#", "mPq2Gz"), "der Schlüssel ist {secret}"),
    Secret("sentence-german-weak", "secret", _join("hunter", "2"), "das Passwort ist {secret}"),
    Secret("sentence-french-weak", "secret", _join("hunter", "2"), "le mot de passe est {secret}"),
    Secret("sentence-spanish-weak", "secret", _join("hunter", "2"), "la contraseña es {secret}"),
    Secret(
        "sentence-french-quoted-list",
        "secret",
        _join("Xk9m", "Pq2Fq"),
        "les mots de passe sont « {secret} » et « {second} »",
        second=_join("Ab3d", "Ef9Gh"),
    ),
    Secret(
        "sentence-german-quoted-list",
        "secret",
        _join("Xk9m", "Pq2Gq"),
        "die Passwörter sind „{secret}“ und „{second}“",
        second=_join("Ab3d", "Ef9Gg"),
    ),
    # A .pgpass line on Postgres's port keeps no everyday password; a netrc default entry with a login or after a
    # machine entry takes any (the prose rules above ask the others for a made value: review7c items 4 and 7).
    Secret("pgpass-word", "secret", _join("dragon", "fly"), "localhost:5432:app:app:{secret}"),
    # On another port, or after a lone ``default``, a password as short as after a password's name (review8a #1).
    Secret("pgpass-port-weak", "secret", _join("hunt", "er2"), "db:6000:app:app:{secret}"),
    Secret("pgpass-docker-port", "secret", _join("sun", "shine"), "db.example.com:15432:app:me:{secret}"),
    Secret("netrc-default-weak", "secret", _join("s3c", "ret"), "default password {secret}"),
    Secret("netrc-default-login", "secret", _join("anon", "ymous"), "default login ftp password {secret}"),
    Secret(
        "netrc-default-after-machine",
        "secret",
        _join("sun", "flower"),
        "machine a.example login me password Xy7kq9Lm22Ma\ndefault password {secret}",
    ),
    Secret(
        "sentry-dsn",
        "url-credentials",
        _join("abcdef0123", "SEC26"),
        "SENTRY_DSN=https://{secret}@o12345.ingest.sentry.io/67890",
    ),
    # Bare tokens of known formats, pasted or printed with no key naming them (trial10 F1); the lengths the formats
    # have, and the few characters more or less the trial's own samples had.
    Secret("age", "age-key", _join("AGE-SECRET-", "KEY-1", _BECH58), "here are the keys: {secret}"),
    Secret("age-one-more", "age-key", _join("AGE-SECRET-", "KEY-1", _BECH58, "Q"), "# {secret}"),
    Secret("linear", "linear-key", _join("lin_", "api_", _ALNUM40), "the Linear key {secret} works"),
    Secret("linear-short", "linear-key", _join("lin_", "api_", _ALNUM40[:38]), "{secret}"),
    Secret(
        "atlassian",
        "atlassian-token",
        _join("ATATT3", "xFfGF0", _ALNUM40 * 4, _ALNUM24[:10], "=", _HEX32[:8]),
        "curl -u me@acme.dev:{secret} https://acme.atlassian.net/rest/api/3/myself",
    ),
    Secret("atlassian-short", "atlassian-token", _join("ATATT3", "xFfGF0", _ALNUM40[:38]), "token {secret}"),
    Secret("atlassian-admin", "atlassian-token", _join("ATCTT3", "xFfGN0", _ALNUM40, "=", _HEX32[:8]), "- {secret}"),
    Secret("pulumi", "pulumi-token", _join("pul-", _HEX40), "Logged in with {secret}"),
    Secret("tailscale-auth", "tailscale-key", _join("tskey-", "auth-", "kBQHZ61CNTRL-", _ALNUM32), "{secret}"),
    Secret("tailscale-api", "tailscale-key", _join("tskey-", "api-", "k7Xd2Lm4CNTRL-", _ALNUM32), "`{secret}`"),
    Secret("tailscale-client", "tailscale-key", _join("tskey-", "client-", "kq3E9w1CNTRL-", _ALNUM32), "{secret},"),
    Secret(
        "sentry-org",
        "sentry-token",
        _join("sntrys_", "eyJpYXQiOjE3NDIzNjM1NTIuNTAzMzA5LCJ1cmwiOiJodHRwczovL3NlbnRyeS5pbyJ9", "_", _ALNUM43),
        "sentry-cli says: {secret}",
    ),
    Secret("sentry-user", "sentry-token", _join("sntryu_", _HEX64), "the user token: {secret}"),
    Secret("planetscale-password", "planetscale-token", _join("pscale_", "pw_", _ALNUM43), "{secret}"),
    Secret("planetscale-token", "planetscale-token", _join("pscale_", "tkn_", _ALNUM43), "a token: {secret}."),
    Secret("planetscale-oauth", "planetscale-token", _join("pscale_", "oauth_", _ALNUM43), "({secret})"),
    Secret(
        "terraform-cloud",
        "terraform-token",
        _join(_ALNUM24[:14], ".atlas", "v1.", _ALNUM67),
        'credentials "app.terraform.io" {{ token {secret} }}',
    ),
    Secret(
        "1password-service-account",
        "1password-token",
        _join("ops_", "eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIsInVzZXJBdXRoIjp7Im1ldGhvZCI6", _ALNUM67),
        "op whoami with {secret}",
    ),
    Secret(
        "flyio",
        "flyio-token",
        _join("FlyV1 ", "fm2_", "lJPECAAAAAAAAc8W", _ALNUM120, ",fm2_", "lJPETJq3", _ALNUM67),
        "fly tokens create deploy\n{secret}\n",
    ),
    Secret("flyio-macaroon", "flyio-token", _join("fm2_", "lJPECAAAAAAAAc8W", _ALNUM120), "{secret}"),
    Secret("grafana-service-account", "grafana-token", _join("glsa_", _ALNUM32, "_", _HEX32[:8]), "{secret}"),
    Secret("grafana-short", "grafana-token", _join("glsa_", _ALNUM32[:30], "_", _HEX32[:8]), "{secret}"),
    Secret("replicate", "replicate-token", _join("r8_", _ALNUM37), "{secret}"),
    Secret("replicate-short", "replicate-token", _join("r8_", _ALNUM37[:36]), "{secret}"),
    Secret(
        "mapbox-secret",
        "mapbox-token",
        _join("sk.", "eyJ1IjoiYWNtZSIsImEiOiJjbHh5ejEyMzQ1Njc4OTBhYmNkZWZnaCJ9", ".", _ALNUM24[:22]),
        "the Mapbox secret token {secret}",
    ),
    Secret("resend", "resend-key", _join("re_", _ALNUM24[16:], "_", _ALNUM24), "{secret}"),
    Secret("huggingface-digits", "huggingface-token", _join("hf_", _ALNUM34), "{secret}"),
    Secret("doppler-service", "doppler-token", _join("dp.", "st.", "prd.", _ALNUM43), "{secret}"),
    # A Facebook (Meta) user access token, as the Graph API Explorer gives it (red57b).
    Secret(
        "facebook", "facebook-token", _join("EAACEdEose0cBA", _ALNUM120), "curl 'graph.facebook.com/me' -F x={secret}"
    ),
    # Passwords given as arguments of common tools (trial45 F1), and Redis's in a sentence.
    Secret(
        "redis-requirepass-sentence",
        "cli-credentials",
        _join("r3d1s-Pa55", "-w0rd"),
        "in redis.conf requirepass {secret}",
    ),
    Secret(
        "keytool-storepass-keypass",
        "cli-credentials",
        _join("St0re", "Pa55wd"),
        "keytool -genkey -keystore ks.jks -storepass {secret} -keypass {second}",
        second=_join("K3y", "Pa55wd"),
    ),
    Secret("htpasswd-b", "cli-credentials", _join("Ht9a55", "w0rd!"), "htpasswd -b .htpasswd admin {secret}"),
    Secret("htpasswd-nb", "cli-credentials", _join("Ht9a55", "w0rdNb"), "htpasswd -nbB admin {secret} > .htpasswd"),
    Secret(
        "az-login-p",
        "cli-credentials",
        _join("Az3Pwd", "SecretX1"),
        "az login --service-principal -u http://app -p {secret}",
    ),
    Secret("az-login-p-glued", "cli-credentials", _join("Az3Pwd", "Glued9X"), "az login -u dev@acme.io -p{secret}"),
    # A user and its password given to curl and HTTPie as one word (review52e's rule gaps).
    Secret(
        "curl-u-glued", "cli-credentials", _join("Cu9lGl", "uedPw4"), "curl -sS -udeploy:{secret} https://api.acme.io"
    ),
    Secret(
        "curl-proxy-user",
        "cli-credentials",
        _join("Pr0xyU", "serPw7"),
        "curl -x proxy:3128 -U ops:{secret} --proxy-user 'ops:{second}' https://x",
        second=_join("Pr0xyL", "ongPw8"),
    ),
    Secret("httpie-auth", "cli-credentials", _join("Ht7pie", "AuthPw"), "http -a deploy:{secret} POST api.acme.io"),
    # NTLM's quoted DOMAIN\user, and the password quoted alone (review53a L1, L2).
    Secret(
        "curl-ntlm-quoted",
        "cli-credentials",
        _join("Ntlm9Q", "uotedPw"),
        'curl --ntlm -u "CORP\\deploy:{secret}" https://intranet.acme.io',
    ),
    Secret(
        "curl-password-quoted-alone",
        "cli-credentials",
        _join("Qu0teA", "lonePw"),
        'curl -u deploy:\'{secret}\' https://x && http -a "ops":"{second}" api.acme.io',
        second=_join("Ht7pieQ", "uotedPw"),
    ),
    Secret(
        "ldapsearch-w", "cli-credentials", _join("LdapB1nd", "Pa55"), "ldapsearch -x -D cn=admin -w {secret} -b dc=x"
    ),
    Secret(
        "smbclient-user-percent", "cli-credentials", _join("SmbPa55", "w0rd"), "smbclient //srv/share -U user%{secret}"
    ),
    Secret("sqlcmd-P", "cli-credentials", _join("MsSqlCl1", "Pa55!"), "sqlcmd -S db -U sa -P '{secret}'"),
    Secret(
        "rabbitmqctl-add-user", "cli-credentials", _join("R4bbit", "Pa55w0rd"), "rabbitmqctl add_user admin {secret}"
    ),
    Secret("mongosh-p", "cli-credentials", _join("Mongo", "Pa55w0rd"), "mongosh -u admin -p {secret} --quiet"),
    Secret("openssl-enc-k", "cli-credentials", _join("Op3nSsl", "Pa55"), "openssl enc -aes-256-cbc -k {secret} -in f"),
    Secret(
        "ssh-keygen-P-N",
        "cli-credentials",
        _join("OldPa55", "phr"),
        "ssh-keygen -p -P {secret} -N {second} -f k",
        second=_join("NewPa55", "phr"),
    ),
    Secret("zip-P", "cli-credentials", _join("ZipPa55", "w0rd"), "zip -rP {secret} out.zip dir"),
    Secret("7z-p", "cli-credentials", _join("SevenPa55", "w0rd"), "7z a -p{secret} out.7z f"),
    # A command continued with ``\\``, a long ``-dname``, and more tools' passwords (secrets46).
    Secret(
        "mysql-continued", "cli-credentials", _join("S3cret", "Pw9x"), "mysql -h db -u root \\\n  -p{secret} \\\n  app"
    ),
    Secret(
        "keytool-after-a-long-dname",
        "cli-credentials",
        _join("St0re", "Pa55wdLong"),
        'keytool -genkeypair -alias app -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=Payments Gateway, '
        'OU=Platform Engineering, O=Example Corporation Limited, L=San Francisco, ST=California, C=US" '
        "-keystore ks.jks -storepass {secret} -keypass {second}",
        second=_join("K3y", "Pa55wdLong"),
    ),
    Secret("unrar-p", "cli-credentials", _join("UnRar", "Pa55w0rd"), "unrar x -p{secret} archive.rar"),
    Secret("lftp-u", "cli-credentials", _join("Lftp", "Pa55w0rd"), "lftp -u deploy,{secret} ftp.example.com"),
    Secret("mosquitto-P", "cli-credentials", _join("Mqtt", "Pa55w0rd"), "mosquitto_pub -h b -u iot -P {secret} -t t"),
    Secret("net-rpc-U", "cli-credentials", _join("NetRpc", "Pa55w0rd"), "net rpc user -U admin%{secret} -S srv"),
    Secret("vault-login-legacy", "cli-credentials", _join("s.", _ALNUM24), "vault login {secret}"),
    Secret(
        "aws-shorthand",
        "secret",
        _join("Cfn", "Pa55w0rd9"),
        "aws cloudformation create-stack --parameters ParameterKey=DbPassword,ParameterValue={secret}",
    ),
    Secret(
        "env-value-changed-in-a-diff",
        "secret",
        _join("NewDb", "Pa55w0rd"),
        "     - name: DB_PASSWORD\n-      value: {second}\n+      value: {secret}\n",
        second=_join("OldDb", "Pa55w0rd"),
    ),
    Secret("env-yaml-flow", "secret", _join("Flow", "Pa55w0rd"), 'env: [{{name: DB_PASSWORD, value: "{secret}"}}]'),
    Secret(
        "json-escaped-twice", "secret", _join("Twice", "Pa55w0rd"), '{{\\\\\\"password\\\\\\": \\\\\\"{secret}\\\\\\"}}'
    ),
    Secret(
        "sshpass-continued",
        "cli-credentials",
        _join("Xy7k", "q9Lm2"),
        "sshpass -v \\\n  -p {secret} \\\n  ssh deploy@host",
    ),
    Secret("sshpass-env", "cli-credentials", _join("Xy7k", "q9Lm2"), "SSHPASS={secret} sshpass -e ssh deploy@host"),
    # Other spellings of known shapes (red47b).
    Secret("vault-token-lookup", "cli-credentials", _join("s.", _ALNUM24), "vault token lookup {secret}"),
    Secret("env-yaml-flow-bare", "secret", _join("Flow", "Pa55w0rd"), "env: [{{name: DB_PASSWORD, value: {secret}}}]"),
    Secret("unrar-exe", "cli-credentials", _join("Rar", "Pa55w0rd"), "UnRAR.exe x -p{secret} backup.rar"),
    Secret("net-u-first", "cli-credentials", _join("Smb", "Pa55w0rd"), "net -U admin%{secret} rpc user"),
    Secret(
        "aws-shorthand-value-first",
        "secret",
        _join("Cfn", "Pa55w0rd9"),
        "aws cloudformation deploy --parameter-overrides ParameterValue={secret},ParameterKey=DbPassword",
    ),
    Secret(
        "mysql-powershell-continued", "cli-credentials", _join("My", "Pa55w0rd"), "mysql -u root `\n  -p{secret} app"
    ),
    Secret(
        "listed-command",
        "cli-credentials",
        _join("Xy7k", "q9Lm2"),
        'subprocess.run(["sshpass", "-p", "{secret}", "ssh", "deploy@host"], check=True)',
    ),
    # More spellings of a command given as a list, of Vault's older token and of Windows's tools' names (red48).
    Secret(
        "listed-command-beside-its-program",
        "cli-credentials",
        _join("Task", "Pa55w0rd"),
        '{{"label": "db", "type": "shell", "command": "mysql", "args": ["-u", "root", "-p{secret}"]}}',
    ),
    Secret(
        "listed-command-after-sudo", "cli-credentials", _join("Sudo", "Pa55w0rd"), '["sudo", "mysql", "-p{secret}"]'
    ),
    Secret(
        "listed-command-apart",
        "cli-credentials",
        _join("Spawn", "Pa55w0rd"),
        "spawn('sshpass', ['-p', '{secret}', 'ssh', 'h'])",
    ),
    Secret("listed-command-go", "cli-credentials", _join("GoExec", "Pa55w0rd"), 'exec.Command("mysql", "-p{secret}")'),
    Secret(
        "listed-command-tuple",
        "cli-credentials",
        _join("Tuple", "Pa55w0rd"),
        "('sshpass', '-p', '{secret}', 'ssh', 'h')",
    ),
    Secret("vault-token-quoted", "cli-credentials", _join("s.", _ALNUM24), 'vault token revoke "{secret}"'),
    Secret(
        "vault-token-capabilities", "cli-credentials", _join("s.", _ALNUM24), "vault token capabilities {secret} kv/app"
    ),
    Secret(
        "docker-exe-login", "cli-credentials", _join("Exe", "Pa55w0rd"), "docker.exe login -u ci -p {secret} reg.io"
    ),
    Secret("winrar-exe", "cli-credentials", _join("WinRar", "Pa55w0rd"), "WinRAR.exe a -hp{secret} backup.rar src"),
    # red49: trial48 F9's, a token glued to a word, review48d's lows.
    Secret(
        "gh-with-token-here",
        "cli-credentials",
        _join("T49gh", "HereToken", "Plain7"),
        "gh auth login --with-token <<< {secret}",
    ),
    Secret(
        "gh-with-token-echo",
        "cli-credentials",
        _join("T49gh", "EchoToken", "Plain8"),
        "echo {secret} | gh auth login --with-token",
    ),
    Secret(
        "password-stdin-printf",
        "cli-credentials",
        _join("Stdin", "Pa55w0rd"),
        "printf '%s' '{secret}' | docker login -u ci --password-stdin reg.io",
    ),
    Secret(
        "service-account-key-id",
        "secret",
        _join("9f8e7d6c5b4a", "39281706f5e4d3c2b1a0", "fedcba98"),
        '{{"type": "service_account", "private_key_id": "{secret}", "client_email": "ci@p.iam.gserviceaccount.com"}}',
    ),
    Secret(
        "comment-typed",
        "secret",
        _join("T49wrangler", "Typed7"),
        "wrangler secret put API_KEY # then typed: {secret} (pasted into prompt)",
    ),
    Secret("github-glued", "github-token", _join("ghp_", _ALNUM36), "pasted it as token{secret} by mistake"),
    Secret("aws-key-glued", "aws-key", _join("AKIA", "Z7YQ2PLM", "4KD8WN3X"), "the id was my{secret} then"),
    Secret(
        "docker-quoted-path",
        "cli-credentials",
        _join("Quoted", "Pa55w0rd"),
        '& "C:\\Program Files\\Docker\\docker.exe" login -u ci -p {secret} reg.io',
    ),
    Secret(
        "listed-command-dict",
        "cli-credentials",
        _join("Dict", "Pa55w0rd"),
        "{{'command': 'mysql', 'args': ['-u', 'root', '-p{secret}']}}",
    ),
    # fixr49: review49a M3, a heredoc fed to --password-stdin; H2, gh's secret given on its line.
    Secret(
        "password-stdin-heredoc",
        "cli-credentials",
        _join("Heredoc", "Pa55w0rd"),
        "docker login -u ci --password-stdin reg.io <<EOF\n{secret}\nEOF\necho done",
    ),
    Secret(
        "gh-secret-set-body", "cli-credentials", _join("GhBody", "Pa55w0rd"), "gh secret set DB_PASSWORD -b {secret}"
    ),
]

#: Webex's incoming webhook, outside ``SECRETS``: its fixed path's ``webhooks``, which stays as written, is a long run
#: of Discord's webhook URL, and the leak checks look for each secret's long runs in every output.
WEBEX_WEBHOOK = Secret(
    "webex-webhook",
    "webex-webhook",
    _join("Y2lzY29zcGFyazovL3VzL1dFQkhPT0sv", "ZTFiMmMzZDQtZTVmNi00YTdiLThjOWQtMGUxZjJhM2I0YzVk"),
    "WEBEX_HOOK=https://webexapis.com/v1/webhooks/incoming/{secret}",
)
