"""Run a management command in this process as the shell would, for its exit status and output."""

from __future__ import annotations

import contextlib
import io
from unittest import mock

from django.core.management import ManagementUtility
from django.db import connections


def run_command(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    """`manage.py ARGV...` here: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = 0
    # run_from_argv closes every database connection when a command ends, as a separate process would;
    # here that would close the test's own transaction (PostgreSQL refuses to go on), so keep it open.
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(connections, "close_all"),
        mock.patch("sys.stdin", io.StringIO(stdin or "")),
    ):
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()
