"""A setting whose name and value are two fields (``name``/``key`` and ``value``): every spelling of the pair a
config, a manifest or a command writes is redacted, as its first (``<add key="ApiKey" value="…"/>``) was; a pair
naming no secret, or giving no value, stays (secrets45: review44e L2, secrets44's "found and left")."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

SECRET = "Xk9mPq2Lw7"


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # A Kubernetes container's env list: the value on the line after its name, quoted or not.
        (
            "env:\n  - name: DB_PASSWORD\n    value: {s}\n  - name: LOG_LEVEL\n    value: debug\n",
            "env:\n  - name: DB_PASSWORD\n    value: [redacted:secret]\n  - name: LOG_LEVEL\n    value: debug\n",
        ),
        (
            '- name: API_TOKEN\n  value: "{s}"  # rotated\n',
            '- name: API_TOKEN\n  value: "[redacted:secret]"  # rotated\n',
        ),
        # The value first, blanks around the sign, another attribute or field between.
        ('<add value="{s}" key="ApiKey"/>', '<add value="[redacted:secret]" key="ApiKey"/>'),
        ('<add key = "ApiKey" value = "{s}"/>', '<add key = "ApiKey" value = "[redacted:secret]"/>'),
        (
            '<add key="ApiKey" description="the payments key" value="{s}"/>',
            '<add key="ApiKey" description="the payments key" value="[redacted:secret]"/>',
        ),
        ('{{"value": "{s}", "name": "DB_PASSWORD"}}', '{{"value": "[redacted:secret]", "name": "DB_PASSWORD"}}'),
        (
            '{{\n  "name": "DB_PASSWORD",\n  "type": "SecureString",\n  "value": "{s}"\n}}',
            '{{\n  "name": "DB_PASSWORD",\n  "type": "SecureString",\n  "value": "[redacted:secret]"\n}}',
        ),
        # CloudFormation's parameters, as JSON and as YAML.
        (
            '[{{"ParameterKey": "DBPassword", "ParameterValue": "{s}"}}]',
            '[{{"ParameterKey": "DBPassword", "ParameterValue": "[redacted:secret]"}}]',
        ),
        (
            "Parameters:\n  - ParameterKey: DBPassword\n    ParameterValue: {s}\n",
            "Parameters:\n  - ParameterKey: DBPassword\n    ParameterValue: [redacted:secret]\n",
        ),
        # The JSON escaped inside a JSON string, as a command line takes it.
        (
            'aws ecs register-task-definition --cli-input-json "{{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"{s}\\"}}"',
            'aws ecs register-task-definition --cli-input-json "{{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": '
            '\\"[redacted:secret]\\"}}"',
        ),
    ],
)
def test_a_settings_value_given_beside_its_secret_name_is_redacted(written: str, shown: str) -> None:
    """Each was kept whole: only a quoted name then its quoted value, on one line or the next, was read."""
    for out in (redact(written.format(s=SECRET)), as_indexed(written.format(s=SECRET))):
        assert out == shown.format(), out


@pytest.mark.parametrize(
    "written",
    [
        "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: PORT\n    value: '8080'\n",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password\n",
        "env:\n  - name: DB_PASSWORD\n    value: $(DB_PASSWORD)\n  - name: API_KEY\n    value: ${API_KEY}\n",
        "- name: DB_PASSWORD\n  value: |\n    from the vault\n",
        '<add value="dark" key="Theme"/>',
        '<add key = "Theme" value = "dark"/>',
        '<add key="ApiKey" description="set by the pipeline" value="${API_KEY}"/>',
        '[{"ParameterKey": "InstanceType", "ParameterValue": "t3.micro"}]',
        "- ParameterKey: InstanceType\n  ParameterValue: t3.micro\n",
        '"{\\"name\\": \\"LOG_LEVEL\\", \\"value\\": \\"debug\\"}"',
        'name: "Theme", value: "dark"\nKey: "ApiKey", value: "${API_KEY}"',
        'value: "dark", name: "Theme"\nKey: "ApiKey", value: ""',
        "cache.set(key='token', value=data)",
        "error[E0382]: borrow of moved value: `api_key`\nname: token\n",
    ],
)
def test_a_setting_that_names_no_secret_or_gives_no_literal_stays(written: str) -> None:
    """A setting of a list one a line is not the next one's value, a reference or a block is no literal."""
    for out in (redact(written), as_indexed(written)):
        assert out == written, out


