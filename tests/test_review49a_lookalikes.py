"""review49a's evidence (fails on main f4403f5, passes on dc89f1f): ordinary names and comments red49's glued-token
and commented-value rules redact. A CamelCase name with a digit after a word ending in ``sk-`` (``task-``,
``disk-``, ``risk-``) or ``ghs_``, and a ticket or a hash named in a comment beside a secret-named key, are no
secret: redacted in the index, a search for the name finds nothing."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed


@pytest.mark.parametrize(
    "written",
    [
        "task-PostgresMigration2Runner",
        "osdisk-Ubuntu2204LtsGen2Image",
        "risk-HighValueCustomer2024Segment",
        "kiosk-Mode2FullscreenLauncherApp",
        "GET /api/task-Pipeline4StageBuildDeployRunner/status",
        "highs_AverageTemperatureByMonthAndRegion2024",
        "auth_token  # ticket: JIRA-4821",
        "password  # hash: bcrypt2b12",
    ],
)
def test_an_ordinary_name_or_comment_stays_as_written(written: str) -> None:
    assert redact(written) == written
    assert as_indexed(written) == written