@pytest.mark.parametrize(
    "written",
    [
        # Swagger's annotations: the value describes the field, in words, in Chinese, or as a name.
        '@ApiImplicitParam(name = "password", value = "密码", required = true)',
        '@ApiImplicitParam(name = "secretKey", value = "秘钥", required = true)',
        '@ApiImplicitParam(name = "token", value = "JWT", paramType = "header")',
        '@ApiParam(name = "token", value = "accessToken")',
        '@ApiImplicitParam(value = "accessToken", name = "token")',
        '@RequestHeader(name = "X-Api-Key", value = "X-Api-Key")',
        # An HTML form control: its name is a field's, its value a button's label.
        '<input value="Save" name="change_password" type="submit">',
        '<input type="submit" name="change_password" value="Save"/>',
        '<button value="rotate" name="rotate_secret" type="submit">Rotate</button>',
        # A template's reference: the page or the chart fills the value in.
        '<input value="@Model.ApiKey" name="apiKey"/>',
        '<add key="ApiKey" value="@Model.ApiKey"/>',
        '- name: DB_PASSWORD\n  value: "{{ .Values.password }}"\n',
        '<property name="password" value="${db.password}"/>',
    ],
)
def test_a_pair_naming_a_field_with_a_label_or_a_reference_stays(written: str) -> None:
    """An annotation's or a form control's ``name``/``value`` name a field and describe or label it: only a made
    value there is a secret. Each of these but the last two was redacted (review45d M2)."""
    for out in (redact(written), as_indexed(written)):
        assert out == written, out


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ('@ApiParam(name = "password", value = "{s}")', '@ApiParam(name = "password", value = "[redacted:secret]")'),
        (
            '<input name="api_key" type="hidden" value="{s}">',
            '<input name="api_key" type="hidden" value="[redacted:secret]">',
        ),
        ('<jsp:param name="password" value="{s}"/>', '<jsp:param name="password" value="[redacted:secret]"/>'),
        ('<env name="DB_PASSWORD" value="hunter2"/>', '<env name="DB_PASSWORD" value="[redacted:secret]"/>'),
    ],
)
def test_a_made_value_of_a_field_and_a_settings_elements_value_are_redacted(written: str, shown: str) -> None:
    """A made value is a secret wherever the pair is; a settings element's (``<property>``, ``<env>``) any literal."""
    for out in (redact(written.format(s=SECRET)), as_indexed(written.format(s=SECRET))):
        assert out == shown, out


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (
            "+        - name: DB_PASSWORD\n+          value: {s}\n",
            "+        - name: DB_PASSWORD\n+          value: [redacted:secret]\n",
        ),
        (
            " - name: DB_PASSWORD\n-   value: {s}\n",
            " - name: DB_PASSWORD\n-   value: [redacted:secret]\n",
        ),
        (
            "     2|- name: DB_PASSWORD\n     3|  value: {s}\n",
            "     2|- name: DB_PASSWORD\n     3|  value: [redacted:secret]\n",
        ),
        ("L2:- name: DB_PASSWORD\nL3:  value: {s}\n", "L2:- name: DB_PASSWORD\nL3:  value: [redacted:secret]\n"),
        (
            "   12 |   - name: DB_PASSWORD\n   13 |     value: {s}\n",
            "   12 |   - name: DB_PASSWORD\n   13 |     value: [redacted:secret]\n",
        ),
        ("2→- name: DB_PASSWORD\n3→  value: {s}\n", "2→- name: DB_PASSWORD\n3→  value: [redacted:secret]\n"),
        ("> - name: DB_PASSWORD\n>   value: {s}\n", "> - name: DB_PASSWORD\n>   value: [redacted:secret]\n"),
    ],
)
def test_an_env_lists_pair_behind_a_line_gutter_is_redacted(written: str, shown: str) -> None:
    """A diff's marks, a file view's line numbers or a quote's ``>`` before both lines: each was kept (review45d M1)."""
    for out in (redact(written.format(s=SECRET)), as_indexed(written.format(s=SECRET))):
        assert out == shown, out


@pytest.mark.parametrize(
    "written",
    [
        "+  - name: LOG_LEVEL\n+    value: debug\n",
        "+  - name: DB_PASSWORD\n+    valueFrom:\n",
        "+  - name: DB_PASSWORD\n+    value: ${DB_PASSWORD}\n",
    ],
)
def test_a_gutter_gives_no_pair_a_value_it_would_not_have(written: str) -> None:
    """Behind a gutter, what stays without one stays."""
    for out in (redact(written), as_indexed(written)):
        assert out == written, out


def test_a_json_in_json_value_holding_an_escaped_quote_is_redacted_whole() -> None:
    """``\\\\\\"`` inside the value is its quote, not its end: the value's tail was left (review45d L)."""
    written = '"{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"' + SECRET + '\\\\\\"tail9Zq\\"}"'
    shown = '"{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"[redacted:secret]\\"}"'
    for out in (redact(written), as_indexed(written)):
        assert out == shown, out


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (
            "aws cloudformation create-stack --stack-name app --parameters ParameterKey=DbPassword,ParameterValue={s} "
            "ParameterKey=Env,ParameterValue=prod",
            "aws cloudformation create-stack --stack-name app --parameters ParameterKey=DbPassword,ParameterValue="
            "[redacted:secret] ParameterKey=Env,ParameterValue=prod",
        ),
        (
            "aws cloudformation update-stack --parameters 'ParameterKey=ApiToken,ParameterValue={s}'",
            "aws cloudformation update-stack --parameters 'ParameterKey=ApiToken,ParameterValue=[redacted:secret]'",
        ),
        (
            "aws ecs run-task --overrides Name=DB_PASSWORD,Value={s}",
            "aws ecs run-task --overrides Name=DB_PASSWORD,Value=[redacted:secret]",
        ),
        (
            "aws ssm add-tags-to-resource --tags Key=api_secret,Value='{s}'",
            "aws ssm add-tags-to-resource --tags Key=api_secret,Value='[redacted:secret]'",
        ),
    ],
)
def test_a_settings_value_in_the_aws_command_lines_shorthand_is_redacted(written: str, shown: str) -> None:
    """``ParameterKey=…,ParameterValue=…`` and ``Name=…,Value=…`` unquoted, as the AWS CLI takes them: each was kept
    (secrets45's "kept" list)."""
    for out in (redact(written.format(s=SECRET)), as_indexed(written.format(s=SECRET))):
        assert out == shown, out


@pytest.mark.parametrize(
    "written",
    [
        "aws ec2 describe-instances --filters Name=tag:Name,Values=web",
        "aws ec2 create-tags --resources i-1 --tags Key=Name,Value=web-01",
        "aws cloudformation deploy --parameter-overrides ParameterKey=KeyName,ParameterValue=my-key-pair",
        "aws cloudformation create-stack --parameters ParameterKey=DbPassword,UsePreviousValue=true",
        "aws cloudformation create-stack --parameters ParameterKey=DbPassword,ParameterValue=$DB_PASSWORD",
        "aws cloudformation create-stack --parameters ParameterKey=DbPassword,ParameterValue=${DB_PASSWORD}",
        "aws dynamodb put-item --key Key=token_ttl,Value=3600",
        "aws ssm put-parameter --tags Key=Owner,Value=platform Key=Name,Value=DbPassword",
    ],
)
def test_the_aws_shorthand_of_a_setting_that_names_no_secret_or_gives_no_literal_stays(written: str) -> None:
    for out in (redact(written), as_indexed(written)):
        assert out == written, out


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # A diff changing the value on the line after its name: the new value as well as the old one.
        (
            "   env:\n     - name: DB_PASSWORD\n-      value: {s}\n+      value: {s}9\n",
            "   env:\n     - name: DB_PASSWORD\n-      value: [redacted:secret]\n+      value: [redacted:secret]\n",
        ),
        (
            '     - name: API_TOKEN\n-      value: "{s}"\n+      value: "{s}9"\n',
            '     - name: API_TOKEN\n-      value: "[redacted:secret]"\n+      value: "[redacted:secret]"\n',
        ),
        (
            "     - name: DB_PASSWORD\n-      value: ${{OLD_PASSWORD}}\n+      value: {s}\n",
            "     - name: DB_PASSWORD\n-      value: ${{OLD_PASSWORD}}\n+      value: [redacted:secret]\n",
        ),
        # Pretty JSON's pair on a diff's lines.
        (
            '+  {{\n+    "name": "DB_PASSWORD",\n+    "value": "{s}"\n+  }}',
            '+  {{\n+    "name": "DB_PASSWORD",\n+    "value": "[redacted:secret]"\n+  }}',
        ),
        (
            '     {{\n       "name": "DB_PASSWORD",\n-      "value": "{s}"\n+      "value": "{s}9"\n     }},',
            '     {{\n       "name": "DB_PASSWORD",\n-      "value": "[redacted:secret]"\n+      "value": "[redacted:secret]"\n'
            "     }},",
        ),
        # The name unquoted, YAML's flow or a JavaScript object, the value quoted.
        ('env: [{{name: DB_PASSWORD, value: "{s}"}}]', 'env: [{{name: DB_PASSWORD, value: "[redacted:secret]"}}]'),
        ("{{ key: API_TOKEN, value: '{s}' }}", "{{ key: API_TOKEN, value: '[redacted:secret]' }}"),
        # JSON in a JSON string in a JSON string: the name's and the value's quotes escaped twice.
        (
            '{{\\\\\\"password\\\\\\": \\\\\\"{s}\\\\\\"}}',
            '{{\\\\\\"password\\\\\\": \\\\\\"[redacted:secret]\\\\\\"}}',
        ),
        (
            'x = "{{\\"a\\": \\"{{\\\\\\"api_key\\\\\\": \\\\\\"{s}\\\\\\"}}\\"}}"',
            'x = "{{\\"a\\": \\"{{\\\\\\"api_key\\\\\\": \\\\\\"[redacted:secret]\\\\\\"}}\\"}}"',
        ),
    ],
)
def test_a_settings_value_in_a_diff_under_an_unquoted_name_or_escaped_twice_is_redacted(
    written: str, shown: str
) -> None:
    """Each was kept (secrets45's "kept" list): a diff's new value, pretty JSON on ``+`` lines, an unquoted name,
    JSON escaped twice."""
    for out in (redact(written.format(s=SECRET)), as_indexed(written.format(s=SECRET))):
        assert out == shown.format(), out


@pytest.mark.parametrize(
    "written",
    [
        "     - name: LOG_LEVEL\n-      value: info\n+      value: debug\n",
        "     - name: DB_PASSWORD\n-      value: ${OLD}\n+      value: ${NEW}\n",
        "     - name: DB_PASSWORD\n-      valueFrom:\n+      value: $(DB_PASSWORD)\n",
        '+ {"name": "Theme",\n+  "value": "dark"}',
        '{name: LOG_LEVEL, value: "debug"}',
        "{ key: 'api_key', value: apiKey }",
        "{name: DB_PASSWORD, value: getPassword()}",
        '{name: DB_PASSWORD, value: "${DB_PASSWORD}"}',
        "fields: [{name: password, value: 'Password'}]",
        # In JavaScript an unquoted name is a variable's, its value a header's or a field's name (review46d M2).
        "{ key: apiKey, value: 'x-api-key' }",
        '{ name: apiKey, value: "api-key" }',
        '{ name: token, value: "Authorization" }',
        'columns: [{name: password, value: "user.password"}]',
        '{\\\\\\"password\\\\\\": \\\\\\"${PW}\\\\\\"}',
    ],
)
def test_a_diff_an_unquoted_name_or_json_escaped_twice_gives_no_value_it_would_not_have(written: str) -> None:
    for out in (redact(written), as_indexed(written)):
        assert out == written, out
